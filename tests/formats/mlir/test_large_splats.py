"""A splat above COMPACT_SPLAT_BYTES stays one element, read by the fast parser
(nn.constant) or xDSL's (any attribute): the same module both ways, the right
values, and nothing expanded; smaller splats are expanded as before."""

from __future__ import annotations

import numpy as np
import pytest

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.formats.mlir.parser import FastParser
from graph_opt.xdsl_compat.parser import COMPACT_SPLAT_BYTES, FloatBitsParser

CTX = api.context()
LARGE = "2048x1024"  # above COMPACT_SPLAT_BYTES for every element type

CASES = [
    ("1.5", "f32", np.float32(1.5)),
    ('"0x0000C0BF"', "f32", np.float32(-1.5)),
    ("-0.0", "f64", np.float64(-0.0)),
    ("-3", "i32", np.int32(-3)),
    ("255", "i8", np.int8(-1)),
    ('"0x0300"', "i16", np.int16(3)),
    ("true", "i1", np.bool_(True)),
]


def constant_text(literal: str, element: str, shape: str) -> str:
    value_type = f"tensor<{shape}x{element}>"
    return (
        f"func.func @f() -> {value_type} {{\n"
        f"  %0 = nn.constant dense<{literal}> : {value_type}\n"
        f"  func.return %0 : {value_type}\n}}\n"
    )


def constants(text: str) -> list:
    modules = [
        parser(CTX, text).parse_module() for parser in (FloatBitsParser, FastParser)
    ]
    return [next(op for op in m.walk() if isinstance(op, ConstantOp)) for m in modules]


@pytest.mark.parametrize("literal, element, expected", CASES, ids=[c[0] for c in CASES])
def test_a_large_splat_is_one_element_both_ways(literal, element, expected):
    by_xdsl, by_fast_path = constants(constant_text(literal, element, LARGE))
    assert by_xdsl.value == by_fast_path.value
    assert len(by_xdsl.value.data.data) == np.dtype(type(expected)).itemsize
    values = to_numpy(by_xdsl.value)
    assert values.shape == (2048, 1024)
    assert values[123, 456].tobytes() == np.asarray(expected).tobytes()


def test_a_small_splat_is_expanded_both_ways():
    count = COMPACT_SPLAT_BYTES // 4  # exactly the bound: still expanded
    by_xdsl, by_fast_path = constants(constant_text("2.0", "f32", str(count)))
    assert by_xdsl.value == by_fast_path.value
    assert len(by_xdsl.value.data.data) == 4 * count


def test_a_value_the_type_cannot_hold_is_xdsls_error():
    with pytest.raises(Exception, match="out of range|cannot|Integer value"):
        FloatBitsParser(CTX, constant_text("300", "i8", LARGE)).parse_module()
