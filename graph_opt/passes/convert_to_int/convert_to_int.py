"""convert-to-int: turn fake-quantized float graphs into int8 graphs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier
from xdsl.transforms.dead_code_elimination import dce
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.conv import ConvolutionBase
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.fused import FusedMatMulOp
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.names import op_result_names
from graph_opt.dialects.nn.qint import QConvOp, QConvTransposeOp, QMatMulOp, RescaleOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.passes.convert_to_int.boundaries import (
    BOUNDARY_STATISTICS,
    follow_recipe_at_boundaries,
)
from graph_opt.passes.convert_to_int.float_ops import (
    FLOAT_OPS_STATISTICS,
    report_float_ops,
)
from graph_opt.passes.convert_to_int.io import IO_STATISTICS, make_integer_io
from graph_opt.passes.convert_to_int.patterns import (
    FoldWeightFakeQuant,
    convert_to_int_patterns,
)
from graph_opt.passes.convert_to_int.reasons import float_reason
from graph_opt.quantization.runtime_recipes import (
    RECIPES,
    TFLITE_KERNELS,
    expected_rounding,
    record_recipe,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.placement import keeping_placement
from graph_opt.statistics import Statistics, count, record


@dataclass(frozen=True)
class ConvertToIntPass(ModulePass):
    """Replace fake quantization by int8 arithmetic (TFLite/TOSA style).

    Activation fake quants (per tensor, <= 8 bits) become int8 values carried
    as nn.dequantize of them: graph inputs are quantized; conv, depthwise conv,
    transposed conv, matmul and gemm (plain or fused, with relu/relu6/clip)
    whose input is int8 and whose weights are fake-quantized constants become
    nn.qconv/nn.qconv_transpose/nn.qmatmul
    with an i32 accumulator and i32 bias (scale input * weight), then
    nn.rescale by a fixed-point multiplier and shift (per tensor or per output
    channel) to the output's scale, with the activation folded into a clamp;
    before an activation with no int8 form (sigmoid, silu, ...) or a softmax
    that alone reads it, the accumulator is dequantized for it instead.
    Adds of int8 values rescale both sides to a common i32 scale; means
    (reduce_mean, global_avg_pool) are i32 sums rescaled once; a 2-D avg_pool
    not counting padding is nn.qavg_pool (TOSA AVG_POOL2D), rescaled when
    the output scale differs; max_pool,
    reshape, transpose, pad and concat run on int8. Ops that cannot take int8
    stay float between nn.dequantize and nn.quantize, each reported (statistics
    per op kind and a warning); their weight fake quants fold to constants. Outputs are dequantized. With `unsigned-io`, graph
    inputs are quantized to uint8 and outputs dequantized from uint8 (zero
    point + 128), converted to and from int8 by unit rescales. With `integer-io`
    (TFLite's int8 inference input/output type), an input that only its
    quantization reads becomes that int8 (uint8) value and an output that is
    a dequantized 8-bit value returns it; each records its real-value mapping
    as an argument or result attribute `nn.quantization = {scale = S : f32,
    zero_point = Z : i64}` (real = (q - Z) * S); those left float are
    reported with why.

    `recipe` makes the int8 graph compute what a TFLite runtime computes, bit
    for bit, from the same tensor scales (runtime_recipes.py): `xnnpack`
    (the default interpreter) requantizes layers in float32 (nn.rescale
    FP32_HALF_EVEN, no TOSA form) and adds as XNNPACK does (integer
    multipliers of the float32 scale ratios, one rounding shift of the sum);
    `tflite-builtin` (TFLite's kernels without a delegate) requantizes convs
    and fully connected layers as ruy (a rounding high multiply, then a shift
    rounding half up: two rescales), depthwise convs, adds and means as
    gemmlowp (DOUBLE_ROUND), adds as TFLite's AddFunc (both inputs shifted
    left 20 bits, each requantized, the sum requantized) and a 4-D spatial
    mean as its optimized kernel (raw sum, float32-derived multiplier, an i32
    offset); `tflite-reference` (BUILTIN_REF) rounds twice everywhere but a
    per-channel fully connected layer, and means as QuantizedMeanOrSum;
    `tosa` (the default) rounds once and adds at a common i32 scale. Float
    inputs and outputs are quantized and dequantized as the runtime's
    QUANTIZE and DEQUANTIZE compute (nn.quantize / nn.dequantize
    `arithmetic`): XNNPACK multiplies by the reciprocal scale, the reference
    kernels round half away from zero, the builtin kernels quantize blocks
    of 8 elements as XNNPACK and the rest as the reference kernels (dividing
    in double), and dequantize blocks of 8 as q x scale + (-zero point x
    scale), rounding each step to float32. A
    recipe other than `tosa` is recorded on the module (`nn.int8_recipe`),
    where the .tflite export checks it. `double-round` alone makes the new
    rescales DOUBLE_ROUND and nothing else. Each int8 value's scale and zero
    point are recorded on the op computing it (attribute `nn.quantization`),
    and int8 weights' scales (per channel: with their axis) on their
    constant: the .tflite and ONNX exports give each tensor those.
    """

    name = "convert-to-int"

    statistics: ClassVar[Statistics] = {
        "convolutions and matrix products int8": "Convs and matrix products now computing in int8",
        "convolutions and matrix products float": "Those left float",
        "left float: {reason}": "Those left float, by reason",
        "rescales rounding twice": "Rescales made DOUBLE_ROUND (double-round, recipe=tflite-builtin)",
        "adds in recipe {recipe}": "Integer adds requantized as the recipe's runtime does",
        **FLOAT_OPS_STATISTICS,
        **BOUNDARY_STATISTICS,
        **IO_STATISTICS,
    }

    unsigned_io: bool = field(
        default=False,
        metadata={"help": "quantize inputs to and dequantize outputs from uint8"},
    )
    integer_io: bool = field(
        default=False,
        metadata={
            "help": "inputs and outputs are the int8 (uint8 with unsigned-io) "
            "values, their scale and zero point in nn.quantization attributes"
        },
    )
    double_round: bool = field(
        default=False,
        metadata={
            "help": "rescales round twice (DOUBLE_ROUND), as TFLite's builtin "
            "kernels requantize"
        },
    )

    recipe: str = field(
        default="tosa",
        metadata={
            "help": "requantize as this runtime does, bit for bit: xnnpack "
            "(TFLite's default interpreter), tflite-builtin (TFLite's kernels), "
            "tflite-reference (its reference kernels), tosa (round once)"
        },
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.recipe not in RECIPES:
            raise PassFailedException(
                f"convert-to-int: recipe={self.recipe} is not one of {', '.join(RECIPES)}"
            )
        if not any(isinstance(o, FakeQuantOp) for o in op.walk()):
            warn(
                "convert-to-int: no fake quantization in the module, nothing to "
                "convert: run calibrate and quantize first"
            )
            return
        reasons = {o: float_reason(o) for o in _float_linear_ops(op)}
        existing = {o for o in op.walk() if isinstance(o, RescaleOp | AddOp)}
        keeping_placement(
            GreedyRewritePatternApplier(
                convert_to_int_patterns(self.unsigned_io, self.recipe)
            )
        ).rewrite_module(op)
        dce(op)
        keeping_placement(FoldWeightFakeQuant()).rewrite_module(op)
        dce(op)
        new_ops = [o for o in op.walk() if o not in existing]
        if self.double_round or self.recipe in TFLITE_KERNELS:
            _round_twice(new_ops, self.recipe)
        if self.recipe != "tosa":
            record_recipe(op, self.recipe)
        follow_recipe_at_boundaries(op, self.recipe)
        adds = [o for o in new_ops if _is_integer_add(o)]
        count(f"adds in recipe {self.recipe}", len(adds))
        _report_float_linear_ops(op, reasons)
        report_float_ops(op, FLOAT_LINEAR_OPS)
        if self.integer_io:
            make_integer_io(op)


def _is_integer_add(op: Operation) -> bool:
    """An add of two rescaled (i32) values: convert-to-int's integer add."""
    return isinstance(op, AddOp) and all(
        isinstance(v.owner, RescaleOp) for v in op.operands
    )


def _round_twice(ops: list[Operation], recipe: str) -> None:
    """Make the given rescales DOUBLE_ROUND (it changes those with shift > 31);
    with a recipe of TFLite's kernels, those its runtime rounds twice."""
    rescales = [
        o
        for o in ops
        if isinstance(o, RescaleOp)
        and (recipe not in TFLITE_KERNELS or expected_rounding(recipe, o) == "double")
    ]
    for rescale in rescales:
        rescale.properties["rounding_mode"] = StringAttr("DOUBLE_ROUND")
    record("rescales rounding twice", len(rescales))


def _float_linear_ops(module: ModuleOp) -> list[Operation]:
    return [
        o
        for o in module.walk()
        if isinstance(o, FLOAT_LINEAR_OPS) and not isinstance(o, INTEGER_LINEAR_OPS)
    ]


def _report_float_linear_ops(module: ModuleOp, reasons: dict[Operation, str]) -> None:
    """Report the convolutions and matrix products left in float, with why:
    a count per reason in the statistics, and a warning naming the first."""
    integer = [o for o in module.walk() if isinstance(o, INTEGER_LINEAR_OPS)]
    left = _float_linear_ops(module)
    record("convolutions and matrix products int8", len(integer))
    record("convolutions and matrix products float", len(left))
    for reason in sorted({reasons.get(o, "") for o in left} - {""}):
        count("left float: " + reason, sum(reasons.get(o) == reason for o in left))
    if left:
        names = op_result_names(left[0])
        first = f"{left[0].name} {names[0] or left[0].results[0].name_hint or ''}"
        reason = reasons.get(left[0], "it has no int8 form")
        warn(
            f"convert-to-int: {len(left)} of {len(left) + len(integer)} convolutions "
            f"and matrix products stay float (first: {first.strip()}: {reason})"
        )


FLOAT_LINEAR_OPS = (ConvolutionBase, MatMulOp, GemmOp, FusedMatMulOp)
INTEGER_LINEAR_OPS = (QConvOp, QConvTransposeOp, QMatMulOp)
