"""The memory plan of a function: liveness for the order of its ops, the peak
bytes of each device and where it is reached, and an arena plan per device.

    from graph_opt.memory import plan_function
    plan = plan_function(entry_function(module))
    plan.devices[""].peak_bytes, plan.devices[""].arena.size, plan.peak_label("")
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from graph_opt.dialects.nn.names import op_result_names
from graph_opt.memory.arena import DEFAULT_ALIGNMENT, Arena, plan_arena
from graph_opt.memory.cluster import Cluster
from graph_opt.memory.liveness import DEFAULT_DEVICE, Liveness, block_liveness


@dataclass
class DevicePlan:
    device: str
    step_bytes: list[int]
    """Bytes of the device's tensors live at each step."""
    peak_bytes: int
    peak_step: int
    constant_bytes: int
    arena: Arena | None


@dataclass
class FunctionPlan:
    function: func.FuncOp
    liveness: Liveness
    devices: dict[str, DevicePlan]

    def peak_label(self, device: str) -> str:
        """Where the device's peak is: `%name (nn.conv, op 17 of 40)`."""
        return step_label(self.liveness, self.devices[device].peak_step)


def op_floor(liveness: Liveness, device: str) -> tuple[int, int]:
    """(bytes, step) of the step whose own inputs and results on the device are
    largest: no swap or recomputation brings the peak below it."""
    own = [0] * len(liveness.steps)
    for t in liveness.tensors:
        if t.device == device:
            for step in {t.start, *t.uses} if not t.in_region else {t.start}:
                if step < len(own):
                    own[step] += t.bytes
    if not own:
        return 0, 0
    floor = max(own)
    return floor, own.index(floor)


def device_peak(liveness: Liveness, device: str) -> tuple[int, int]:
    """(peak bytes, first step at the peak) of a device's tensors."""
    profile = liveness.step_bytes(device)
    if not profile:
        return 0, 0
    peak = max(profile)
    return peak, profile.index(peak)


def plan_function(
    function: func.FuncOp,
    dynamic_dim: int = 1,
    alignment: int | None = DEFAULT_ALIGNMENT,
    cluster: Cluster | None = None,
) -> FunctionPlan:
    """The plan of `function`'s body, its tensors on `cluster`'s devices;
    `alignment=None` skips the arena plan."""
    liveness = block_liveness(function.body.block, dynamic_dim, cluster)
    devices = {}
    for device in liveness.devices() or [DEFAULT_DEVICE]:
        profile = liveness.step_bytes(device)
        peak = max(profile, default=0)
        tensors = [t for t in liveness.tensors if t.device == device]
        devices[device] = DevicePlan(
            device,
            profile,
            peak,
            profile.index(peak) if profile else 0,
            liveness.constant_bytes.get(device, 0),
            None if alignment is None else plan_arena(tensors, alignment),
        )
    return FunctionPlan(function, liveness, devices)


def plan_module(
    module: ModuleOp,
    dynamic_dim: int = 1,
    alignment: int | None = DEFAULT_ALIGNMENT,
    cluster: Cluster | None = None,
) -> list[FunctionPlan]:
    return [
        plan_function(f, dynamic_dim, alignment, cluster)
        for f in planned_functions(module)
    ]


def planned_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The functions with a body of one block (a schedule is one op order)."""
    return [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and len(op.body.blocks) == 1
    ]


def step_label(liveness: Liveness, step: int) -> str:
    op = liveness.steps[step] if liveness.steps else None
    where = f"op {step + 1} of {len(liveness.steps)}"
    if op is None:
        return where
    name = _name(op)
    return f"{name} ({op.name}, {where})" if name else f"{op.name} ({where})"


def _name(op: Operation) -> str | None:
    names = op_result_names(op) if op.results else []
    return f"%{names[0]}" if names and names[0] else None


def format_bytes(count: int) -> str:
    """`1572864 bytes (1.50 MiB)`; small counts as bytes only."""
    if abs(count) < 1024:
        return f"{count} bytes"
    scaled, units = float(count) / 1024, ["KiB", "MiB", "GiB", "TiB"]
    while abs(scaled) >= 1024 and len(units) > 1:
        scaled /= 1024
        units.pop(0)
    return f"{count} bytes ({scaled:.2f} {units[0]})"
