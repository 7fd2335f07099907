"""schedule-memory: reorder independent ops to lower the peak memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from graph_opt.memory.liveness import block_liveness, same_device
from graph_opt.memory.memory_schedule import memory_order, reorder
from graph_opt.memory.plan import device_peak, format_bytes, planned_functions
from graph_opt.passes.swap import HOST_DEVICE
from graph_opt.remarks import warn
from graph_opt.statistics import record


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
    """

    name = "schedule-memory"

    host_device: str = field(
        default=HOST_DEVICE,
        metadata={"help": "a device whose tensors do not count (swapped tensors)"},
    )
    dynamic_dim: int = field(
        default=1, metadata={"help": "size assumed for each unknown dim"}
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.dynamic_dim < 1:
            raise DiagnosticException("schedule-memory: dynamic-dim must be positive")
        for function in planned_functions(op):
            self._schedule(function)

    def _schedule(self, function: func.FuncOp) -> None:
        block = function.body.block
        where = f"@{function.sym_name.data}"
        before = self._peak(block)
        original = list(block.ops)
        moved = reorder(block, memory_order(block, self.host_device, self.dynamic_dim))
        after = self._peak(block)
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

    def _peak(self, block) -> int:
        liveness = block_liveness(block, self.dynamic_dim)
        return max(
            (
                device_peak(liveness, d)[0]
                for d in liveness.devices()
                if not same_device(d, self.host_device)
            ),
            default=0,
        )
