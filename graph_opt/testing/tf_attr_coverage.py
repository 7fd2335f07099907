"""The TensorFlow attribute page (docs/frontends/tensorflow-attributes.md),
generated at docs build (docs/hooks/tf_attr_coverage.py) from TensorFlow's op
registry and `frontend.tensorflow.attr_support`."""

from __future__ import annotations

from collections import Counter

from graph_opt.formats.tensorflow.attr_support import (
    ATTRS,
    DTYPES,
    REFUSED_OPS,
    input_implied,
)
from graph_opt.formats.tensorflow.op_defs import op_defs
from graph_opt.formats.tensorflow.op_table import IMPORTERS, load_mappings
from graph_opt.formats.tensorflow.tensors import shape_dims

INPUT_IMPLIED = "from the inputs"


def rows() -> list[tuple[str, str, str, str, str]]:
    """(op, attribute, its OpDef type and default, handling, note) of every
    attribute of every mapped op."""
    import graph_opt.formats.tensorflow.control_flow  # noqa: F401 (If, While, calls)

    load_mappings()
    table = []
    for op in sorted(IMPORTERS):
        op_def = op_defs()[op]
        implied = input_implied(op_def)
        for attr in op_def.attr:
            rule = ATTRS.get(op, {}).get(attr.name)
            kind = attr.type + (" = " + _default(attr) if attr.HasField("default_value") else "")  # fmt: skip
            if rule is None and attr.name in implied:
                is_type = attr.type in ("type", "list(type)")
                note = DTYPES.note if is_type else "the number of inputs"
                table.append((op, attr.name, kind, INPUT_IMPLIED, note))
            elif rule is not None:
                table.append((op, attr.name, kind, rule.how, rule.note))
    return table


def _default(attr) -> str:
    value = attr.default_value
    field = value.WhichOneof("value")
    if field == "list":
        return "[" + ", ".join(str(v) for v in value.list.i) + "]"
    if field == "s":
        return repr(value.s.decode())
    if field == "b":
        return str(value.b).lower()
    if field == "shape":
        dims = shape_dims(value.shape)
        return "unknown rank" if dims is None else str(dims)
    if field == "type":
        from graph_opt.formats.tensorflow.tensors import dtype_name

        return dtype_name(value.type).removeprefix("DT_").lower()
    return str(getattr(value, field))


def coverage_page() -> str:
    table = rows()
    counts = Counter(how for *_, how, _ in table)
    summary = "; ".join(f"{how}: {n}" for how, n in sorted(counts.items()))
    lines = [
        "# TensorFlow attributes",
        "",
        "What the TensorFlow import does with each attribute of each op it maps,",
        "read from TensorFlow's op registry and `graph_opt/formats/tensorflow/attr_support.py`",
        "when the site is built. An attribute that types or sizes an input",
        "follows the inputs; every other one is imported (every allowed value,",
        "exactly), has no effect on the results (the note says why), or is",
        "imported with the values the note names refused. A refused value is an",
        "error naming the op, the attribute, the value and the nodes, all of a",
        "graph's at once (`unsupported attribute values: GatherNd",
        "bad_indices_policy=IGNORE (node 'g'), ...`), or, with",
        "`--allow-tf-opaque`, an `nn.opaque` of the node.",
        "`tests/formats/tensorflow/test_tf_attr_support.py` fails on an attribute",
        "of a mapped op that is neither.",
        "",
        f"{len({op for op, *_ in table})} ops, {len(table)} attributes: {summary}.",
        f"Type attributes that follow the inputs take {DTYPES.note}.",
        "",
        "| op | attribute | type = default | handling | note |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op, name, kind, how, note in table:
        if how != INPUT_IMPLIED:
            lines.append(f"| `{op}` | `{name}` | `{kind}` | {how} | {note} |")
    lines += [
        "",
        "## Ops refused whole",
        "",
        "These have no mapping; the error listing unsupported ops gives the reason",
        "(`unsupported TensorFlow ops: MaxPool3DGrad (1: ...)`).",
        "",
        "| op | why |",
        "| --- | --- |",
    ]
    lines += [f"| `{op}` | {why} |" for op, why in sorted(REFUSED_OPS.items())]
    return "\n".join(lines) + "\n"
