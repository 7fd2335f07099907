"""recompute: Grappler's recomputation, cheap activations computed again
before a late reader instead of held on the device until it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import UNKNOWN_LOC, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike, Pure

from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.memory.cluster_file import cluster_for_pass
from graph_opt.memory.liveness import Liveness
from graph_opt.memory.peak_relief import (
    Budgets,
    Gap,
    Strategy,
    relieve,
    replace_uses_from,
)
from graph_opt.memory.plan import planned_functions
from graph_opt.memory.relief_report import relief_statistics, report_relief
from graph_opt.patterns.op_kinds import OpKind, op_kind
from graph_opt.statistics import Statistics

CHEAP_NAMED_OPS = frozenset(
    "nn.reshape nn.flatten nn.squeeze nn.unsqueeze nn.transpose nn.tile "
    "nn.quantize nn.dequantize".split()
)


def is_cheap(op: Operation) -> bool:
    """Grappler's cheap-to-recompute ops: elementwise and broadcasting arithmetic
    and activations, casts, batch norms, reshapes, transposes and tiles; and
    (de)quantization, elementwise too (a QDQ model's dequantized weights)."""
    if not op.has_trait(Pure) or op.regions or len(op.results) != 1:
        return False
    return (
        op_kind(op) <= OpKind.BROADCAST
        or isinstance(op, BatchNormOp)
        or op.name in CHEAP_NAMED_OPS
    )


@dataclass(frozen=True)
class RecomputePass(ModulePass):
    """Recompute cheap activations whose inputs are live anyway, until each device's peak fits its budget.

    As Grappler's recomputation: at a device's peak (the planner's, see
    memory-plan), a tensor live there but read only before and after it, made
    by a cheap op (elementwise, relu and the other activations, batch norm,
    cast, (de)quantize, reshape, transpose, tile) whose inputs are constants or tensors still
    live at its first read after the peak, is computed again right before that
    read, which (with every later read) takes the copy; the original is freed
    after its last read before the peak. Recomputing costs no memory elsewhere
    since the inputs are held anyway. A peak that stays above the budget is
    reported with the bytes missing (`swap` can then move what is left).
    The budget is `budget` bytes on every device, else, with a cluster
    (`--cluster=FILE` or `cluster=FILE`), each device's memory less its
    constants, as for swap.
    """

    name = "recompute"

    statistics: ClassVar[Statistics] = relief_statistics("recomputed")

    budget: int | None = field(
        default=None,
        metadata={
            "help": "memory budget of every device in bytes (default: each "
            "device's memory in the cluster)"
        },
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
            relieve(f, budgets, RecomputeCheapOps(), self.dynamic_dim)
            for f in planned_functions(op)
        ]
        report_relief(
            self.name,
            "recomputed",
            reliefs,
            self.dynamic_dim,
            "no tensor live there is made by a cheap op from inputs still live "
            "at its next read",
            budgets.cluster,
        )


class RecomputeCheapOps(Strategy):
    def can_free(self, gap: Gap, liveness: Liveness) -> bool:
        producer = gap.tensor.value.owner
        if not isinstance(producer, Operation) or not is_cheap(producer):
            return False
        held_until = {t.value: t.end for t in liveness.tensors}
        for operand in producer.operands:
            owner = operand.owner
            if isinstance(owner, Operation) and owner.has_trait(ConstantLike):
                continue
            if held_until.get(operand, -1) < gap.first_after:
                return False
        return True

    def free(self, gap: Gap, liveness: Liveness) -> None:
        value = gap.tensor.value
        producer = cast(Operation, value.owner)  # can_free checked it
        copy = producer.clone()
        copy.location = UNKNOWN_LOC  # its result is not the original's name
        Rewriter.insert_op(copy, InsertPoint.before(liveness.steps[gap.first_after]))
        if value.name_hint:
            copy.results[0].name_hint = f"recomputed_{value.name_hint}"
        replace_uses_from(liveness, value, gap.first_after, copy.results[0])
