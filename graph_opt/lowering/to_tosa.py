"""The `lower-to-tosa` pass: nn graphs to upstream MLIR's TOSA (spec 1.0) plus func."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func, scf, tosa
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.names import argument_names
from graph_opt.dialects.nn.shape_ops import RankOp, ShapeOp, SizeOp
from graph_opt.lowering.tosa_compare import LowerArgReductions, LowerComparisons
from graph_opt.lowering.tosa_control_flow import CONTROL_FLOW_PATTERNS
from graph_opt.lowering.tosa_conv import (
    LowerConv,
    LowerConvTranspose,
    LowerGlobalAvgPool,
    LowerPool,
)
from graph_opt.lowering.tosa_elementwise import LowerElementwise
from graph_opt.lowering.tosa_index import (
    LowerGather,
    LowerGatherElements,
    LowerGatherNd,
    LowerTile,
)
from graph_opt.lowering.tosa_matmul import LowerGemm, LowerMatMul
from graph_opt.lowering.tosa_nms import lower_non_max_suppressions
from graph_opt.lowering.tosa_norm import LowerBatchNorm, LowerLayerNorm
from graph_opt.lowering.tosa_quant import (
    QUANT_PATTERNS,
    shift_unsigned_qdq,
    signless_unsigned_boundaries,
)
from graph_opt.lowering.tosa_resize import LowerResize
from graph_opt.lowering.tosa_tensor import (
    LowerCast,
    LowerReductions,
    LowerSlicing,
    LowerSoftmax,
    LowerTensorOps,
)
from graph_opt.lowering.tosa_top_k import LowerTopK
from graph_opt.passes.common.attention_patterns import DecomposeAttention
from graph_opt.passes.fold_constants.fold_constants import (
    FOLD_CONSTANTS_STATISTICS,
    FoldConstantsPass,
    fold_constants,
)
from graph_opt.passes.prune.prune import prune
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics

PATTERNS = (
    LowerConv,
    LowerConvTranspose,
    LowerPool,
    LowerGlobalAvgPool,
    LowerMatMul,
    LowerGemm,
    LowerElementwise,
    LowerComparisons,
    LowerArgReductions,
    LowerTensorOps,
    LowerSlicing,
    LowerGather,
    LowerGatherNd,
    LowerGatherElements,
    LowerTile,
    LowerTopK,
    LowerResize,
    LowerCast,
    LowerReductions,
    LowerSoftmax,
    LowerBatchNorm,
    LowerLayerNorm,
    *QUANT_PATTERNS,
)

CONSTANT_OPS = (tosa.ConstOp, tosa_ext.ConstShapeOp)

SHAPE_QUERY = "shape computations fold away: run fold-constants (or optimize) first"
UNSUPPORTED_REASONS = {
    "nn.shape": SHAPE_QUERY,
    "nn.size": SHAPE_QUERY,
    "nn.rank": SHAPE_QUERY,
    "nn.constant_of_shape": SHAPE_QUERY,
    "nn.opaque": "a framework operator kept as is has no TOSA form",
}
"""Why ops with no lowering pattern have none, where there is more to say."""


@dataclass(frozen=True)
class LowerToTosaPass(ModulePass):
    """Lower nn ops to TOSA as upstream MLIR defines it, ready for MLIR and IREE.

    Convolutions (1-D as 2-D of height 1), transposed convolutions, pools and
    resizes become NHWC tosa.conv2d / depthwise_conv2d / transpose_conv2d /
    max_pool2d / avg_pool2d / resize (NCHW data is transposed around them),
    matrix products batched 3-D tosa.matmul, gather (also gather_nd and
    gather_elements) tosa.gather, tile and expand tosa.tile, top_k ranks
    counted by comparisons; elementwise ops, activations, reshapes, transposes,
    concat, slices, splits, casts, pads, reductions, softmax (and
    nn.attention, written out as matmuls and softmax first), batch_norm and
    layer_norm, comparisons, float tests, logical ops, select and arg max/min become their
    TOSA counterparts or short TOSA sequences, fake_quant TensorFlow's float
    arithmetic. The int8 ops map to TOSA's integer profile: nn.qconv and
    nn.qmatmul to conv2d / depthwise_conv2d / matmul with zero points and i32
    accumulators, nn.rescale to tosa.rescale, nn.quantize and nn.dequantize to
    tosa.mul / add / clamp / cast (ui8 between a quantize and its dequantizes
    as i8 with zero points moved by -128, exactly). Control flow (scf.if and
    scf.while, as the TensorFlow importer makes cond and while) becomes
    tosa.cond_if and tosa.while_loop with regions isolated from above; one
    that cannot (or, with keep-nested-scf, one holding its own kind) stays scf,
    which IREE compiles next to TOSA, with a warning saying why.
    non_max_suppression becomes TOSA plus a tosa.while_loop filling a buffer of
    its largest possible row count; the row-wise ops after it are retyped with
    that bound and the function returns the real rows (tensor.extract_slice).
    An op with no TOSA form fails the pass, naming the op, its location and why.
    The module's ONNX metadata attributes (nn.onnx_*) are dropped.
    Print with --print-op-generic for upstream MLIR.
    """

    name = "lower-to-tosa"

    statistics: ClassVar[Statistics] = FOLD_CONSTANTS_STATISTICS

    keep_nested_scf: bool = field(
        default=True,
        metadata={
            "help": "keep an scf.if holding a cond_if (an scf.while holding a "
            "while_loop) as scf, which IREE 3.13 compiles"
        },
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refused = lower_non_max_suppressions(op, describe)
        if refused:
            raise PassFailedException(f"lower-to-tosa: cannot lower {refused}")
        check_static_shapes(op)
        prune(op)  # IREE 3.13 crashes on a loop carrying a value no iteration reads
        shift_unsigned_qdq(op)
        signless_unsigned_boundaries(op)
        declined: dict[Operation, str] = {}
        PatternRewriteWalker(DecomposeAttention()).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier([p(declined) for p in PATTERNS]),
            apply_recursively=False,
        ).rewrite_module(op)
        remaining = [o for o in op.walk() if o.dialect_name() == "nn"]
        if remaining:
            first = remaining[0]
            reason = declined.get(
                first,
                UNSUPPORTED_REASONS.get(first.name, "no TOSA lowering for this op"),
            )
            raise PassFailedException(
                f"lower-to-tosa: cannot lower {describe(first)} at {first.location}: {reason}"
            )
        lower_control_flow(op, self.keep_nested_scf)
        erase_unused_constants(op)
        drop_onnx_module_attributes(op)


def lower_control_flow(module: ModuleOp, keep_nested_scf: bool) -> None:
    """scf.if / scf.while -> tosa.cond_if / tosa.while_loop, innermost first; one
    that cannot be stays scf (which IREE compiles next to TOSA), with a warning."""
    declined: dict[Operation, str] = {}
    PatternRewriteWalker(
        GreedyRewritePatternApplier(
            [p(declined, keep_nested_scf) for p in CONTROL_FLOW_PATTERNS]
        ),
        apply_recursively=False,
        walk_regions_first=True,
    ).rewrite_module(module)
    for o in module.walk():
        if isinstance(o, scf.IfOp | scf.WhileOp):
            warn(
                f"lower-to-tosa: kept {o.name} at {o.location} as scf: "
                + declined.get(o, "no TOSA form")
            )


def check_static_shapes(module: ModuleOp) -> None:
    """TOSA shapes here are constants: every nn value must be a static tensor.
    Shapes that follow from static inputs (an exporter's Shape -> Gather ->
    Reshape chains) are folded first; dynamic inputs are refused, naming them."""
    if _first_dynamic(module) is None and not any(
        isinstance(o, ShapeOp | SizeOp | RankOp) for o in module.walk()
    ):
        return
    dynamic_inputs = [
        f"{name}: {arg.type}"
        for function in module.ops
        if isinstance(function, func.FuncOp)
        for name, arg in zip(argument_names(function), function.args, strict=True)
        if isinstance(arg.type, TensorType) and not arg.type.has_static_shape()
    ]
    if not dynamic_inputs:
        fold_constants(module, FoldConstantsPass().max_size)
    found = _first_dynamic(module)
    if found is None:
        return
    o, value = found
    hint = (
        f"; dynamic inputs ({', '.join(dynamic_inputs)}): give their dims with "
        "--input-shape NAME=D0,D1,..."
        if dynamic_inputs
        else ""
    )
    raise PassFailedException(
        f"lower-to-tosa: cannot lower {describe(o)} at {o.location}: "
        f"needs static tensor shapes, got {value.type}{hint}"
    )


def _first_dynamic(module: ModuleOp) -> tuple[Operation, SSAValue] | None:
    """The first nn op with an operand or result that is not a static tensor."""
    for o in module.walk():
        if o.dialect_name() != "nn":
            continue
        for value in (*o.operands, *o.results):
            if (
                not isinstance(value.type, TensorType)
                or not value.type.has_static_shape()
            ):
                return o, value
    return None


def describe(op: Operation) -> str:
    """The op's name; an nn.opaque's with its framework operator, e.g. `nn.opaque (Hardmax)`."""
    op_type = op.properties.get("op_type")
    return f"{op.name} ({op_type.data})" if isinstance(op_type, StringAttr) else op.name


def drop_onnx_module_attributes(module: ModuleOp) -> None:
    """ONNX metadata (opset imports, IR version) describes the nn graph, not the TOSA one;
    its empty opset domain key is not even a valid MLIR attribute name."""
    for name in [n for n in module.attributes if n.startswith("nn.")]:
        del module.attributes[name]


def erase_unused_constants(module: ModuleOp) -> None:
    """Constants left without users (reshape targets, folded weights)."""
    for o in reversed(list(module.walk())):
        if isinstance(o, CONSTANT_OPS) and not o.results[0].uses:
            o.detach()
            o.erase()
