"""Every attribute of every mapped TensorFlow op is input-implied or declared
(imported, without effect, or with refused values), with a reason; refused
values are listed together, by op, attribute and value."""

from __future__ import annotations

import pytest

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.formats.tensorflow.attr_support import (
    ATTRS,
    IMPORTED,
    NO_EFFECT,
    PARTLY,
    REFUSED_OPS,
    input_implied,
)
from graph_opt.formats.tensorflow.op_defs import op_defs
from graph_opt.formats.tensorflow.op_table import IMPORTERS, load_mappings
from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef
from graph_opt.remarks import GraphOptWarning


def mapped_ops() -> list[str]:
    import graph_opt.formats.tensorflow.control_flow  # noqa: F401 (If, While, calls)

    load_mappings()
    return sorted(IMPORTERS)


def test_every_mapped_op_is_registered():
    assert [op for op in mapped_ops() if op not in op_defs()] == []


@pytest.mark.parametrize("op", mapped_ops())
def test_every_attribute_is_implied_or_declared(op: str):
    op_def = op_defs()[op]
    implied = input_implied(op_def)
    declared = ATTRS.get(op, {})
    undeclared = [
        a.name for a in op_def.attr if a.name not in implied and a.name not in declared
    ]
    assert undeclared == [], f"{op}: declare {undeclared} in attr_support.ATTRS"


def test_declarations_name_real_attributes_of_mapped_ops():
    mapped = set(mapped_ops())
    stale = [
        f"{op}.{name}"
        for op, rules in ATTRS.items()
        for name in rules
        if op not in mapped or name not in {a.name for a in op_defs()[op].attr}
    ]
    assert stale == []


def test_ops_refused_whole_are_registered_and_not_mapped():
    assert [op for op in REFUSED_OPS if op not in op_defs()] == []
    assert set(REFUSED_OPS) & set(mapped_ops()) == set()


def test_every_declaration_says_why():
    for op, rules in ATTRS.items():
        for name, rule in rules.items():
            assert rule.how in (IMPORTED, NO_EFFECT, PARTLY), (op, name)
            assert (rule.refused is not None) == (rule.how == PARTLY), (op, name)
            if rule.how != IMPORTED:
                assert rule.note, (op, name)


def graph(*nodes: str) -> GraphDef:
    graph_def = GraphDef()
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = DATA_TYPES["DT_FLOAT"]
    x.attr["shape"].shape.dim.add(size=2)
    x.attr["shape"].shape.dim.add(size=4)
    for text in nodes:
        name, op, *attrs = text.split()
        node = graph_def.node.add(name=name, op=op, input=["x"])
        node.attr["T"].type = DATA_TYPES["DT_FLOAT"]
        for attr in attrs:
            key, value = attr.split("=")
            node.attr[key].s = value.encode()
    return graph_def


def test_refused_values_are_listed_together():
    """Two nodes with one refused value and an unsupported op: one line names all."""
    graph_def = graph(
        "a SpaceToDepth data_format=NCHW_VECT_C",
        "b SpaceToDepth data_format=NCHW_VECT_C",
        "c Bogus",
    )
    graph_def.node[1].attr["block_size"].i = 2
    graph_def.node[2].attr["block_size"].i = 2
    with pytest.raises(FrontendError) as error:
        import_graph_def(graph_def, outputs=["a", "b", "c"], validate=False)
    message = str(error.value)
    assert "\n" not in message
    assert "unsupported TensorFlow ops: Bogus (1)" in message
    assert (
        "unsupported attribute values: SpaceToDepth data_format=NCHW_VECT_C "
        "(node 'a' and 1 more)" in message
    )


def test_refused_dtype_is_named():
    graph_def = graph("n Neg")
    graph_def.node[1].attr["T"].type = DATA_TYPES["DT_COMPLEX64"]
    with pytest.raises(FrontendError, match=r"Neg T=complex64 \(node 'n'\)"):
        import_graph_def(graph_def, outputs=["n"], validate=False)


def test_refused_value_becomes_opaque_when_allowed_and_is_said():
    graph_def = graph("a SpaceToDepth data_format=NCHW_VECT_C")
    graph_def.node[1].attr["block_size"].i = 2
    with pytest.warns(
        GraphOptWarning,
        match=r"1 mapped TensorFlow nodes kept as nn.opaque: SpaceToDepth 'a' "
        r"\(data_format=NCHW_VECT_C: ",
    ):
        module = import_graph_def(graph_def, outputs=["a"], allow_opaque=True)
    assert "nn.opaque" in str(module) and '"SpaceToDepth"' in str(module)


def test_docs_page_lists_every_declared_attribute():
    from graph_opt.testing.tf_attr_coverage import coverage_page

    page = coverage_page()
    for op, rules in ATTRS.items():
        for name, rule in rules.items():
            assert f"| `{op}` | `{name}` |" in page, (op, name)
            assert rule.note in page
    assert "| `TensorArrayV3` | `element_shape` | `shape = unknown rank` |" in page
    for op, why in REFUSED_OPS.items():
        assert f"| `{op}` | {why} |" in page
