"""convert-to-int{integer-io=true}: integer function inputs and outputs (TFLite's
`inference_input_type = tf.int8`), their scale and zero point recorded as
argument/result attributes `nn.quantization = {scale = S : f32, zero_point = Z : i64}`
(real = (q - Z) * S, as TFLite's `get_input_details()['quantization']`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    f32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.rewriter import Rewriter

from graph_opt.dialects.nn.names import NAME_ATTR, argument_names, result_names
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizationOp, QuantizeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.quantization.boundary import QUANTIZATION_ATTR
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, count, record

IO_STATISTICS: Statistics = {
    "inputs integer": "Function inputs made integer (integer-io)",
    "outputs integer": "Function outputs made integer (integer-io)",
    "inputs and outputs float": "Function inputs and outputs left float (integer-io)",
    "io float: {reason}": "Those left float, by reason",
}


@dataclass
class BoundaryReport:
    """Inputs and outputs made integer, and those left float with why."""

    integer_inputs: int = 0
    integer_outputs: int = 0
    float_ones: list[tuple[str, str]] = field(default_factory=list)
    """(`input x` / `output y` of @f, reason)."""


def quantization_attr(op: QuantizationOp) -> DictionaryAttr:
    """The scale and zero point of a per-tensor nn.quantize / nn.dequantize."""
    return DictionaryAttr(
        {
            "scale": FloatAttr(float(op.scales[0]), f32),
            "zero_point": IntegerAttr(int(op.zero_points[0]), i64),
        }
    )


def make_integer_io(module: ModuleOp) -> BoundaryReport:
    """Make the boundary quantizes and dequantizes of every public function that
    no call reads the caller's business; report what stays float."""
    report = BoundaryReport()
    called = {
        op.callee.root_reference.data
        for op in module.walk()
        if isinstance(op, func.CallOp)
    }
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or function.is_declaration:
            continue
        if (
            function.sym_visibility is not None
            and function.sym_visibility.data != "public"
        ):
            continue
        if function.sym_name.data in called:
            where = f"@{function.sym_name.data}"
            report.float_ones.append((where, "other functions call it"))
            continue
        _integer_inputs(function, report)
        _integer_outputs(function, report)
    _report(report)
    return report


def _integer_inputs(function: func.FuncOp, report: BoundaryReport) -> None:
    names = argument_names(function)
    entries = _entries(function.arg_attrs, len(names))
    for arg in list(function.body.blocks[0].args):
        if not _is_float(arg):
            continue  # an index or shape input: nothing to quantize
        reason = _input_reason(arg)
        if reason is not None:
            named = entries[arg.index].get(NAME_ATTR) is not None
            name = names[arg.index] if named or not arg.name_hint else arg.name_hint
            report.float_ones.append((f"input {name}", reason))
            continue
        quantizes = [use.operation for use in arg.uses]
        first = quantizes[0]
        assert isinstance(first, QuantizeOp)
        entries[arg.index][QUANTIZATION_ATTR] = quantization_attr(first)
        new_arg = Rewriter.replace_value_with_new_type(arg, first.output.type)
        for quantize in quantizes:
            quantize.output.replace_all_uses_with(new_arg)
            Rewriter.erase_op(quantize)
        report.integer_inputs += 1
    function.arg_attrs = _attrs(entries)
    inputs = [a.type for a in function.body.blocks[0].args]
    function.function_type = FunctionType.from_lists(
        inputs, list(function.function_type.outputs)
    )


def _input_reason(arg: BlockArgument) -> str | None:
    """Why an argument stays float; None when all its uses are one boundary quantize."""
    users = [use.operation for use in arg.uses]
    if not users:
        return "it is not read"
    others = sorted({u.name for u in users if not isinstance(u, QuantizeOp)})
    if others:
        return f"float ops read it ({', '.join(others)})"
    quantizes = [u for u in users if isinstance(u, QuantizeOp)]
    per_axis = _per_axis(quantizes[0])
    if per_axis is not None:
        return per_axis
    first = quantizes[0]
    if any(
        q.output.type != first.output.type
        or quantization_attr(q) != quantization_attr(first)
        for q in quantizes
    ):
        return "it is quantized with different scales or types"
    return None


def _integer_outputs(function: func.FuncOp, report: BoundaryReport) -> None:
    names = result_names(function)
    entries = _entries(function.res_attrs, len(names))
    returns = [
        op for block in function.body.blocks for op in block.ops
        if isinstance(op, func.ReturnOp)
    ]  # fmt: skip
    for index, name in enumerate(names):
        if not all(_is_float(r.operands[index]) for r in returns):
            continue  # already integer (indices, codes)
        reasons = {_output_reason(r.operands[index]) for r in returns}
        reason = next(iter(reasons)) if len(reasons) == 1 else "its returns differ"
        if reason is not None:
            report.float_ones.append((f"output {name}", reason))
            continue
        attrs = {quantization_attr(r.operands[index].owner) for r in returns}
        if len(attrs) != 1:
            report.float_ones.append((f"output {name}", "its returns differ"))
            continue
        for ret in returns:
            dequantize = ret.operands[index].owner
            ret.operands[index] = dequantize.input
            if not dequantize.output.uses:
                Rewriter.erase_op(dequantize)
        entries[index][QUANTIZATION_ATTR] = attrs.pop()
        report.integer_outputs += 1
    function.res_attrs = _attrs(entries)
    if returns:
        function.function_type = FunctionType.from_lists(
            list(function.function_type.inputs), [v.type for v in returns[0].operands]
        )


def _output_reason(value: SSAValue) -> str | None:
    """Why a returned value stays float; None for a per-tensor 8-bit dequantize."""
    deq = value.owner
    if not isinstance(deq, DequantizeOp):
        made_by = "an argument" if isinstance(value, BlockArgument) else deq.name
        return f"it is float (computed by {made_by})"
    per_axis = _per_axis(deq)
    if per_axis is not None:
        return per_axis
    t = ranked(deq.input)
    element = t.element_type if t is not None else None
    if not isinstance(element, IntegerType) or element.width.data != 8:
        return f"it is dequantized from {deq.input.type} (not 8-bit)"
    return None


def _is_float(value: SSAValue) -> bool:
    t = ranked(value)
    return t is not None and isinstance(t.element_type, AnyFloat)


def _per_axis(op: QuantizationOp) -> str | None:
    if len(op.scales) == 1 and op.axis is None:
        return None
    return f"{op.name} is per axis (one scale and zero point cannot describe it)"


def _entries(attrs: ArrayAttr[DictionaryAttr] | None, count: int) -> list[dict]:
    entries = [dict(e.data) for e in attrs.data] if attrs is not None else []
    return entries + [{} for _ in range(count - len(entries))]


def _attrs(entries: list[dict[str, Attribute]]) -> ArrayAttr[DictionaryAttr] | None:
    if not any(entries):
        return None
    return ArrayAttr([DictionaryAttr(e) for e in entries])


def _report(report: BoundaryReport) -> None:
    record("inputs integer", report.integer_inputs)
    record("outputs integer", report.integer_outputs)
    record("inputs and outputs float", len(report.float_ones))
    for _, reason in report.float_ones:
        count("io float: " + reason.split(" (")[0])
    listed = "; ".join(f"{what}: {why}" for what, why in report.float_ones)
    if report.integer_inputs + report.integer_outputs == 0:
        warn(f"convert-to-int: integer-io changed nothing ({listed or 'no function'})")
    elif report.float_ones:
        warn(
            f"convert-to-int: integer-io left {len(report.float_ones)} inputs and "
            f"outputs float: {listed}"
        )
