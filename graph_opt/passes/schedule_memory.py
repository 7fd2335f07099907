"""schedule-memory: reorder independent ops to lower the peak memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from graph_opt.memory.cluster import Cluster
from graph_opt.memory.cluster_file import cluster_for_pass
from graph_opt.memory.liveness import block_liveness, same_device
from graph_opt.memory.memory_schedule import memory_order, reorder
from graph_opt.memory.plan import device_peak, format_bytes, planned_functions
from graph_opt.memory.reporting import over_memory_warning
from graph_opt.passes.swap import HOST_DEVICE
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class ScheduleMemoryPass(ModulePass):
    """Reorder independent ops of each function to lower its peak memory.

    Greedy list scheduling: among the ops whose inputs are computed, the one
    adding the fewest bytes (its results minus the inputs it reads last) runs
    next, ties in the original order. Ops that may have side effects keep
    their relative order, swap_in waits for its `after` operand, constants
    stand right before their first reader, nested regions keep their order.
    The new order is kept only if the planner's peak (the largest over the
    devices other than `host-device`) goes down; otherwise the pass says so.
    With a cluster (`--cluster=FILE` or `cluster=FILE`), tensors count on its
    devices (an unplaced op's on its default device), and a device whose
    peak and constants still exceed its memory is warned about.
    """

    name = "schedule-memory"

    statistics: ClassVar[Statistics] = {
        "peak bytes before in {where}": "Peak memory of the function before reordering",
        "peak bytes after in {where}": "Peak memory after reordering",
        "ops moved in {where}": "Ops moved (none when no order lowers the peak)",
    }

    host_device: str = field(
        default=HOST_DEVICE,
        metadata={"help": "a device whose tensors do not count (swapped tensors)"},
    )
    dynamic_dim: int = field(
        default=1, metadata={"help": "size assumed for each unknown dim"}
    )
    cluster: str = field(
        default="",
        metadata={"help": "a cluster file (JSON or TOML) instead of --cluster's"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.dynamic_dim < 1:
            raise DiagnosticException("schedule-memory: dynamic-dim must be positive")
        cluster = cluster_for_pass(self.name, self.cluster)
        for function in planned_functions(op):
            self._schedule(function, cluster)

    def _schedule(self, function: func.FuncOp, cluster: Cluster | None) -> None:
        block = function.body.block
        where = f"@{function.sym_name.data}"
        before = self._peak(block, cluster)
        original = list(block.ops)
        moved = reorder(block, memory_order(block, self.host_device, self.dynamic_dim))
        after = self._peak(block, cluster)
        if after >= before:
            reorder(block, original)
            after, moved = before, 0
        record(f"peak bytes before in {where}", before)
        record(f"peak bytes after in {where}", after)
        record(f"ops moved in {where}", moved)
        if not moved:
            warn(
                f"schedule-memory: {where}: the memory-aware order does not "
                f"lower the peak {format_bytes(before)}; order kept"
            )
        if cluster is not None:
            self._warn_over_memory(where, block, cluster)

    def _devices(self, liveness) -> list[str]:
        return [d for d in liveness.devices() if not same_device(d, self.host_device)]

    def _peak(self, block, cluster: Cluster | None) -> int:
        liveness = block_liveness(block, self.dynamic_dim, cluster)
        return max(
            (device_peak(liveness, d)[0] for d in self._devices(liveness)), default=0
        )

    def _warn_over_memory(self, where: str, block, cluster: Cluster) -> None:
        liveness = block_liveness(block, self.dynamic_dim, cluster)
        for device in self._devices(liveness):
            if said := over_memory_warning(
                self.name,
                f"{where} on {device}" if device else where,
                device_peak(liveness, device)[0],
                liveness.constant_bytes.get(device, 0),
                cluster,
                device,
            ):
                warn(said)
