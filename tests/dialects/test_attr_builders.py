"""The attribute builders give what xDSL's checked constructors give, and reject what they reject."""

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.attr_builders import dense_elements, name_loc
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.dialects.nn.types import StringType


@pytest.mark.parametrize("element", [f32, i64])
def test_dense_elements_equals_checked_construction(element):
    value_type = tensor_type(element, (2, 3))
    data = np.arange(6, dtype="f4" if element == f32 else "i8").tobytes()
    first, second = dense_elements(value_type, data), dense_elements(value_type, data)
    checked = DenseIntOrFPElementsAttr(value_type, BytesAttr(data))
    assert first == checked and second == checked
    assert hash(second) == hash(checked)
    assert str(second) == str(checked)


def test_dense_elements_checks_the_data_of_every_attribute():
    scalar = tensor_type(f32, ())
    dense_elements(scalar, np.float32(1).tobytes())  # the type's first, fully checked
    with pytest.raises(VerifyException, match="zero-rank"):
        dense_elements(scalar, np.zeros(2, dtype="f4").tobytes())


def test_dense_elements_rejects_element_types_dense_cannot_hold():
    strings = TensorType(StringType(), [2])
    for _ in range(2):  # rejected every time, not only the first
        with pytest.raises(VerifyException):
            dense_elements(strings, b"ab")


def test_name_loc_equals_checked_construction():
    loc = name_loc("conv_1")
    assert loc == NameLoc(StringAttr("conv_1"), NoneAttr())
    assert str(loc) == 'loc("conv_1")'


def test_name_loc_rejects_what_is_not_a_str():
    with pytest.raises(TypeError, match="must be a str"):
        name_loc(b"conv")  # type: ignore[arg-type]


def test_dense_elements_rejects_data_that_is_not_bytes():
    value_type = tensor_type(f32, (1,))
    dense_elements(value_type, np.float32(1).tobytes())
    with pytest.raises(TypeError, match="must be bytes"):
        dense_elements(value_type, bytearray(4))  # type: ignore[arg-type]
