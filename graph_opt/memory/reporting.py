"""How the memory passes name what they report."""

from __future__ import annotations

from graph_opt.memory.cluster import Cluster
from graph_opt.memory.liveness import Liveness
from graph_opt.memory.plan import FunctionPlan, format_bytes


def where(plan: FunctionPlan, device: str) -> str:
    """`@main`, or `@main on /device:GPU:0` for a named device."""
    symbol = f"@{plan.function.sym_name.data}"
    return f"{symbol} on {device}" if device else symbol


def statistic_key(what: str, plan: FunctionPlan, device: str) -> str:
    return f"{what} in {where(plan, device)}"


def dynamic_dims_warning(
    pass_name: str, symbol: str, liveness: Liveness, dynamic_dim: int
) -> str | None:
    """What sizes were assumed or left out, if any."""
    said = []
    if liveness.dynamic_tensors:
        said.append(
            f"unknown dims in {liveness.dynamic_tensors} tensor(s), each counted "
            f"as {dynamic_dim} ({pass_name}{{dynamic-dim=N}} assumes another size)"
        )
    if liveness.unsized_tensors:
        said.append(
            f"{liveness.unsized_tensors} tensor(s) of types without a byte size "
            "(strings, sequences) counted as 0 bytes"
        )
    if not said:
        return None
    return f"{pass_name}: @{symbol}: " + "; ".join(said)


def over_memory_warning(
    pass_name: str,
    where: str,
    peak: int,
    constants: int,
    cluster: Cluster | None,
    device: str,
) -> str | None:
    """Whether a device's peak and constants exceed its memory in the cluster."""
    listed = cluster.device(device) if cluster is not None else None
    if listed is None or listed.memory is None or peak + constants <= listed.memory:
        return None
    return (
        f"{pass_name}: {where}: peak {format_bytes(peak)} and constants "
        f"{format_bytes(constants)} exceed the device's memory "
        f"{format_bytes(listed.memory)} by "
        f"{format_bytes(peak + constants - listed.memory)} (swap or recompute "
        "lower the peak)"
    )
