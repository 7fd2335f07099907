"""Lowering a device's peak to a budget, one long-lived tensor at a time.

At the peak step, a tensor that is live but neither made nor read there sits
in a gap between its last read before the peak and its first read after it.
A strategy (swap it to the host, recompute it) frees it over the gap; the
loop replans and repeats until every device's peak fits the budget or no
tensor at the peak can be freed. Freeing never raises another step: the new
ops stand next to steps where the tensor was live anyway.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import DiagnosticException

from graph_opt.memory.cluster import Cluster
from graph_opt.memory.liveness import Liveness, Tensor, block_liveness
from graph_opt.memory.plan import device_peak, step_label


@dataclass(frozen=True)
class Gap:
    tensor: Tensor
    last_before: int
    """The step that makes the tensor or last reads it before the peak."""
    first_after: int
    """The first step reading it after the peak."""


@dataclass(frozen=True)
class Budgets:
    """Each device's budget for its tensors: `budget` bytes on every device
    when given, else its memory in the cluster less its constants."""

    budget: int | None
    cluster: Cluster | None = None

    def of(self, device: str, liveness: Liveness) -> int | None:
        if self.budget is not None:
            return self.budget
        listed = self.cluster.device(device) if self.cluster is not None else None
        if listed is None or listed.memory is None:
            return None
        return max(0, listed.memory - liveness.constant_bytes.get(device, 0))

    def check(self, pass_name: str, dynamic_dim: int) -> None:
        """A budget or a cluster is given, and the sizes are positive."""
        if self.budget is None and self.cluster is None:
            raise DiagnosticException(
                f"{pass_name}: give budget=BYTES, or a cluster with each device's "
                "memory (--cluster=FILE or cluster=FILE)"
            )
        if (self.budget is not None and self.budget < 0) or dynamic_dim < 1:
            raise DiagnosticException(
                f"{pass_name}: budget and dynamic-dim must be positive"
            )


@dataclass
class DeviceOutcome:
    device: str
    budget: int
    peak_before: int
    peak_after: int = 0
    freed: int = 0
    """Tensors freed over a gap."""
    freed_bytes: int = 0
    stuck_at: str | None = None
    """Where the peak stayed above the budget with nothing left to free."""
    out_of_rounds: bool = False
    """The loop stopped at its round limit, the peak still above the budget."""


@dataclass
class Relief:
    function: func.FuncOp
    outcomes: dict[str, DeviceOutcome] = field(default_factory=dict)
    unbudgeted: list[str] = field(default_factory=list)
    """Devices with no budget (no `budget`, none in the cluster): left as they are."""


class Strategy(ABC):
    """How to free a tensor over a gap."""

    def devices(self, liveness: Liveness) -> list[str]:
        """The devices whose peak the budget applies to."""
        return liveness.devices()

    @abstractmethod
    def can_free(self, gap: Gap, liveness: Liveness) -> bool: ...

    @abstractmethod
    def free(self, gap: Gap, liveness: Liveness) -> None:
        """Rewrite the block so the tensor is not held on the device over the gap."""


def gaps_at(liveness: Liveness, device: str, step: int) -> Iterator[Gap]:
    for tensor in liveness.live_at(step, device):
        if tensor.in_region or tensor.start == step or step in tensor.uses:
            continue
        before = [u for u in tensor.uses if u < step]
        after = [u for u in tensor.uses if u > step]
        if after:
            yield Gap(tensor, max(before, default=tensor.start), after[0])


def relieve(
    function: func.FuncOp, budgets: Budgets, strategy: Strategy, dynamic_dim: int = 1
) -> Relief:
    """Free tensors at each device's peak until it fits its budget or nothing can be freed."""
    block = function.body.block
    relief = Relief(function)
    cluster = budgets.cluster
    liveness = block_liveness(block, dynamic_dim, cluster)
    for device in strategy.devices(liveness):
        budget = budgets.of(device, liveness)
        if budget is None:
            relief.unbudgeted.append(device)
            continue
        relief.outcomes[device] = DeviceOutcome(
            device, budget, device_peak(liveness, device)[0]
        )
    rounds_left = 4 * (len(liveness.tensors) + 1)  # each round frees one gap
    pending = list(relief.outcomes)
    while pending and rounds_left:
        rounds_left -= 1
        device = pending[0]
        outcome = relief.outcomes[device]
        peak, step = device_peak(liveness, device)
        if peak <= outcome.budget:
            pending.pop(0)
            continue
        gaps = [
            g for g in gaps_at(liveness, device, step) if strategy.can_free(g, liveness)
        ]
        if not gaps:
            outcome.stuck_at = step_label(liveness, step)
            pending.pop(0)
            continue
        gap = _choose(gaps, peak - outcome.budget)
        strategy.free(gap, liveness)
        outcome.freed += 1
        outcome.freed_bytes += gap.tensor.bytes
        liveness = block_liveness(block, dynamic_dim, cluster)
    for device, outcome in relief.outcomes.items():
        outcome.peak_after, step = device_peak(liveness, device)
        if outcome.peak_after > outcome.budget and outcome.stuck_at is None:
            outcome.stuck_at, outcome.out_of_rounds = step_label(liveness, step), True
    return relief


def _choose(gaps: list[Gap], excess: int) -> Gap:
    """The smallest tensor that alone covers the excess, else the largest; the
    longer gap first."""

    def longest_first(g: Gap):
        return (-(g.first_after - g.last_before), g.tensor.start)

    enough = [g for g in gaps if g.tensor.bytes >= excess]
    if enough:
        return min(enough, key=lambda g: (g.tensor.bytes, *longest_first(g)))
    return min(gaps, key=lambda g: (-g.tensor.bytes, *longest_first(g)))


def replace_uses_from(
    liveness: Liveness, value: SSAValue, step: int, replacement: SSAValue
) -> None:
    """Reads of `value` at steps from `step` on read `replacement` instead."""
    later = set(liveness.steps[step:])
    value.replace_uses_with_if(
        replacement,
        lambda use: liveness.block.find_ancestor_op_in_block(use.operation) in later,
    )
