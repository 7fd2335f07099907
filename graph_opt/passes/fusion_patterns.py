"""Patterns that fuse op chains into one op: conv/matmul + bias + activation, Gelu, LayerNorm.

A chain fuses only when its interior values have no user outside the chain.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import f32_attr, i64_attr, str_attr, str_value
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    ClipOp,
    DivOp,
    ErfOp,
    GeluOp,
    LeakyReluOp,
    MulOp,
    PowOp,
    ReluOp,
    SigmoidOp,
    SqrtOp,
    SubOp,
    TanhOp,
)
from graph_opt.dialects.nn.fused import FusedConvOp, FusedMatMulOp, f32_array
from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.linalg import MatMulOp, broadcasts_to
from graph_opt.dialects.nn.norm import LayerNormOp
from graph_opt.dialects.nn.reduce import ReduceMeanOp, reduced_axes
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.passes.erasure import erase_op, replace_op

FUSED_FORM: dict[type[Operation], type[Operation]] = {
    ConvOp: FusedConvOp,
    FusedConvOp: FusedConvOp,
    MatMulOp: FusedMatMulOp,
    FusedMatMulOp: FusedMatMulOp,
}
"""The op that a producer becomes once an activation is fused into it."""

BIASED_FORM: dict[type[Operation], type[Operation]] = {
    ConvOp: ConvOp,
    FusedConvOp: FusedConvOp,
    MatMulOp: FusedMatMulOp,
    FusedMatMulOp: FusedMatMulOp,
}
"""The op that a producer becomes once a bias is folded into it."""


def used_only_within(ops: Iterable[Operation], pattern: set[Operation]) -> bool:
    """Whether every result of `ops` is used by ops of `pattern` only."""
    return all(
        use.operation in pattern for op in ops for r in op.results for use in r.uses
    )


def fusable_producer(value: SSAValue) -> Operation | None:
    """The conv/matmul defining `value`, when it has no activation yet and `value` has no other user."""
    producer = value.owner
    if type(producer) not in FUSED_FORM or not value.has_one_use():
        return None
    if str_value(producer.properties, "activation", "none") != "none":
        return None
    return producer


def activation_of(op: Operation) -> tuple[str, tuple[float, ...]] | None:
    """The fused-activation name and params that a pointwise op computes, or None."""
    if isinstance(op, ReluOp):
        return "relu", ()
    if isinstance(op, SigmoidOp):
        return "sigmoid", ()
    if isinstance(op, TanhOp):
        return "tanh", ()
    if isinstance(op, LeakyReluOp):
        return "leaky_relu", (op.alpha.value.data,)
    if isinstance(op, ClipOp):
        low = None if op.min is None else op.min.value.data
        high = None if op.max is None else op.max.value.data
        if low == 0 and high is None:
            return "relu", ()
        if low == 0 and high == 6:
            return "relu6", ()
        if low is not None and high is not None:
            return "clip", (low, high)
    return None


def rebuild(
    producer: Operation, op_class: type[Operation], operands, **props
) -> Operation:
    """`producer` as `op_class` with new operands and extra properties, typed like it."""
    properties = {**producer.properties, **props}
    return op_class.create_inferred(  # type: ignore[attr-defined]
        operands, properties, [producer.results[0].type]
    )


class FuseActivation(RewritePattern):
    """conv or matmul -> relu / clip / leaky_relu / sigmoid / tanh  =>  nn.fused_conv / nn.fused_matmul."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: ReluOp | ClipOp | LeakyReluOp | SigmoidOp | TanhOp,
        rewriter: PatternRewriter,
    ):
        producer = fusable_producer(op.input)
        if producer is None:
            return
        activation = activation_of(op)
        if activation is None:  # a one-sided clip other than relu
            return
        name, params = activation
        props = {"activation": str_attr(name)}
        if params:
            props["activation_params"] = f32_array(params)
        fused = rebuild(
            producer, FUSED_FORM[type(producer)], producer.operands, **props
        )
        fused.location = op.location
        replace_op(rewriter, op, fused)
        erase_op(rewriter, producer)


def channel_bias(
    bias: np.ndarray, shape: tuple[int, ...], axis: int
) -> np.ndarray | None:
    """`bias` as a 1-D vector over `axis` of `shape`, if adding it to that shape is exactly that."""
    channels = shape[axis]
    if channels == DYN or bias.ndim > len(shape):
        return None
    padded = (1,) * (len(shape) - bias.ndim) + bias.shape
    if any(d != 1 for i, d in enumerate(padded) if i != axis):
        return None
    if padded[axis] not in (1, channels):
        return None
    return np.broadcast_to(bias.reshape(-1), (channels,))


class FoldBiasAdd(RewritePattern):
    """conv or matmul + per-channel constant  =>  the constant folded into the op's bias.

    A conv stays nn.conv (with a bias); a matmul becomes nn.fused_matmul.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter):
        for value, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            producer = fusable_producer(value)
            added = constant_value(other)
            if producer is not None and added is not None:
                break
        else:
            return
        out = ranked(value)
        if out is None or op.output.type != out:  # the add broadcasts to a larger shape
            return
        rank = out.get_num_dims()
        if rank == 0:  # a matmul of two vectors has no channel axis
            return
        if isinstance(producer, ConvOp | FusedConvOp):
            axis = channel_axis(producer.layout, rank)
        else:
            axis = rank - 1
        if (bias := channel_bias(added, out.get_shape(), axis)) is None:
            return
        if len(producer.operands) == 3:
            existing = constant_value(producer.operands[2])
            if existing is None:  # a computed bias cannot absorb a constant
                return
            bias = existing + bias
        dtype = numpy_dtype(out.element_type)
        constant = ConstantOp.from_array(bias.astype(dtype), out.element_type)
        fused = rebuild(
            producer,
            BIASED_FORM[type(producer)],
            [*producer.operands[:2], constant.output],
        )
        fused.location = op.location
        rewriter.insert(constant, InsertPoint.before(op))
        replace_op(rewriter, op, fused)
        erase_op(rewriter, producer)


def scalar(value: SSAValue) -> float | None:
    """The value of a one-element constant, else None."""
    array = constant_value(value)
    return None if array is None or array.size != 1 else float(array.reshape(()))


def close_to(value: float | None, expected: float) -> bool:
    return value is not None and bool(np.isclose(value, expected, rtol=1e-4, atol=0))


def mul_factors(op: MulOp, pattern: set[Operation]) -> list[SSAValue]:
    """The leaves of the product tree rooted at `op`, through inner muls with one use (added to `pattern`)."""
    factors = []
    for operand in op.operands:
        inner = operand.owner
        if isinstance(inner, MulOp) and operand.has_one_use():
            pattern.add(inner)
            factors.extend(mul_factors(inner, pattern))
        else:
            factors.append(operand)
    return factors


def erf_term(value: SSAValue) -> tuple[SSAValue, list[Operation]] | None:
    """(x, its ops) when `value` is 1 + erf(x / sqrt(2)) (or x * (1 / sqrt(2))), in any operand order."""
    add = value.owner
    if not isinstance(add, AddOp):
        return None
    erf = next((v.owner for v in add.operands if isinstance(v.owner, ErfOp)), None)
    if erf is None:
        return None
    one = add.rhs if add.lhs.owner is erf else add.lhs
    scaled = erf.input.owner
    if not close_to(scalar(one), 1.0):
        return None
    if isinstance(scaled, DivOp) and close_to(scalar(scaled.rhs), np.sqrt(2)):
        return scaled.lhs, [add, erf, scaled]
    if isinstance(scaled, MulOp):
        x = scaled.rhs if constant_value(scaled.lhs) is not None else scaled.lhs
        factor = constant_operand(scaled, x)
        if factor is not None and close_to(scalar(factor), 1 / np.sqrt(2)):
            return x, [add, erf, scaled]
    return None


class FuseGelu(RewritePattern):
    """x * 0.5 * (1 + erf(x / sqrt(2))), in any grouping and operand order  =>  nn.gelu."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter):
        pattern: set[Operation] = {op}
        factors = mul_factors(op, pattern)
        constants = [scalar(f) for f in factors if constant_value(f) is not None]
        others = [f for f in factors if constant_value(f) is None]
        if len(others) != 2 or None in constants:
            return
        if not close_to(float(np.prod(constants)), 0.5):
            return
        for x, term in (others, others[::-1]):
            matched = erf_term(term)
            if matched is not None and matched[0] == x:
                break
        else:
            return
        pattern.update(matched[1])
        if not used_only_within(pattern - {op}, pattern):
            return
        if ranked(x) != op.output.type:  # the constants broadcast x to a larger shape
            return
        gelu = GeluOp.create_inferred([x], {}, [op.output.type])
        gelu.location = op.location
        replace_op(rewriter, op, gelu)


def trailing_mean(value: SSAValue, of: SSAValue | None = None) -> ReduceMeanOp | None:
    """The keepdims reduce_mean over trailing axes defining `value` (of `of` when given)."""
    mean = value.owner
    if not isinstance(mean, ReduceMeanOp) or not mean.keeps_dims:
        return None
    if of is not None and mean.input != of:
        return None
    x = ranked(mean.input)
    if x is None:
        return None
    rank = x.get_num_dims()
    axes = reduced_axes(mean.properties, rank)
    if not axes or axes != tuple(range(axes[0], rank)):
        return None
    return mean


def squared(value: SSAValue) -> SSAValue | None:
    """d when `value` is d ** 2 or d * d."""
    op = value.owner
    if isinstance(op, PowOp) and scalar(op.rhs) == 2:
        return op.lhs
    if isinstance(op, MulOp) and op.lhs == op.rhs:
        return op.lhs
    return None


def constant_operand(op: Operation, value: SSAValue) -> SSAValue | None:
    """The constant operand of a binary `op` other than `value`."""
    lhs, rhs = op.operands
    other = rhs if lhs == value else lhs
    return other if other != value and constant_value(other) is not None else None


def affine_param(value: SSAValue, normalized: tuple[int, ...]) -> np.ndarray | None:
    """A constant gamma or beta without its leading size-1 dims, if it spans the normalized dims only."""
    array = constant_value(value)
    if array is None:
        return None
    extra = array.ndim - len(normalized)
    if extra > 0 and any(d != 1 for d in array.shape[:extra]):
        return None
    array = array.reshape(array.shape[max(extra, 0) :])
    return array if broadcasts_to(array.shape, normalized) else None


def sole_user(value: SSAValue) -> Operation | None:
    return next(iter(value.uses)).operation if value.has_one_use() else None


class FuseLayerNorm(RewritePattern):
    """(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* gamma] [+ beta]  =>  nn.layer_norm.

    Matched at the division (the mean reductions over trailing axes); the
    gamma multiply and beta add after it are taken when they are constants
    over the normalized dims, and the ones that are missing are left out.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DivOp, rewriter: PatternRewriter):
        centered, sqrt = op.lhs.owner, op.rhs.owner
        if not isinstance(centered, SubOp) or not isinstance(sqrt, SqrtOp):
            return
        add_eps = sqrt.input.owner
        if not isinstance(add_eps, AddOp):
            return
        var = next(
            (v for v in add_eps.operands if isinstance(v.owner, ReduceMeanOp)), None
        )
        eps_value = None if var is None else constant_operand(add_eps, var)
        eps = None if eps_value is None else scalar(eps_value)
        if var is None or eps is None:
            return
        var_mean = trailing_mean(var)
        mean = trailing_mean(centered.rhs, of=centered.lhs)
        if var_mean is None or mean is None:
            return
        if squared(var_mean.input) != centered.output:
            return
        x, x_type = centered.lhs, ranked(centered.lhs)
        if x_type is None or op.output.type != x_type:
            return
        axes = reduced_axes(mean.properties, x_type.get_num_dims())
        if reduced_axes(var_mean.properties, x_type.get_num_dims()) != axes:
            return
        axis = axes[0]
        normalized = x_type.get_shape()[axis:]
        chain = [mean, centered, var_mean.input.owner, var_mean, add_eps, sqrt, op]
        params: dict[type[Operation], np.ndarray] = {}
        for op_class in (MulOp, AddOp):  # gamma, then beta
            last = chain[-1].results[0]
            user = sole_user(last)
            if not isinstance(user, op_class):
                continue
            param = constant_operand(user, last)
            array = None if param is None else affine_param(param, normalized)
            if array is not None:
                params[op_class] = array
                chain.append(user)
        root = chain[-1]
        if not used_only_within(chain[:-1], set(chain)):
            return
        dtype = numpy_dtype(x_type.element_type)
        params.setdefault(MulOp, np.ones(normalized, dtype))
        operands = [x]
        for op_class in (MulOp, AddOp):
            if op_class in params:
                constant = ConstantOp.from_array(
                    params[op_class].astype(dtype), x_type.element_type
                )
                rewriter.insert(constant, InsertPoint.before(root))
                operands.append(constant.output)
        props = {"axis": i64_attr(axis), "epsilon": f32_attr(eps)}
        norm = LayerNormOp.create_inferred(operands, props, [x_type])
        norm.location = root.location
        replace_op(rewriter, root, norm)
        for dead in reversed(chain[:-1]):
            erase_op(rewriter, dead)


FUSION_PATTERNS: tuple[type[RewritePattern], ...] = (
    FoldBiasAdd,
    FuseActivation,
    FuseGelu,
    FuseLayerNorm,
)
"""The fusion patterns, for `fuse-ops` and any pass that wants them."""
