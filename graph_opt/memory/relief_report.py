"""What swap and recompute say: statistics per function and device, a warning
when nothing was needed, and one when a peak stays above the budget."""

from __future__ import annotations

from graph_opt.memory.liveness import block_liveness
from graph_opt.memory.peak_relief import Relief
from graph_opt.memory.plan import format_bytes
from graph_opt.memory.reporting import dynamic_dims_warning
from graph_opt.remarks import warn
from graph_opt.statistics import record


def report_relief(
    pass_name: str,
    verb: str,
    reliefs: list[Relief],
    budget: int,
    dynamic_dim: int,
    stuck_reason: str,
) -> None:
    """`verb` says what was done to a tensor ("swapped"); `stuck_reason` why
    no tensor at a peak could be."""
    freed = 0
    for relief in reliefs:
        symbol = relief.function.sym_name.data
        for device, outcome in relief.outcomes.items():
            where = f"@{symbol}" + (f" on {device}" if device else "")
            record(f"peak bytes before in {where}", outcome.peak_before)
            record(f"peak bytes after in {where}", outcome.peak_after)
            record(f"tensors {verb} in {where}", outcome.freed)
            record(f"bytes {verb} in {where}", outcome.freed_bytes)
            freed += outcome.freed
            if outcome.stuck_at is not None:
                reason = (
                    f"stopped after {outcome.freed} tensors"
                    if outcome.out_of_rounds
                    else stuck_reason
                )
                warn(
                    f"{pass_name}: {where}: peak {format_bytes(outcome.peak_after)} "
                    f"at {outcome.stuck_at} stays above the budget "
                    f"{format_bytes(budget)} by "
                    f"{format_bytes(outcome.peak_after - budget)}: {reason}"
                )
        liveness = block_liveness(relief.function.body.block, dynamic_dim)
        if not relief.outcomes and liveness.tensors:
            warn(
                f"{pass_name}: @{symbol}: every tensor is on the host device "
                f"({liveness.tensors[0].device}); nothing {verb}"
            )
        if said := dynamic_dims_warning(pass_name, symbol, liveness, dynamic_dim):
            warn(said)
    outcomes = [o for relief in reliefs for o in relief.outcomes.values()]
    if outcomes and not freed and not any(o.stuck_at for o in outcomes):
        peaks = [o.peak_before for o in outcomes]
        warn(
            f"{pass_name}: every device's peak ({format_bytes(max(peaks, default=0))} "
            f"at most) already fits the budget {format_bytes(budget)}; nothing {verb}"
        )
