"""bench/quantize_trace.py: the tensors where an int8 graph picks other levels
than its fake-quant graph evaluated in float64, each tensor on its own (fed
the int8 graph's levels of its inputs), and how near a tie each flip was."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, i32

from bench.quantize_trace import (
    activation_fake_quants,
    prepare,
    quantized_input,
    record_flips,
)
from graph_opt.dialects.nn.qint import RescaleOp
from tests.quantization.test_precise_reference import quantized_resnet

F32 = np.float32


@pytest.fixture
def fake_quant_resnet(tmp_path):
    return quantized_resnet(tmp_path)


def inputs(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.standard_normal((1, 3, 16, 16)).astype(F32) for _ in range(count)]


def test_every_requantized_tensor_is_paired_and_flips_only_at_ties(fake_quant_resnet):
    fake_quants = activation_fake_quants(fake_quant_resnet)
    traced = prepare(fake_quant_resnet)
    assert list(traced.tensors) == fake_quants  # this ResNet has no max pool
    producers = [t.producer for t in traced.tensors.values()]
    assert producers[0] == "input" and producers[-1] == "nn.gemm"
    assert producers.count("nn.fused_conv+relu") == 5
    for i, x in enumerate(inputs(4)):
        record_flips(traced, i, x)
    assert all(t.tie < 1e-5 for t in traced.tensors.values() if t.flips)


def test_a_rescale_that_computes_something_else_is_found_where_it_is(
    fake_quant_resnet,
):
    traced = prepare(fake_quant_resnet)
    requantize = next(
        op
        for op in traced.int8_module.walk()
        if isinstance(op, RescaleOp)
        and op.output.name_hint.startswith("traced")
        and str(op.output.type.element_type) == "i8"
    )
    multipliers = [int(m * 0.97) for m in requantize.multipliers]
    requantize.properties["multiplier"] = DenseArrayBase.from_list(i32, multipliers)
    for i, x in enumerate(inputs(2)):
        record_flips(traced, i, x)
    off = [op for op, t in traced.tensors.items() if t.flips and t.tie > 1e-3]
    assert [op.output.name_hint for op in off] == [requantize.output.name_hint]
    (entry,) = [traced.tensors[op] for op in off]
    assert entry.first_input == 0 and entry.levels >= 1


def test_negative_an_unchanged_int8_graph_has_no_far_flip(fake_quant_resnet):
    traced = prepare(fake_quant_resnet)
    for i, x in enumerate(inputs(2)):
        record_flips(traced, i, x)
    assert not [t for t in traced.tensors.values() if t.tie > 1e-3]


def test_a_quantized_input_is_on_the_input_grid(fake_quant_resnet):
    traced = prepare(fake_quant_resnet)
    (x,) = inputs(1)
    quantized = quantized_input(traced.int8_module, x)
    assert quantized.dtype == F32 and not np.array_equal(quantized, x)
    assert np.array_equal(quantized_input(traced.int8_module, quantized), quantized)
