"""Reference implementations of elementwise ops and activations."""

from __future__ import annotations

import math

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import constant as c
from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn.base import int_value

_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: np.ndarray) -> np.ndarray:
    return _erf(x).astype(x.dtype)


def _binary(fn):
    def run(self, interpreter: Interpreter, op, args):
        lhs, rhs = args
        return (np.asarray(fn(lhs, rhs)).astype(lhs.dtype, copy=False),)

    return run


def _unary(fn):
    def run(self, interpreter: Interpreter, op, args):
        (x,) = args
        return (np.asarray(fn(x)).astype(x.dtype, copy=False),)

    return run


def _test(fn):
    """An elementwise test with a bool result."""

    def run(self, interpreter: Interpreter, op, args):
        (x,) = args
        return (np.asarray(fn(x), dtype=np.bool_),)

    return run


def _elu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, alpha * np.expm1(x))


def hard_sigmoid(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return np.clip(x * x.dtype.type(alpha) + x.dtype.type(beta), 0, 1)


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1 + np.exp(-x))


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """0.5 x (1 + erf(x / sqrt 2)), or with tanh(sqrt(2 / pi) (x + 0.044715 x^3))."""
    if approximate == "tanh":
        inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1 + np.tanh(inner))
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _int_div(a, b):
    """ONNX's Div: true division of floats, division truncated toward zero of integers."""
    if a.dtype.kind not in "iu":
        return a / b
    _refuse_zero_divisor(b, "nn.div")
    quotient = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return quotient + inexact.astype(quotient.dtype)


def _refuse_zero_divisor(divisor: np.ndarray, op_name: str) -> None:
    """Integer division by zero is undefined (onnxruntime refuses the model)."""
    if divisor.dtype.kind in "iub" and not np.all(divisor):
        raise ZeroDivisionError(f"{op_name}: integer division by zero")


@register_impls
class ElementwiseFunctions(InterpreterFunctions):
    @impl(c.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: c.ConstantOp, args):
        return (op.to_array(),)

    run_add = impl(ew.AddOp)(_binary(np.add))
    run_sub = impl(ew.SubOp)(_binary(np.subtract))
    run_mul = impl(ew.MulOp)(_binary(np.multiply))
    run_div = impl(ew.DivOp)(_binary(_int_div))
    run_pow = impl(ew.PowOp)(_binary(np.power))
    run_max = impl(ew.MaxOp)(_binary(np.maximum))
    run_min = impl(ew.MinOp)(_binary(np.minimum))
    run_sqrt = impl(ew.SqrtOp)(_unary(np.sqrt))
    run_reciprocal = impl(ew.ReciprocalOp)(_unary(np.reciprocal))
    run_exp = impl(ew.ExpOp)(_unary(np.exp))
    run_log = impl(ew.LogOp)(_unary(np.log))
    run_erf = impl(ew.ErfOp)(_unary(erf))
    run_neg = impl(ew.NegOp)(_unary(np.negative))
    run_abs = impl(ew.AbsOp)(_unary(np.abs))
    run_relu = impl(ew.ReluOp)(_unary(lambda x: np.where(x < 0, 0, x)))  # keeps -0
    run_sigmoid = impl(ew.SigmoidOp)(_unary(lambda x: 1 / (1 + np.exp(-x))))
    run_tanh = impl(ew.TanhOp)(_unary(np.tanh))
    run_identity = impl(ew.IdentityOp)(_unary(lambda x: x))
    run_stop_gradient = impl(ew.StopGradientOp)(_unary(lambda x: x))

    run_sin = impl(ew.SinOp)(_unary(np.sin))
    run_cos = impl(ew.CosOp)(_unary(np.cos))
    run_tan = impl(ew.TanOp)(_unary(np.tan))
    run_asin = impl(ew.AsinOp)(_unary(np.arcsin))
    run_acos = impl(ew.AcosOp)(_unary(np.arccos))
    run_atan = impl(ew.AtanOp)(_unary(np.arctan))
    run_sinh = impl(ew.SinhOp)(_unary(np.sinh))
    run_cosh = impl(ew.CoshOp)(_unary(np.cosh))
    run_asinh = impl(ew.AsinhOp)(_unary(np.arcsinh))
    run_acosh = impl(ew.AcoshOp)(_unary(np.arccosh))
    run_atanh = impl(ew.AtanhOp)(_unary(np.arctanh))
    run_floor = impl(ew.FloorOp)(_unary(np.floor))
    run_ceil = impl(ew.CeilOp)(_unary(np.ceil))
    run_round = impl(ew.RoundOp)(_unary(np.round))  # half to even
    run_sign = impl(ew.SignOp)(_unary(np.sign))
    run_log1p = impl(ew.Log1pOp)(_unary(np.log1p))
    run_expm1 = impl(ew.Expm1Op)(_unary(np.expm1))
    run_softplus = impl(ew.SoftplusOp)(_unary(lambda x: np.logaddexp(0, x)))
    run_softsign = impl(ew.SoftsignOp)(_unary(lambda x: x / (1 + np.abs(x))))
    run_hard_swish = impl(ew.HardSwishOp)(
        _unary(lambda x: x * hard_sigmoid(x, 1 / 6, 0.5))
    )
    run_mish = impl(ew.MishOp)(_unary(lambda x: x * np.tanh(np.logaddexp(0, x))))
    run_silu = impl(ew.SiluOp)(_unary(lambda x: silu(x)))
    run_is_nan = impl(ew.IsNanOp)(_test(np.isnan))
    run_is_inf = impl(ew.IsInfOp)(_test(np.isinf))
    run_is_finite = impl(ew.IsFiniteOp)(_test(np.isfinite))

    @impl(ew.ModOp)
    def run_mod(self, interpreter: Interpreter, op: ew.ModOp, args):
        lhs, rhs = args
        _refuse_zero_divisor(rhs, "nn.mod")
        fn = np.fmod if int_value(op.properties, "fmod", 0) else np.mod
        return (np.asarray(fn(lhs, rhs)).astype(lhs.dtype, copy=False),)

    @impl(ew.EluOp)
    def run_elu(self, interpreter: Interpreter, op: ew.EluOp, args):
        (x,) = args
        return (_elu(x, op.alpha.value.data).astype(x.dtype, copy=False),)

    @impl(ew.SeluOp)
    def run_selu(self, interpreter: Interpreter, op: ew.SeluOp, args):
        (x,) = args
        y = op.gamma.value.data * _elu(x, op.alpha.value.data)
        return (y.astype(x.dtype, copy=False),)

    @impl(ew.HardSigmoidOp)
    def run_hard_sigmoid(self, interpreter: Interpreter, op: ew.HardSigmoidOp, args):
        (x,) = args
        y = hard_sigmoid(x, op.alpha.value.data, op.beta.value.data)
        return (y.astype(x.dtype, copy=False),)

    @impl(ew.LeakyReluOp)
    def run_leaky_relu(self, interpreter: Interpreter, op: ew.LeakyReluOp, args):
        (x,) = args
        alpha = op.alpha.value.data
        return (np.where(x >= 0, x, x * x.dtype.type(alpha)),)

    @impl(ew.ClipOp)
    def run_clip(self, interpreter: Interpreter, op: ew.ClipOp, args):
        (x,) = args
        lo = None if op.min is None else op.min.value.data
        hi = None if op.max is None else op.max.value.data
        # a NaN bound bounds nothing (onnxruntime, TensorFlow); NaN in x stays
        lo, hi = (None if v is None or np.isnan(v) else v for v in (lo, hi))
        if lo is None and hi is None:
            return (x,)
        return (np.clip(x, lo, hi).astype(x.dtype, copy=False),)

    @impl(ew.GeluOp)
    def run_gelu(self, interpreter: Interpreter, op: ew.GeluOp, args):
        (x,) = args
        approximate = "none" if op.approximate is None else op.approximate.data
        return (gelu(x, approximate).astype(x.dtype),)
