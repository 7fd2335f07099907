"""Patterns that fuse op chains into one op: conv/matmul + bias + activation, LayerNorm,
and (from `activation_patterns`) activations written out as arithmetic.

Each fusion is a `DFPatternRewrite`: a dataflow pattern (`graph_opt.patterns`)
drawn in its docstring, and a `rewrite` that builds the fused op. A chain
fuses only when its interior values have no user outside the chain (the
rewrite path rejects such matches).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)

from graph_opt.dialects.nn.base import f32_attr, i64_attr, str_attr, str_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import (
    ClipOp,
    GeluOp,
    HardSigmoidOp,
    HardSwishOp,
    LeakyReluOp,
    ReluOp,
    SigmoidOp,
    SiluOp,
    TanhOp,
)
from graph_opt.dialects.nn.fused import FusedConvOp, FusedMatMulOp, f32_array
from graph_opt.dialects.nn.layout import channel_axis
from graph_opt.dialects.nn.linalg import MatMulOp, broadcasts_to
from graph_opt.dialects.nn.norm import LayerNormOp
from graph_opt.dialects.nn.reduce import ReduceMeanOp, reduced_axes
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.passes.common.activation_patterns import (
    ACTIVATION_PATTERNS,
    in_decomposed_activation,
)
from graph_opt.passes.common.attention_patterns import (
    ATTENTION_PATTERNS,
    ATTENTION_STATISTICS,
)
from graph_opt.patterns.arithmetic import scalar
from graph_opt.patterns.builder import insert, nn
from graph_opt.patterns.matcher import Match
from graph_opt.patterns.pattern import DFPattern, is_constant, is_op, wildcard
from graph_opt.patterns.rewrite import DFPatternRewrite
from graph_opt.statistics import Statistics, count

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
    if isinstance(op, HardSigmoidOp):
        return "hard_sigmoid", (op.alpha.value.data, op.beta.value.data)
    if isinstance(op, HardSwishOp):
        return "hard_swish", ()
    if isinstance(op, SiluOp):
        return "silu", ()
    if isinstance(op, GeluOp):
        tanh = op.approximate is not None and op.approximate.data == "tanh"
        return ("gelu_tanh" if tanh else "gelu"), ()
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


def is_float_activation(op: Operation) -> bool:
    """An activation op with no int8 form (sigmoid, tanh, hard_swish, silu, ...)."""
    activation = activation_of(op)
    return activation is not None and activation[0] not in ("relu", "relu6", "clip")


def activation_op(name: str, params: tuple[float, ...], x: SSAValue) -> Operation:
    """The pointwise op computing the fused activation `name` of `x` (the
    inverse of `activation_of`)."""
    simple = {"relu": ReluOp, "sigmoid": SigmoidOp, "tanh": TanhOp,
              "hard_swish": HardSwishOp, "silu": SiluOp, "gelu": GeluOp}  # fmt: skip
    if name in simple:
        return simple[name].create_inferred([x], {}, [x.type])
    props = {
        "leaky_relu": lambda: {"alpha": f32_attr(params[0])},
        "hard_sigmoid": lambda: {
            "alpha": f32_attr(params[0]),
            "beta": f32_attr(params[1]),
        },
        "gelu_tanh": lambda: {"approximate": str_attr("tanh")},
        "relu6": lambda: {"min": f32_attr(0.0), "max": f32_attr(6.0)},
        "clip": lambda: {"min": f32_attr(params[0]), "max": f32_attr(params[1])},
    }[name]()
    op_class = {"leaky_relu": LeakyReluOp, "hard_sigmoid": HardSigmoidOp,
                "gelu_tanh": GeluOp}.get(name, ClipOp)  # fmt: skip
    return op_class.create_inferred([x], props, [x.type])


def rebuild(
    producer: Operation, op_class: type[Operation], operands, **props
) -> Operation:
    """`producer` as `op_class` with new operands and extra properties, typed like it."""
    properties = {**producer.properties, **props}
    return op_class.create_inferred(  # type: ignore[attr-defined]
        operands, properties, [producer.results[0].type]
    )


MATMUL_ONLY_ACTIVATIONS = ("gelu", "gelu_tanh")
"""Fused into matmuls only (transformer MLPs; onnxruntime's BiasGelu, FastGelu), not convs."""

ACTIVATION_OPS = ("relu", "clip", "leaky_relu", "sigmoid", "tanh", "hard_sigmoid",
                  "hard_swish", "silu")  # fmt: skip
"""The pointwise ops a conv or matmul takes as its fused activation (and gelu, matmuls only)."""


def _fusable(value: SSAValue) -> bool:
    if not value.has_one_use():
        return False
    return str_value(value.owner.properties, "activation", "none") == "none"


def fusable(*names: str) -> DFPattern:
    """An op of `names` with no fused activation yet, whose result has one user."""
    return is_op(*names).where(_fusable, "one user, no fused activation")


PRODUCERS = ("conv", "fused_conv", "matmul", "fused_matmul")
"""The ops that take a bias and a fused activation."""


def fused_root(match: Match, fused: Operation) -> SSAValue:
    """Insert `fused`, which replaces the matched root, at the root's location."""
    fused.location = match.root.owner.location  # type: ignore[union-attr]
    insert(fused)
    return fused.results[0]


class FuseActivation(DFPatternRewrite):
    """conv or matmul -> relu / clip / leaky_relu / sigmoid / tanh / hard_sigmoid /
    hard_swish / silu (and gelu after a matmul)  =>  nn.fused_conv / nn.fused_matmul.

        conv | matmul          (no activation yet, one user)
             |
        relu | clip | ...      (gelu: after a matmul only; no runtime fuses it into a conv)
    """

    def __init__(self):
        self.producer = fusable(*PRODUCERS)
        self.pattern = is_op(*ACTIVATION_OPS, "gelu")(self.producer)

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        op = match.root.owner  # type: ignore[union-attr]
        activation = activation_of(op)
        if activation is None:
            return None  # a one-sided clip other than relu
        name, params = activation
        producer = match[self.producer].owner
        if name in MATMUL_ONLY_ACTIVATIONS and isinstance(
            producer, ConvOp | FusedConvOp
        ):
            return None  # no runtime fuses gelu into a conv
        props = {"activation": str_attr(name)}
        if params:
            props["activation_params"] = f32_array(params)
        fused = rebuild(
            producer, FUSED_FORM[type(producer)], producer.operands, **props
        )
        count(f"{name} fused into {fused.name}")
        return fused_root(match, fused)


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


class FoldBiasAdd(DFPatternRewrite):
    """conv or matmul + per-channel constant  =>  the constant folded into the op's bias.

        conv | matmul     constant
                  \\     /
                   add            (either operand order)

    A conv stays nn.conv (with a bias); a matmul becomes nn.fused_matmul. A
    bias that is not one value per channel, an add that broadcasts the
    product to a larger shape, and a computed bias already on the op decline.
    """

    def __init__(self):
        self.producer = fusable(*PRODUCERS)
        self.bias = is_constant()
        self.pattern = self.producer + self.bias

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        op, value = match.root.owner, match[self.producer]  # type: ignore[union-attr]
        producer, added = value.owner, constant_value(match[self.bias])
        if added is None:
            return None  # a constant of another dialect: its value is unknown here
        if in_decomposed_activation(op):  # e.g. the + 3 of relu6(x + 3) / 6
            return None
        out = ranked(value)
        if out is None or match.root.type != out:
            return None  # the add broadcasts to a larger shape
        rank = out.get_num_dims()
        if rank == 0:
            return None  # a matmul of two vectors has no channel axis
        if isinstance(producer, ConvOp | FusedConvOp):
            axis = channel_axis(producer.layout, rank)
        else:
            axis = rank - 1
        if (bias := channel_bias(added, out.get_shape(), axis)) is None:
            return None
        if len(producer.operands) == 3:
            existing = constant_value(producer.operands[2])
            if existing is None:
                return None  # a computed bias cannot absorb a constant
            bias = existing + bias
        weights = nn.constant(bias, out.element_type)
        fused = rebuild(
            producer, BIASED_FORM[type(producer)], [*producer.operands[:2], weights]
        )
        return fused_root(match, fused)


def trailing_mean(value: SSAValue) -> bool:
    """Whether `value` is a keepdims reduce_mean over trailing axes."""
    mean = value.owner
    if not isinstance(mean, ReduceMeanOp) or not mean.keeps_dims:
        return False
    x = ranked(mean.input)
    if x is None:
        return False
    rank = x.get_num_dims()
    axes = reduced_axes(mean.properties, rank)
    return bool(axes) and axes == tuple(range(axes[0], rank))


def scalar_constant(expected: float | None = None) -> DFPattern:
    """A one-element constant (equal to `expected` when given)."""

    def check(value: SSAValue) -> bool:
        found = scalar(value)
        return found is not None and (expected is None or found == expected)

    what = "one element" if expected is None else f"the scalar {expected}"
    return is_constant().where(check, what)


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


class FuseLayerNorm(DFPatternRewrite):
    """(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* gamma] [+ beta]  =>  nn.layer_norm.

            x
           / \\
          |  reduce_mean                 (keepdims, trailing axes)
           \\ /
            sub  -----------.
             |              |
         pow 2 | mul(d, d)   |
         reduce_mean         |           (the same axes)
         add eps             |           (a scalar constant)
         sqrt                |
             \\               |
              '-----------> div
                            [mul gamma]  (constants over the normalized dims)
                            [add beta]

    The gamma multiply and beta add are taken when they are constants over
    the normalized dims; a missing gamma is ones, a missing beta left out.
    """

    defer_to_user = True  # a forward walk meets the div before gamma and beta

    def __init__(self):
        self.x = wildcard()
        self.mean = is_op("reduce_mean")(self.x).where(trailing_mean, "trailing mean")
        self.centered = self.x - self.mean
        square = is_op("pow")(self.centered, scalar_constant(2)) | (
            self.centered * self.centered
        )
        self.var = is_op("reduce_mean")(square).where(trailing_mean, "trailing mean")
        self.eps = scalar_constant()
        self.normalized = self.centered / is_op("sqrt")(self.var + self.eps)
        self.gamma, self.beta = (
            is_constant().where_match(self.spans_normalized, "over the normalized dims")
            for _ in range(2)
        )
        scaled = self.normalized.optional(lambda n: n * self.gamma)
        self.pattern = scaled.optional(lambda s: s + self.beta)

    def normalized_dims(self, match: Match) -> tuple[int, ...] | None:
        x = ranked(match[self.x])
        if x is None:
            return None
        axes = reduced_axes(match[self.mean].owner.properties, x.get_num_dims())
        return x.get_shape()[axes[0] :]

    def spans_normalized(self, match: Match, value: SSAValue) -> bool:
        dims = self.normalized_dims(match)
        return dims is not None and affine_param(value, dims) is not None

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        x, x_type = match[self.x], ranked(match[self.x])
        if x_type is None or match[self.normalized].type != x_type:
            return None  # the constants broadcast x to a larger shape
        rank = x_type.get_num_dims()
        axes = reduced_axes(match[self.mean].owner.properties, rank)
        if reduced_axes(match[self.var].owner.properties, rank) != axes:
            return None  # the variance is over other axes than the mean
        normalized = x_type.get_shape()[axes[0] :]
        gamma = (
            affine_param(match[self.gamma], normalized)
            if self.gamma in match
            else np.ones(normalized)
        )
        params = [gamma]
        if self.beta in match:
            params.append(affine_param(match[self.beta], normalized))
        constants = [nn.constant(p, x_type.element_type) for p in params]
        norm = LayerNormOp.create_inferred(
            [x, *constants],
            {"axis": i64_attr(axes[0]), "epsilon": f32_attr(scalar(match[self.eps]))},
            [x_type],
        )
        return fused_root(match, norm)


FUSION_STATISTICS: Statistics = {
    "{activation} fused into {fused op}": "Activations fused into the conv or matmul before them, by kind",
    **ATTENTION_STATISTICS,
}

FUSION_PATTERNS: tuple[type[RewritePattern], ...] = (
    *ACTIVATION_PATTERNS,
    FoldBiasAdd,
    FuseActivation,
    FuseLayerNorm,
    *ATTENTION_PATTERNS,
)
"""The fusion patterns, for `fuse-ops` and any pass that wants them."""
