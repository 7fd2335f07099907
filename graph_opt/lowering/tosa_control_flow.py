"""Lowering of scf.if / scf.while (TensorFlow's cond and while) to tosa.cond_if /
tosa.while_loop, once the ops inside them are TOSA.

TOSA's regions are isolated from above (as upstream's strict validation wants):
values the scf regions use from outside become inputs (extra loop-carried values
of a while_loop, passed through its body); constants are cloned into the regions.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf, tensor, tosa
from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.lowering.lowering_pattern import LoweringPattern

CONSTANT_OPS = (tosa.ConstOp, tosa_ext.ConstShapeOp)


def condition_tensor(condition: SSAValue) -> SSAValue | None:
    """The rank-0 tensor<i1> an scf condition was extracted from, else None."""
    owner = condition.owner
    if (
        isinstance(owner, tensor.ExtractOp)
        and not owner.indices
        and owner.tensor.type == TensorType(i1, [])
    ):
        return owner.tensor
    return None


def defined_inside(value: SSAValue, regions: Sequence[Region]) -> bool:
    owner = value.owner
    return any(region.is_ancestor(owner) for region in regions)


def captured_values(regions: Sequence[Region]) -> list[SSAValue]:
    """Values the regions use but do not define, in order of first use."""
    captured: list[SSAValue] = []
    for region in regions:
        for op in region.walk():
            for value in op.operands:
                if not defined_inside(value, regions) and value not in captured:
                    captured.append(value)
    return captured


def isolate(region: Region, values: Sequence[SSAValue]) -> None:
    """Uses of `values` in the region become its block's trailing arguments
    (constants: clones at the block's start)."""
    block = region.block
    for value in values:
        if isinstance(value.owner, CONSTANT_OPS):
            clone = value.owner.clone()
            block.insert_op_before(clone, block.first_op)  # type: ignore[arg-type]
            replacement = clone.results[0]
        else:
            replacement = block.insert_arg(value.type, len(block.args))
        value.replace_uses_with_if(
            replacement, lambda use: region.is_ancestor(use.operation)
        )


def terminator(region: Region) -> Operation:
    """The last op of a region's block (scf's verifiers make it the terminator)."""
    last = region.block.last_op
    if last is None:
        raise ValueError("an scf region without a terminator")
    return last


def end_with_yield(region: Region, values: Sequence[SSAValue]) -> None:
    """Replace the region's scf terminator by a tosa.yield of `values`."""
    scf_terminator = terminator(region)
    region.block.insert_op_before(
        tosa_ext.YieldOp.build(operands=[values]), scf_terminator
    )
    scf_terminator.detach()
    scf_terminator.erase()


def erase_unused_extract(value: SSAValue) -> None:
    """The tensor.extract that made an scf condition, once TOSA takes the tensor."""
    owner = value.owner
    if isinstance(owner, tensor.ExtractOp) and not owner.result.uses:
        owner.detach()
        owner.erase()


def moved(region: Region) -> Region:
    target = Region()
    region.move_blocks(target)
    return target


def all_tensors(values: Sequence[SSAValue]) -> bool:
    return all(isinstance(v.type, TensorType) for v in values)


def tensor_inputs(values: Sequence[SSAValue]) -> list[SSAValue]:
    """The captured values that become inputs (constants are cloned instead)."""
    return [v for v in values if not isinstance(v.owner, CONSTANT_OPS)]


NESTING_REASON = (
    "it holds a {tosa}, and IREE 3.13's TOSA input conversion cannot legalize a "
    "{tosa} in a {tosa}; keep-nested-scf=false lowers it anyway"
)


def holds(op: Operation, kind: type[Operation]) -> bool:
    return any(isinstance(o, kind) for o in op.walk() if o is not op)


class ControlFlowPattern(LoweringPattern):
    """Shared checks: the values crossing into or out of the regions are tensors;
    with `keep_nested_scf`, an op holding one of its own kind stays scf."""

    def __init__(self, declined: dict[Operation, str], keep_nested_scf: bool = True):
        super().__init__(declined)
        self.keep_nested_scf = keep_nested_scf

    def nested(self, op: Operation, kind: type[Operation]) -> bool:
        """Declines (True) an op holding a lowered op of its kind, when asked to
        (the regions are lowered first)."""
        if self.keep_nested_scf and holds(op, kind):
            self.decline(op, NESTING_REASON.format(tosa=kind.name))
            return True
        return False

    def captured(
        self, op: Operation, carried: Sequence[SSAValue], regions: Sequence[Region]
    ) -> list[SSAValue] | None:
        """The values the regions use from outside, or None (declined) when they,
        the op's results or the `carried` values are not all tensors."""
        captured = captured_values(regions)
        if not all_tensors(captured):
            self.decline(
                op, "its regions use a value from outside that is not a tensor"
            )
            return None
        if not all_tensors([*carried, *op.results]):
            self.decline(op, "TOSA control flow carries tensors only")
            return None
        return captured


class LowerIf(ControlFlowPattern):
    """scf.if on a condition extracted from a rank-0 tensor<i1> -> tosa.cond_if on
    that tensor (an absent else branch yields nothing)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, scf.IfOp) or self.nested(op, tosa_ext.CondIfOp):
            return
        condition = condition_tensor(op.cond)
        if condition is None:
            self.decline(op, "its condition is not extracted from a tensor<i1>")
            return
        regions = (op.true_region, op.false_region)
        captured = self.captured(op, [], regions)
        if captured is None:
            return
        if not op.false_region.blocks:
            op.false_region.add_block(Block([scf.YieldOp()]))
        for region in regions:
            isolate(region, captured)
            end_with_yield(region, list(terminator(region).operands))
        cond_if = tosa_ext.CondIfOp.build(
            operands=[condition, tensor_inputs(captured)],
            result_types=[op.result_types],
            regions=[moved(r) for r in regions],
        )
        extract = op.cond
        rewriter.replace(op, cond_if)
        erase_unused_extract(extract)


class LowerWhile(ControlFlowPattern):
    """scf.while whose condition region forwards its arguments unchanged (as the
    TensorFlow importer builds it) -> tosa.while_loop; values used from outside
    are carried through the loop."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, scf.WhileOp) or self.nested(op, tosa_ext.WhileLoopOp):
            return
        before, after = op.before_region, op.after_region
        condition = terminator(before)
        if not isinstance(condition, scf.ConditionOp):
            return
        if list(condition.args) != list(before.block.args):
            self.decline(
                op, "its condition region forwards values other than its arguments"
            )
            return
        if condition_tensor(condition.condition) is None:
            self.decline(op, "its condition is not extracted from a tensor<i1>")
            return
        captured = self.captured(op, op.arguments, (before, after))
        if captured is None:
            return
        count = len(op.arguments)
        for region in (before, after):
            isolate(region, captured)
        extract = condition.condition
        end_with_yield(before, [condition_tensor(extract)])  # type: ignore[list-item]
        erase_unused_extract(extract)
        body_results = list(terminator(after).operands)
        end_with_yield(after, [*body_results, *after.block.args[count:]])
        inputs = [*op.arguments, *tensor_inputs(captured)]
        while_loop = tosa_ext.WhileLoopOp.build(
            operands=[inputs],
            result_types=[[v.type for v in inputs]],
            regions=[moved(before), moved(after)],
        )
        rewriter.replace(op, while_loop, while_loop.results[:count])


CONTROL_FLOW_PATTERNS = (LowerIf, LowerWhile)
