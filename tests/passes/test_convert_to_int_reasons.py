"""convert-to-int names, for each conv or matrix product it leaves float, why."""

from __future__ import annotations

import pytest

from graph_opt import api
from graph_opt.remarks import GraphOptWarning

INPUT_FQ = "%xq = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>"
OUTPUT_FQ = "%yq = nn.fake_quant %y {min = array<f32: -4.0>, max = array<f32: 4.0>, num_bits = 8 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>"


def module(weight_fq: str, input_fq: bool = True, output_fq: bool = True):
    x = "%xq" if input_fq else "%x"
    result = "%yq" if output_fq else "%y"
    return api.parse(f"""
    func.func @main(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {{
      {INPUT_FQ}
      %w = nn.constant dense<[[0.5, -0.25], [1.0, 0.75]]> : tensor<2x2xf32>
      %wq = nn.fake_quant %w {{{weight_fq}}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %y = nn.matmul {x}, %wq : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
      {OUTPUT_FQ if output_fq else ""}
      func.return {result} : tensor<1x2xf32>
    }}
    """)


SYMMETRIC = "min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64"


@pytest.mark.parametrize(
    "weight_fq, input_fq, output_fq, reason",
    [
        ("min = array<f32: -1.0, -0.5>, max = array<f32: 0.5, 1.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 1 : i64",
         True, True, r"different zero points .*quantize\{symmetric=true\}"),
        ("min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 12 : i64",
         True, True, "12 bits"),
        (SYMMETRIC, False, True, "its input has no fake quantization"),
        (SYMMETRIC, True, False, "its result has no fake quantization"),
    ],
)  # fmt: skip
def test_reason_of_a_float_layer(weight_fq, input_fq, output_fq, reason):
    m = module(weight_fq, input_fq, output_fq)
    statistics: list = []
    with pytest.warns(GraphOptWarning, match=f"nn.matmul y: .*{reason}"):
        api.run(m, "convert-to-int", statistics=statistics)
    (stats,) = statistics
    assert [k for k in stats.counters if k.startswith("left float: ")] != []
    assert "nn.matmul" in api.to_mlir(m)


def test_negative_converted_layer_reports_nothing_left():
    m = module(SYMMETRIC)
    statistics: list = []
    api.run(m, "convert-to-int", statistics=statistics)
    (stats,) = statistics
    assert stats.counters["convolutions and matrix products float"] == 0
    assert not any(k.startswith("left float") for k in stats.counters)
    assert "nn.qmatmul" in api.to_mlir(m)
