"""`dense_from_tensor` remembers each element type and dims' dense type and
raw size: tensors that share them still get their own data and checks."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.types import dense_from_tensor


def test_same_layout_different_data_and_types():
    a = dense_from_tensor(
        numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "a")
    )
    b = dense_from_tensor(numpy_helper.from_array(np.ones((2, 3), np.float32), "b"))
    c = dense_from_tensor(numpy_helper.from_array(np.ones((2, 3), np.int32), "c"))
    assert a.type is b.type and c.type != a.type
    assert to_numpy(a).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert to_numpy(b).tolist() == [[1, 1, 1]] * 2
    assert to_numpy(c).dtype == np.int32


def test_a_known_layout_still_checks_the_raw_size():
    dense_from_tensor(numpy_helper.from_array(np.ones((2, 3), np.float32), "ok"))
    short = numpy_helper.from_array(np.ones((2, 3), np.float32), "short")
    short.raw_data = short.raw_data[:20]  # a damaged file
    with pytest.raises(FrontendError, match="'short' has 20 bytes, expected 24"):
        dense_from_tensor(short)


def test_strings_refused_every_time():
    strings = helper.make_tensor("s", TensorProto.STRING, [1], [b"x"])
    for _ in range(2):
        with pytest.raises(FrontendError, match="string tensor 's'"):
            dense_from_tensor(strings)


def test_non_raw_types_of_a_known_layout():
    """BOOL's raw bytes are not a dense attribute's (True is 0xFF there)."""
    flags = numpy_helper.from_array(np.array([True, False]), "flags")
    ints = numpy_helper.from_array(np.array([1, 0], np.int8), "ints")
    for _ in range(2):
        assert to_numpy(dense_from_tensor(flags)).tolist() == [True, False]
        assert to_numpy(dense_from_tensor(ints)).tolist() == [1, 0]
