"""What convert-to-int left float among int8 values: the ops that compute in
float on dequantized int8 activations (up to the next nn.quantize or the
function's results), other than convolutions and matrix products, which
convert_to_int reports with their reasons."""

from __future__ import annotations

from collections import Counter

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.names import op_result_names
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizeOp
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, count, record

FLOAT_OPS_STATISTICS: Statistics = {
    "ops float on int8 values": "Ops left computing in float between a dequantize and a quantize",
    "float on int8 values: {op}": "Those ops, by kind",
}


def float_ops_on_int8(module: ModuleOp, excluded: tuple[type, ...]) -> list[Operation]:
    """Ops reached from a dequantized int8 activation through float results,
    in program order, without nn.quantize, nn.dequantize and `excluded`."""
    reached: set[Operation] = set()
    work = [
        op
        for op in module.walk()
        if isinstance(op, DequantizeOp) and constant_value(op.input) is None
    ]
    while work:
        op = work.pop()
        for result in op.results:
            for use in result.uses:
                user = use.operation
                if user in reached or isinstance(user, QuantizeOp | DequantizeOp):
                    continue
                if user.results:
                    reached.add(user)
                    work.append(user)
    return [o for o in module.walk() if o in reached and not isinstance(o, excluded)]


def report_float_ops(module: ModuleOp, excluded: tuple[type, ...]) -> None:
    """A count per op kind in the statistics, and a warning summing them up."""
    ops = float_ops_on_int8(module, excluded)
    record("ops float on int8 values", len(ops))
    kinds = Counter(op.name for op in ops)
    for name, number in sorted(kinds.items()):
        count(f"float on int8 values: {name}", number)
    if not ops:
        return
    summary = ", ".join(f"{n} {name}" for name, n in sorted(kinds.items()))
    first = f"{ops[0].name} {op_result_names(ops[0])[0] or ''}".strip()
    warn(
        f"convert-to-int: left float on dequantized int8 values (no int8 form "
        f"here): {summary} (first: {first})"
    )
