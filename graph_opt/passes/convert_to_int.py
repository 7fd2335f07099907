"""convert-to-int: turn fake-quantized float graphs into int8 graphs."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.dead_code_elimination import dce

from graph_opt.passes.convert_to_int_patterns import (
    FoldWeightFakeQuant,
    convert_to_int_patterns,
)


@dataclass(frozen=True)
class ConvertToIntPass(ModulePass):
    """Replace fake quantization by int8 arithmetic (TFLite/TOSA style).

    Activation fake quants (per tensor, <= 8 bits) become int8 values carried
    as nn.dequantize of them: graph inputs are quantized; conv, depthwise conv,
    matmul and gemm (plain or fused, with relu/relu6/clip) whose input is int8
    and whose weights are fake-quantized constants become nn.qconv/nn.qmatmul
    with an i32 accumulator and i32 bias (scale input * weight), then
    nn.rescale by a fixed-point multiplier and shift (per tensor or per output
    channel) to the output's scale, with the activation folded into a clamp.
    Adds of int8 values rescale both sides to a common i32 scale; max_pool,
    reshape, transpose, pad and concat run on int8. Ops that cannot take int8
    stay float between nn.dequantize and nn.quantize; their weight fake quants
    fold to constants. Outputs are dequantized. With `unsigned-io`, graph
    inputs are quantized to uint8 and outputs dequantized from uint8 (zero
    point + 128), converted to and from int8 by unit rescales.
    """

    name = "convert-to-int"

    unsigned_io: bool = field(
        default=False,
        metadata={"help": "quantize inputs to and dequantize outputs from uint8"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(convert_to_int_patterns(self.unsigned_io))
        ).rewrite_module(op)
        dce(op)
        PatternRewriteWalker(FoldWeightFakeQuant()).rewrite_module(op)
        dce(op)
