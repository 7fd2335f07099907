"""FunctionDef bodies in GraphDef syntax: `node:out_arg:index` inputs and returns."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.functions import ARG_OP, function_body
from graph_opt.formats.tensorflow.schema import FunctionDef

FUNCTION = """
signature {
  name: "f"
  input_arg { name: "x" type: DT_FLOAT }
  input_arg { name: "p" type: DT_BOOL }
  output_arg { name: "out" type: DT_FLOAT }
  output_arg { name: "mean" type: DT_FLOAT }
}
node_def { name: "sw" op: "Switch" input: "x" input: "p" }
node_def { name: "bn" op: "FusedBatchNormV3" input: "sw:output_true:0" input: "^sw" }
node_def { name: "split" op: "Split" input: "bn:y:0" }
node_def { name: "sum" op: "AddV2" input: "split:output:1" input: "sw:output_false:0" }
ret { key: "out" value: "sum:z:0" }
ret { key: "mean" value: "bn:batch_mean:0" }
"""


def parse(text: str) -> FunctionDef:
    return text_format.Parse(text, FunctionDef())


def test_inputs_and_returns_use_flat_output_indices():
    body = function_body(parse(FUNCTION))
    assert body.args == ["x", "p"]
    assert [(n.name, n.op) for n in body.nodes[:2]] == [("x", ARG_OP), ("p", ARG_OP)]
    inputs = {n.name: list(n.input) for n in body.nodes}
    assert inputs["bn"] == ["sw:1", "^sw"]
    assert inputs["split"] == ["bn:0"]
    assert inputs["sum"] == ["split:1", "sw:0"]
    assert body.outputs == ["sum:0", "bn:1"]


def test_unknown_output_argument_is_an_error():
    text = FUNCTION.replace("bn:batch_mean:0", "bn:average:0")
    with pytest.raises(
        FrontendError, match="'bn' \\(FusedBatchNormV3\\) has no output 'average'"
    ):
        function_body(parse(text))


def test_missing_return_is_an_error():
    text = FUNCTION.replace('ret { key: "mean" value: "bn:batch_mean:0" }', "")
    with pytest.raises(FrontendError, match="does not say what output 'mean' returns"):
        function_body(parse(text))
