"""fold-bn's batch-norm arithmetic: the parameters read as one buffer
(`float64_rows`) give the bits of converting each array, and the affine map is
the formula fold-bn always used, bit for bit, special floats included."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.passes.fold_bn.patterns.channels import batch_norm_affine
from graph_opt.passes.fold_bn.patterns.weights import float64_rows

DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def constant(array: np.ndarray) -> ConstantOp:
    return ConstantOp.holding(from_numpy(array, element_type(array.dtype)))


def params(dtype, channels: int):
    """Four arrays of one dtype, any bits (NaNs, infinities, -0.0, denormals)."""
    width = np.dtype(dtype).itemsize
    raw = hnp.arrays(np.dtype(f"u{width}"), (4, channels))
    return raw.map(lambda bits: bits.view(dtype))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), channels=st.integers(1, 9))
def test_rows_read_at_once_are_the_arrays_converted(dtype, data, channels):
    arrays = data.draw(params(dtype, channels))
    rows = float64_rows([constant(a) for a in arrays])
    assert same_bits(rows, np.array(list(arrays), dtype=np.float64))


def test_rows_of_mixed_types_and_splats_are_converted_one_by_one():
    half = np.array([1.5, -2.0, 3.0], dtype=np.float16)
    single = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    f32 = element_type(np.dtype(np.float32))
    splat = ConstantOp.holding(  # one stored element for a tensor<3xf32>
        dense_elements(tensor_type(f32, (3,)), np.float32(7.0).tobytes())
    )
    rows = float64_rows([constant(half), constant(single), splat])
    expected = np.array([half, single, np.full(3, 7.0, np.float32)], np.float64)
    assert same_bits(rows, expected)


def affine_as_before(gamma, beta, mean, variance, epsilon):
    """fold-bn's formula before the parameters came as one array."""
    params = np.array((gamma, beta, mean, variance), dtype=np.float64)
    gamma, beta, mean, variance = params
    denominator = variance + epsilon
    if not (denominator > 0).all():
        return "variance + epsilon is not positive"
    scale = gamma / np.sqrt(denominator)
    return scale, beta - mean * scale


@settings(max_examples=200, deadline=None)
@given(
    arrays=params(np.float32, 4),
    epsilon=st.sampled_from([1e-5, 1e-3, 0.0, float(np.float32(1e-5))]),
)
def test_affine_is_the_old_formula_bit_for_bit(arrays, epsilon):
    rows = float64_rows([constant(a) for a in arrays])
    found = batch_norm_affine(rows, epsilon)
    expected = affine_as_before(*arrays, epsilon)
    if isinstance(expected, str):
        assert found == expected
        return
    assert same_bits(found.scale, expected[0])
    assert same_bits(found.shift, expected[1])
