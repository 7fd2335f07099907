"""Constant factors of a product chain merged into one: `(x * a) * b` becomes
`x * (a * b)` (as onnxsim does), so a chain of scalings costs one op.
Reassociating a product of finite floats changes it by rounding only (no
cancellation, unlike sums, which are left as they are)."""

from __future__ import annotations

import numpy as np
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.elementwise import MulOp


def _split(op: MulOp) -> tuple | None:
    """(x, constant array) of a product with one constant operand."""
    for x, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        value = constant_value(c)
        if value is not None and constant_value(x) is None:
            return x, value
    return None


class MergeConstantFactors(RewritePattern):
    """(x * a) * b -> x * (a * b), for constants a and b whose product is no
    larger than the larger of them, when nothing else reads x * a."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter):
        outer = _split(op)
        if outer is None:
            return
        inner_value, b = outer
        inner = inner_value.owner
        if not isinstance(inner, MulOp) or not inner_value.has_one_use():
            return
        split = _split(inner)
        if split is None:
            return
        x, a = split
        with np.errstate(all="ignore"):
            product = np.multiply(a, b, dtype=a.dtype)
        if product.size > max(a.size, b.size) or not np.isfinite(product).all():
            return
        factor = ConstantOp.from_array(product, op.output.type.element_type)
        merged = MulOp.create_inferred([x, factor.output], None, [op.output.type])
        rewriter.replace(op, [factor, merged])
