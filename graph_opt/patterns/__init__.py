"""A declarative dataflow pattern language for graph rewrites (after TVM's), on xDSL."""

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
)

__all__ = [
    "DFPattern",
    "DFPatternRewrite",
    "Match",
    "OpKind",
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
    "is_constant",
    "is_elementwise",
    "is_expr",
    "is_injective",
    "is_op",
    "is_op_kind",
    "is_reduction",
    "is_tuple_get_item",
    "is_var",
    "match_all",
    "match_op",
    "match_value",
    "partition",
    "wildcard",
]
