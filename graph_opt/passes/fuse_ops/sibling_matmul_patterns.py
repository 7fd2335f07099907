"""Merging sibling matmuls: products of one input with constant weights (the
Q, K and V projections of attention) become one product with the weights
concatenated along their columns, split back along the last axis.

Each column of a product depends on its weight column only, and so does a
per-column bias and an elementwise activation: the merged op computes every
element as the sibling did, in the same order (exact).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_value
from graph_opt.dialects.nn.constant import ConstantOp, constant_op, constant_value
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.fused import FusedMatMulOp
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.shapes import ranked, tensor_type
from graph_opt.dialects.nn.tensor_ops import SplitOp
from graph_opt.passes.common.activation_patterns import sole_user
from graph_opt.passes.common.fusion_patterns import activation_of, fusable_producer
from graph_opt.rewriting.erasure import replace_by_values
from graph_opt.statistics import Statistics, count

Product = MatMulOp | FusedMatMulOp


def weights_of(op: Operation) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The 2-D constant weights of a matmul and its constant bias (None when it
    has none); None when either is computed."""
    if not isinstance(op, Product):
        return None
    weights = constant_value(op.rhs)
    if weights is None or weights.ndim != 2:
        return None
    if len(op.operands) < 3:
        return weights, None
    bias = constant_value(op.operands[2])
    return None if bias is None else (weights, bias)


def has_constant_weights(op: Operation) -> bool:
    """Whether `weights_of(op)` is not None, without reading the weights."""
    if not isinstance(op, Product):
        return False
    weights = constant_op(op.rhs)
    if weights is None or len(weights.value.get_shape()) != 2:
        return False
    return len(op.operands) < 3 or constant_op(op.operands[2]) is not None


def sibling_key(op: Operation) -> tuple[object, ...]:
    """What siblings must share to merge: the op, its properties (activation),
    whether it has a bias, the weights' row count and element type."""
    return (
        op.name,
        tuple(sorted((k, str(v)) for k, v in op.properties.items())),
        len(op.operands),
        ranked(op.rhs).get_shape()[0],  # type: ignore[union-attr]
        ranked(op.rhs).element_type,  # type: ignore[union-attr]
    )


def fusion_pending(op: Operation) -> bool:
    """Whether a bias add or an activation still waits to fuse into `op`
    (`FoldBiasAdd`, `FuseActivation`): merging first would block it."""
    if fusable_producer(op.results[0]) is None:
        return False
    user = sole_user(op.results[0])
    if isinstance(user, AddOp):
        return any(constant_value(v) is not None for v in user.operands)
    return user is not None and activation_of(user) is not None


def exported_nodes(op: Operation) -> int:
    """ONNX nodes one sibling exports to, at least: MatMul, Add for a bias, one
    for an activation."""
    activation = str_value(op.properties, "activation", "none") != "none"
    return 1 + (len(op.operands) == 3) + activation


class MergeSiblingMatMuls(RewritePattern):
    """matmuls of one input with 2-D constant weights (and constant biases),
    all of the same kind  =>  one matmul of the weights concatenated along
    their columns, then nn.split along the last axis.

    Only when it exports fewer nodes: the merged op plus a Split against the
    siblings (two matmuls without bias or activation gain nothing). Waits for
    the siblings' bias adds and activations to fuse first.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Product, rewriter: PatternRewriter):
        if not has_constant_weights(op) or constant_op(op.lhs) is not None:
            return  # computed weights, or a product fold-constants evaluates
        products = [
            user
            for user in dict.fromkeys(use.operation for use in op.lhs.uses)
            if user.operands[0] == op.lhs
            and user.parent is op.parent
            and has_constant_weights(user)
        ]
        if any(fusion_pending(p) for p in products):
            return  # a bias or activation joins a product first
        key = sibling_key(op)
        siblings = [p for p in products if sibling_key(p) == key]
        cost = exported_nodes(op)
        if (len(siblings) - 1) * cost <= 1:
            return  # no fewer nodes: the Split costs what the merge saves
        block = op.parent_block()
        if block is None:
            return  # a detached op
        siblings.sort(key=block.get_operation_index)  # columns in program order
        self._merge(rewriter, siblings, siblings[0])

    @staticmethod
    def _merge(
        rewriter: PatternRewriter, siblings: list[Operation], first: Operation
    ) -> None:
        parts = [weights_of(s) for s in siblings]
        widths = [w.shape[1] for w, _ in parts]  # type: ignore[misc]
        element = ranked(first.operands[1]).element_type  # type: ignore[union-attr]
        weights = ConstantOp.from_array(
            np.concatenate([w for w, _ in parts], axis=1),  # type: ignore[misc]
            element,
        )
        new_ops: list[Operation] = [weights]
        operands: list[SSAValue] = [first.operands[0], weights.output]
        if len(first.operands) == 3:
            bias = ConstantOp.from_array(
                np.concatenate([b for _, b in parts]),  # type: ignore[misc]
                element,
            )
            new_ops.append(bias)
            operands.append(bias.output)
        out = ranked(first.results[0])
        shape = [*out.get_shape()[:-1], sum(widths)]  # type: ignore[union-attr]
        merged = type(first).create_inferred(  # type: ignore[attr-defined]
            operands,
            dict(first.properties),
            [tensor_type(out.element_type, shape)],  # type: ignore[union-attr]
        )
        merged.location = first.location
        split = SplitOp.create(
            operands=[merged.results[0]],
            result_types=[s.results[0].type for s in siblings],
            properties={"axis": i64_attr(len(shape) - 1), "split": i64_array(widths)},
        )
        rewriter.insert([*new_ops, merged, split], InsertPoint.before(first))
        for sibling, result in zip(siblings, split.results, strict=True):
            replace_by_values(rewriter, sibling, [result])
        count(f"{len(siblings)} sibling matmuls merged")


SIBLING_PATTERNS: tuple[type[RewritePattern], ...] = (MergeSiblingMatMuls,)
SIBLING_STATISTICS: Statistics = {
    "{n} sibling matmuls merged": "Groups of n matmuls reading one input merged into one"
}
"""The sibling-merging rewrites; instantiate them for a walker."""
