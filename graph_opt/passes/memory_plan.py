"""memory-plan: report each function's peak memory per device and its arena plan."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from graph_opt.memory.arena import overlaps
from graph_opt.memory.cluster import Cluster
from graph_opt.memory.cluster_file import cluster_for_pass
from graph_opt.memory.plan import (
    DevicePlan,
    FunctionPlan,
    format_bytes,
    op_floor,
    plan_module,
    step_label,
)
from graph_opt.memory.reporting import (
    dynamic_dims_warning,
    over_memory_warning,
    statistic_key,
    where,
)
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class MemoryPlanPass(ModulePass):
    """Report peak memory per device, where it is reached, and an arena plan (analysis only).

    The schedule is the order of each function's ops: a tensor is live from
    its producer to its last reader (reads in nested regions count at the op
    holding them, whose own values are all taken as live there); constants are
    persistent and counted apart; a tensor's device is its producer's
    `tf.device` (default: one device). Tensors are sized from their static
    types, an unknown dim as `dynamic-dim` (with a warning). The arena places
    the tensors of each device greedily by size, best fit (TFLite's
    ArenaPlanner), checked to give no two tensors live at one step shared bytes.
    Prints one line per function and device on stderr; --pass-statistics
    counts the same. With a cluster (`--cluster=FILE` or `cluster=FILE`), the
    tensors count on its devices (an unplaced op's on its default device),
    each line says the device's memory, and a device whose peak and constants
    exceed it is warned about.
    """

    name = "memory-plan"

    statistics: ClassVar[Statistics] = {
        "peak bytes in {where}": "Peak memory of the function on the device",
        "peak at op in {where}": "The op (1-based, in schedule order) at which the peak is reached",
        "arena bytes in {where}": "Size of an arena holding every tensor at an offset",
        "constant bytes in {where}": "Bytes of the constants",
        "largest op bytes in {where}": "Memory the largest op alone needs (no order goes below it)",
        "memory bytes in {where}": "The device's memory in the cluster",
    }

    dynamic_dim: int = field(
        default=1, metadata={"help": "size assumed for each unknown dim"}
    )
    alignment: int = field(
        default=64, metadata={"help": "byte alignment of arena offsets"}
    )
    cluster: str = field(
        default="",
        metadata={"help": "a cluster file (JSON or TOML) instead of --cluster's"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.dynamic_dim < 1 or self.alignment < 1:
            raise DiagnosticException(
                "memory-plan: dynamic-dim and alignment must be positive"
            )
        cluster = cluster_for_pass(self.name, self.cluster)
        for plan in plan_module(op, self.dynamic_dim, self.alignment, cluster):
            for device_plan in plan.devices.values():
                _report(plan, device_plan, cluster)
            if warning := dynamic_dims_warning(
                self.name, plan.function.sym_name.data, plan.liveness, self.dynamic_dim
            ):
                warn(warning)


def _report(
    plan: FunctionPlan, device_plan: DevicePlan, cluster: Cluster | None
) -> None:
    device, arena = device_plan.device, device_plan.arena
    tensors = [t for t in plan.liveness.tensors if t.device == device]
    if arena is None:  # not planned: plan_module had no alignment
        return
    if clash := overlaps(arena, tensors):
        first, second = clash[0]
        raise DiagnosticException(
            f"memory-plan: {where(plan, device)}: the arena plan gives "
            f"{first.value.name_hint} and {second.value.name_hint} shared bytes "
            "while both are live"
        )
    floor, floor_step = op_floor(plan.liveness, device)
    listed = cluster.device(device) if cluster is not None else None
    memory = listed.memory if listed is not None else None
    print(
        f"memory-plan: {where(plan, device)}: peak "
        f"{format_bytes(device_plan.peak_bytes)} at {plan.peak_label(device)}; "
        f"arena {format_bytes(arena.size)}; constants "
        f"{format_bytes(device_plan.constant_bytes)}; {len(tensors)} tensor(s); "
        f"one op's own tensors at most {format_bytes(floor)} at "
        f"{step_label(plan.liveness, floor_step)}"
        + (f"; memory {format_bytes(memory)}" if memory is not None else ""),
        file=sys.stderr,
    )
    if memory is not None:
        record(statistic_key("memory bytes", plan, device), memory)
    if said := over_memory_warning(
        "memory-plan",
        where(plan, device),
        device_plan.peak_bytes,
        device_plan.constant_bytes,
        cluster,
        device,
    ):
        warn(said)
    record(statistic_key("peak bytes", plan, device), device_plan.peak_bytes)
    record(statistic_key("peak at op", plan, device), device_plan.peak_step + 1)
    record(statistic_key("arena bytes", plan, device), arena.size)
    record(statistic_key("constant bytes", plan, device), device_plan.constant_bytes)
    record(statistic_key("largest op bytes", plan, device), floor)
