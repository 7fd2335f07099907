"""Patterns and rewrites shipped with graph-opt (also reachable by name from the registry)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.patterns.builder import nn
from graph_opt.patterns.matcher import Match
from graph_opt.patterns.pattern import DFPattern, is_constant, is_op, wildcard
from graph_opt.patterns.rewrite import DFPatternRewrite


def conv_bias_relu() -> DFPattern:
    """nn.conv, then nn.add of a constant bias, then an optional nn.relu."""
    conv = is_op("nn.conv")(wildcard(), wildcard(), None)
    return (conv + is_constant()).optional(lambda x: is_op("nn.relu")(x))


def conv_bn_relu() -> DFPattern:
    """nn.conv, then nn.batch_norm with constant parameters, then nn.relu."""
    conv = is_op("nn.conv")(wildcard(), wildcard(), None)
    params = [is_constant() for _ in range(4)]
    return is_op("nn.relu")(is_op("nn.batch_norm")(conv, *params))


def double_relu() -> DFPattern:
    return is_op("nn.relu")(is_op("nn.relu")(wildcard()))


class RemoveDoubleRelu(DFPatternRewrite):
    """relu(relu(x)) -> relu(x)."""

    def __init__(self):
        self.inner = is_op("nn.relu")(wildcard())
        self.pattern = is_op("nn.relu")(self.inner)

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        return match[self.inner]


class FoldDecomposedBatchNorm(DFPatternRewrite):
    """`(x - mean) / sqrt(var + eps) * gamma + beta` -> one nn.batch_norm (NCHW).

    mean, var, gamma and beta are constants of shape [C, 1, 1] (C the channel
    dim of a rank-4 x); eps is a one-element constant.
    """

    def __init__(self):
        self.x = wildcard()
        self.mean, self.var = is_constant(), is_constant()
        self.eps = is_constant().where(_single_element, "single element")
        self.gamma, self.beta = is_constant(), is_constant()
        std = is_op("nn.sqrt")(self.var + self.eps)
        self.pattern = (self.x - self.mean) / std * self.gamma + self.beta

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        x_type = match[self.x].type
        shape = getattr(x_type, "get_shape", lambda: ())()
        if len(shape) != 4 or shape[1] < 0:
            return None  # needs a static channel dim of NCHW data
        arrays = [
            constant_value(match[p])
            for p in (self.gamma, self.beta, self.mean, self.var, self.eps)
        ]
        if any(a is None for a in arrays):
            return None  # a constant of another dialect: its value is unknown here
        *params, eps = arrays
        if any(p.shape != (shape[1], 1, 1) for p in params):  # type: ignore[union-attr]
            return None  # parameters are not per-channel [C, 1, 1]
        epsilon = float(np.asarray(eps).reshape(-1)[0])
        vectors = [nn.constant(p.reshape(-1)) for p in params]  # type: ignore[union-attr]
        return nn.batch_norm(match[self.x], *vectors, epsilon=epsilon)


def _single_element(value: SSAValue) -> bool:
    shape = getattr(value.type, "get_shape", lambda: None)()
    return shape is not None and int(np.prod(shape)) == 1


class MatMulBiasToGemm(DFPatternRewrite):
    """`matmul(a, b) + c` of 2-D a, b and a constant c -> one nn.gemm(a, b, c)."""

    def __init__(self):
        self.a, self.b = (
            wildcard().has_shape([None, None]),
            wildcard().has_shape([None, None]),
        )
        self.bias = is_constant()
        self.matmul = is_op("nn.matmul")(self.a, self.b)
        self.pattern = self.matmul + self.bias

    def rewrite(self, match: Match, rewriter: PatternRewriter) -> SSAValue | None:
        if match[self.matmul].type != match.root.type:
            return None  # the bias broadcasts the product larger: gemm's c cannot
        return nn.gemm(match[self.a], match[self.b], match[self.bias])
