"""swap: Grappler's memory swapping, long-lived tensors moved to host memory
between their reads until each device's peak fits a budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike

from graph_opt.dialects.effects import DEVICE_ATTR
from graph_opt.dialects.nn.device_copy import SwapInOp, SwapOutOp
from graph_opt.memory.cluster import Cluster
from graph_opt.memory.cluster_file import cluster_for_pass
from graph_opt.memory.liveness import Liveness, same_device
from graph_opt.memory.peak_relief import (
    Budgets,
    Gap,
    Relief,
    Strategy,
    relieve,
    replace_uses_from,
)
from graph_opt.memory.plan import planned_functions
from graph_opt.memory.relief_report import relief_statistics, report_relief
from graph_opt.statistics import Statistics, record

HOST_DEVICE = "/device:CPU:0"


@dataclass(frozen=True)
class SwapPass(ModulePass):
    """Swap long-lived tensors to host memory until each device's peak fits its budget.

    As Grappler's MemoryOptimizer: at a device's peak (the planner's, see
    memory-plan), a tensor live there but read only before and after it is
    copied to the host after its last read before the peak (`nn.swap_out`,
    placed on `host-device` by `tf.device`) and back before its first read
    after (`nn.swap_in` on the tensor's device, with a control dependency on
    the op before it so the copy back runs late, TensorFlow's `^trigger`);
    later reads take the copy. The smallest tensor that covers the excess is
    chosen, else the largest; then the plan is redone, until the peak fits.
    The pair exports as Identity nodes (to TensorFlow with their devices). A
    peak that no swap can bring under the budget is reported with the bytes
    missing.

    The budget is `budget` bytes on every device, else, with a cluster
    (`--cluster=FILE` or `cluster=FILE`, see the memory docs), each device's
    memory less its constants; a device with neither is left as it is, with a
    warning. With a cluster giving a device's `bandwidth`, the statistics
    estimate the time of its copies (out and back).
    """

    name = "swap"

    statistics: ClassVar[Statistics] = {
        **relief_statistics("swapped"),
        "copy microseconds in {where}": "Time to copy the swapped bytes out and back at the device's bandwidth",
    }

    budget: int | None = field(
        default=None,
        metadata={
            "help": "memory budget of every device in bytes (default: each "
            "device's memory in the cluster)"
        },
    )
    host_device: str = field(
        default=HOST_DEVICE,
        metadata={"help": "the host device swapped tensors are placed on"},
    )
    dynamic_dim: int = field(
        default=1, metadata={"help": "size assumed for each unknown dim"}
    )
    cluster: str = field(
        default="",
        metadata={"help": "a cluster file (JSON or TOML) instead of --cluster's"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        budgets = Budgets(self.budget, cluster_for_pass(self.name, self.cluster))
        budgets.check(self.name, self.dynamic_dim)
        reliefs = [
            relieve(f, budgets, SwapToHost(self.host_device), self.dynamic_dim)
            for f in planned_functions(op)
        ]
        report_relief(
            self.name,
            "swapped",
            reliefs,
            self.dynamic_dim,
            "every tensor live there is made or read by that op",
            budgets.cluster,
        )
        if budgets.cluster is not None:
            _record_copy_times(reliefs, budgets.cluster)


def _record_copy_times(reliefs: list[Relief], cluster: Cluster) -> None:
    """Each device's swapped bytes, out and back, at its bandwidth."""
    for relief in reliefs:
        for device, outcome in relief.outcomes.items():
            listed = cluster.device(device)
            if listed is None or listed.bandwidth is None or not outcome.freed:
                continue
            seconds = 2 * outcome.freed_bytes / listed.bandwidth
            where = f"@{relief.function.sym_name.data} on {listed.name}"
            record(f"copy microseconds in {where}", round(seconds * 1e6))


@dataclass(frozen=True)
class SwapToHost(Strategy):
    host_device: str

    def devices(self, liveness: Liveness) -> list[str]:
        return [d for d in liveness.devices() if not same_device(d, self.host_device)]

    def can_free(self, gap: Gap, liveness: Liveness) -> bool:
        return gap.tensor.bytes > 0 and isinstance(gap.tensor.value.type, TensorType)

    def free(self, gap: Gap, liveness: Liveness) -> None:
        """A swap pair; a tensor already swapped in is swapped in again from its
        host copy."""
        tensor, block = gap.tensor, liveness.block
        value = tensor.value
        if isinstance(value.owner, SwapInOp):
            host_copy = value.owner.input
        else:
            swap_out = SwapOutOp.create_inferred([value])
            swap_out.attributes[DEVICE_ATTR] = StringAttr(self.host_device)
            Rewriter.insert_op(swap_out, _after_step(block, liveness, gap, value))
            host_copy = swap_out.output
            if value.name_hint:
                host_copy.name_hint = f"swap_out_{value.name_hint}"
        trigger = _trigger(liveness, gap)
        swap_in = SwapInOp.create_inferred(
            [host_copy] + ([trigger] if trigger is not None else [])
        )
        if tensor.device:
            swap_in.attributes[DEVICE_ATTR] = StringAttr(tensor.device)
        Rewriter.insert_op(swap_in, InsertPoint.before(liveness.steps[gap.first_after]))
        if host_copy.name_hint:
            swap_in.output.name_hint = host_copy.name_hint.replace(
                "swap_out_", "swap_in_", 1
            )
        replace_uses_from(liveness, value, gap.first_after, swap_in.output)


def _after_step(
    block: Block, liveness: Liveness, gap: Gap, value: SSAValue
) -> InsertPoint:
    """After the step that last holds the tensor before the gap (an argument
    nothing read yet: the block's start)."""
    unread_argument = value.owner is block and gap.last_before not in gap.tensor.uses
    if unread_argument:
        return InsertPoint.at_start(block)
    return InsertPoint.after(liveness.steps[gap.last_before])


def _trigger(liveness: Liveness, gap: Gap) -> SSAValue | None:
    """A result of the last op before the first read after the gap, which the
    copy back waits for (not a constant: it runs at no step)."""
    for step in range(gap.first_after - 1, gap.last_before, -1):
        op: Operation = liveness.steps[step]
        if op.results and not op.has_trait(ConstantLike):
            return op.results[0]
    return None
