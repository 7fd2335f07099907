"""What swap and recompute say: statistics per function and device, a warning
when nothing was needed, one when a peak stays above the budget, and one for
devices with no budget."""

from __future__ import annotations

from graph_opt.memory.cluster import Cluster
from graph_opt.memory.liveness import block_liveness
from graph_opt.memory.peak_relief import Relief
from graph_opt.memory.plan import format_bytes
from graph_opt.memory.reporting import dynamic_dims_warning
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record


def relief_statistics(verb: str) -> Statistics:
    """What `report_relief` records, `verb` saying what was done to a tensor."""
    return {
        "budget bytes in {where}": "The memory budget of the function on the device",
        "peak bytes before in {where}": "Peak memory before the pass",
        "peak bytes after in {where}": "Peak memory after the pass",
        f"tensors {verb} in {{where}}": f"Tensors {verb} to bring the peak under the budget",
        f"bytes {verb} in {{where}}": f"Bytes of the tensors {verb}",
    }


def report_relief(
    pass_name: str,
    verb: str,
    reliefs: list[Relief],
    dynamic_dim: int,
    stuck_reason: str,
    cluster: Cluster | None = None,
) -> None:
    """`verb` says what was done to a tensor ("swapped"); `stuck_reason` why
    no tensor at a peak could be."""
    freed = 0
    for relief in reliefs:
        symbol = relief.function.sym_name.data
        for device, outcome in relief.outcomes.items():
            where = f"@{symbol}" + (f" on {device}" if device else "")
            record(f"budget bytes in {where}", outcome.budget)
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
                    f"{format_bytes(outcome.budget)} by "
                    f"{format_bytes(outcome.peak_after - outcome.budget)}: {reason}"
                )
        for device in relief.unbudgeted:
            warn(
                f"{pass_name}: @{symbol}"
                + (f" on {device}" if device else "")
                + f": no budget ({pass_name}{{budget=BYTES}}, or the device's memory "
                "in the cluster); nothing " + verb
            )
        liveness = block_liveness(relief.function.body.block, dynamic_dim, cluster)
        if not relief.outcomes and not relief.unbudgeted and liveness.tensors:
            warn(
                f"{pass_name}: @{symbol}: every tensor is on the host device "
                f"({liveness.tensors[0].device}); nothing {verb}"
            )
        if said := dynamic_dims_warning(pass_name, symbol, liveness, dynamic_dim):
            warn(said)
    outcomes = [o for relief in reliefs for o in relief.outcomes.values()]
    if outcomes and not freed and not any(o.stuck_at for o in outcomes):
        peaks = [o.peak_before for o in outcomes]
        budgets = {o.budget for o in outcomes}
        budget = (
            f"the budget {format_bytes(budgets.pop())}"
            if len(budgets) == 1
            else "its budget"
        )
        warn(
            f"{pass_name}: every device's peak ({format_bytes(max(peaks, default=0))} "
            f"at most) already fits {budget}; nothing {verb}"
        )
