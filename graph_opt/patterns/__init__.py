"""A declarative dataflow pattern language for graph rewrites (after TVM's), on xDSL."""

from graph_opt.patterns.arithmetic import is_polynomial, is_product, is_scalar
from graph_opt.patterns.context import (
    GraphMatch,
    PatternContext,
    PatternSeq,
    rewrite_bindings,
)
from graph_opt.patterns.matcher import Match, explain, match_all, match_op, match_value
from graph_opt.patterns.op_kinds import OpKind
from graph_opt.patterns.partition import partition
from graph_opt.patterns.pattern import (
    DFPattern,
    dominates,
    has_attr,
    has_dtype,
    has_shape,
    has_type,
    is_broadcast,
    is_constant,
    is_elementwise,
    is_expr,
    is_injective,
    is_op,
    is_op_kind,
    is_reduction,
    is_tuple_get_item,
    is_var,
    wildcard,
)
from graph_opt.patterns.rewrite import (
    DFPatternRewrite,
    RewriteLimitError,
    RewriteStats,
    apply_rewrites,
    redirect_to,
)
from graph_opt.patterns.structure import (
    FunctionPattern,
    is_call,
    is_if,
    is_tuple,
    is_while,
)

__all__ = [
    "DFPattern",
    "DFPatternRewrite",
    "FunctionPattern",
    "GraphMatch",
    "Match",
    "OpKind",
    "PatternContext",
    "PatternSeq",
    "RewriteLimitError",
    "RewriteStats",
    "apply_rewrites",
    "dominates",
    "explain",
    "has_attr",
    "has_dtype",
    "has_shape",
    "has_type",
    "is_broadcast",
    "is_call",
    "is_constant",
    "is_elementwise",
    "is_expr",
    "is_if",
    "is_injective",
    "is_op",
    "is_op_kind",
    "is_polynomial",
    "is_product",
    "is_reduction",
    "is_scalar",
    "is_tuple",
    "is_tuple_get_item",
    "is_var",
    "is_while",
    "match_all",
    "match_op",
    "match_value",
    "partition",
    "redirect_to",
    "rewrite_bindings",
    "wildcard",
]
