"""Memory planning of nn graphs: liveness for the op order, peak bytes per
device, arena plans; used by `memory-plan`, `swap`, `recompute` and
`schedule-memory`."""

from graph_opt.memory.arena import Arena, overlaps, plan_arena
from graph_opt.memory.liveness import Liveness, Tensor, block_liveness
from graph_opt.memory.plan import (
    DevicePlan,
    FunctionPlan,
    device_peak,
    plan_function,
    plan_module,
)

__all__ = [
    "Arena",
    "DevicePlan",
    "FunctionPlan",
    "Liveness",
    "Tensor",
    "block_liveness",
    "device_peak",
    "overlaps",
    "plan_arena",
    "plan_function",
    "plan_module",
]
