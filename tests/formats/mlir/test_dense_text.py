"""dense_text against xDSL's printing of dense literals: the same text, except where
xDSL's splat test (`==` on Python floats) and the bits disagree (0.0 and -0.0
merged, equal NaNs not), where dense_text's text reads back to the same bits."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float16Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.formats.mlir.dense_text import dense_text

RNG = np.random.default_rng(0)
SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1e-8,
    3.4e38,
    65504.0,
    1e-45,
    np.nan,
    np.inf,
    -np.inf,
]


def xdsl_text(attr) -> str:
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def type_text(attr) -> str:
    return xdsl_text(attr.get_type())


def splat_by_bits(attr) -> bool:
    data, size = attr.data.data, attr.type.element_type.compile_time_size
    return data == data[:size] * (len(data) // size)


def assert_same(array: np.ndarray, element_type=None) -> None:
    attr = from_numpy(array, element_type)
    text = dense_text(attr, type_text(attr))
    if len(attr) == 0 or attr.is_splat() == splat_by_bits(attr):
        assert text == xdsl_text(attr)
        return
    (constant,) = api.parse(f"%c = nn.constant {text}").body.block.ops
    assert constant.value.data.data == attr.data.data


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floats(dtype):
    with np.errstate(over="ignore"):
        assert_same(np.array(SPECIAL, dtype))
        for scale in (1e-30, 1e-3, 1.0, 1e3, 1e30):
            assert_same((RNG.standard_normal((3, 5)) * scale).astype(dtype))


@pytest.mark.parametrize(
    "element_type",
    [
        IntegerType(1),
        IntegerType(8),
        IntegerType(32),
        IntegerType(64),
        IntegerType(8, Signedness.UNSIGNED),
    ],
)
def test_integers(element_type):
    width = element_type.width.data
    if width == 1:
        values = np.array([1, 0, 1], np.int8)
    elif element_type.signedness.data == Signedness.UNSIGNED:
        values = np.array([0, 7, 255], np.uint8)
    else:
        info = np.iinfo(f"int{width}")
        values = np.array([info.min, -1, 0, 1, info.max], f"int{width}")
    assert_same(values, element_type)


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((0, 3), np.float32),  # empty
        np.full((2, 3), 0.5, np.float32),  # splat
        np.array([0.0, -0.0], np.float32),  # splat by ==, not by bits
        np.array([np.nan, np.nan], np.float32),  # splat by bits, not by ==
        np.array([np.nan], np.float32),
        np.arange(100, dtype=np.float32).reshape(4, 25),  # nested lists
        np.arange(101, dtype=np.float32),  # hex
        np.full(200, 2.0, np.float32),  # a large splat
        np.array([0.0, -0.0] * 100, np.float32),  # hex (a splat by ==)
        np.full(200, np.nan, np.float32),  # a splat by bits (hex by ==)
        np.append(np.full(199, 2.0, np.float32), 3.0),  # the last one differs
        np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4, 1),
        np.float32(3.0).reshape(()),  # rank 0
    ],
    ids=lambda a: f"{a.shape}",
)
def test_layouts(array):
    assert_same(array)


def test_bf16_as_xdsl_prints_it():
    with np.errstate(over="ignore"):
        assert_same(np.array(SPECIAL, np.float32), BFloat16Type())


def test_other_element_types_are_left_to_xdsl():
    assert dense_text(from_numpy(np.ones(2), ComplexType(Float64Type())), "t") is None
    assert (
        dense_text(from_numpy(np.ones(2, np.float16), Float16Type()), "t") is not None
    )
    assert dense_text(from_numpy(np.ones(2), Float64Type()), "t") is not None
