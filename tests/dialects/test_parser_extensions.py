"""Dense arrays of floats parse MLIR's hexadecimal literals, which xDSL prints
for NaN and infinities: a fake quantization with such bounds round-trips."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, f16, f32, f64, i32
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.interpreter import run_function
from graph_opt.quantization.fake_quant_math import fake_quant
from graph_opt.xdsl_compat.parser import CompatParser


def printed(attr) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


def parsed(text: str):
    return CompatParser(Context(), text).parse_attribute()


@pytest.mark.parametrize(
    "element, dtype", [(f16, np.float16), (f32, np.float32), (f64, np.float64)]
)
def test_special_values_round_trip_through_xdsl_printer(element, dtype):
    values = [float("nan"), float("inf"), float("-inf"), -0.0, 1.5, 1e-3]
    attr = DenseArrayBase.from_list(element, values)
    text = printed(attr)
    assert "0x" in text  # xDSL's own printer writes the hexadecimal form
    back = parsed(text)
    assert back == attr
    np.testing.assert_array_equal(
        np.array(back.get_values(), dtype), np.array(values, dtype)
    )


def test_negative_integers_and_decimals_parse_as_before():
    assert parsed("array<i32: 1, -2, 0x10>") == DenseArrayBase.from_list(
        i32, [1, -2, 16]
    )
    assert parsed("array<f32: 1.0, -2.5>") == DenseArrayBase.from_list(f32, [1.0, -2.5])
    with pytest.raises(Exception, match="Expected float literal"):
        parsed("array<f32: nan>")


def test_fake_quant_with_infinite_bound_round_trips_and_runs():
    module = api.parse("""
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = nn.fake_quant %x {min = array<f32: 0xFF800000>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<3xf32>) -> tensor<3xf32>
      func.return %0 : tensor<3xf32>
    }
    """)
    again = api.parse(api.to_mlir(module))
    (op,) = [o for o in again.walk() if isinstance(o, FakeQuantOp)]
    assert np.isneginf(op.mins[0])
    x = np.array([-1.0, 0.0, 0.5], np.float32)
    with np.errstate(all="ignore"):
        expected = fake_quant(x, [-np.inf], [1.0], 8, False)
    np.testing.assert_array_equal(run_function(again, [x])[0], expected)


@pytest.mark.parametrize(
    "text, error",
    [
        ("dense<1.0> : tensor<?xf32>", "should have a static shape"),
        ("dense<1.0> : f32", "Expected memref, vector or tensor type"),
    ],
)
def test_negative_dense_literal_types_refused_as_xdsl_does(text, error):
    """The cached constraint refuses what xDSL's own check does."""
    with pytest.raises(Exception, match=error):
        parsed(text)


def test_dense_literals_parse_to_what_xdsl_prints():
    for attr_text in ["dense<[1, 2]> : tensor<2xi32>", "dense<1.5> : tensor<2x3xf32>",
                      'dense<"0x0000803F"> : tensor<1xf32>', "dense<true> : vector<4xi1>"]:  # fmt: skip
        attr = parsed(attr_text)
        assert parsed(printed(attr)) == attr


@pytest.mark.parametrize(
    "literal, data",
    [
        ("dense<true>", b"\x01\x01\x01"),
        ("dense<[true, false, true]>", b"\x01\x00\x01"),
        ('dense<"0xFF00FF">', b"\x01\x00\x01"),
        ('dense<"0xFF">', b"\x01\x01\x01"),
    ],
)
def test_i1_elements_parse_to_bytes_zero_and_one(literal, data):
    """As numpy and the importers store them (xDSL 0.74 packs true as 0xFF), in
    xDSL's parser and in the fast parser's."""
    text = f"{literal} : tensor<3xi1>"
    assert parsed(text).data.data == data
    module = api.parse(
        "func.func @f() -> tensor<3xi1> {\n"
        f"  %c = nn.constant {text}\n"
        "  func.return %c : tensor<3xi1>\n}"
    )
    (constant,) = [op for op in module.walk() if op.name == "nn.constant"]
    assert constant.properties["value"].data.data == data
