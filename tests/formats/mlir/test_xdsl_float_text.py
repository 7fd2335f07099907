"""Minimal reproducers of xDSL 0.74 losing float bits in MLIR text, ready to report
upstream (xdslproject/xdsl). graph-opt works around them (`FloatBitsParser`,
`BitExactPrinter`); these tests pin the behaviour to the version: after an
upgrade they fail, to say the workarounds need a recheck (and may go)."""

from __future__ import annotations

from io import StringIO

import numpy as np
import xdsl
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    TensorType,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

RECHECK = (
    "xDSL is no longer 0.74: recheck these reproducers, and FloatBitsParser and "
    "BitExactPrinter in graph-opt"
)


def xdsl_printed(attr) -> str:
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def test_xdsl_reads_a_hex_float_element_as_an_integer_value():
    """MLIR reads `0xFF800000` in a float dense literal as the bits of -inf; xDSL
    0.74 reads 4286578688.0 (and prints -inf as that very text)."""
    assert str(xdsl.__version__).startswith("0.74."), RECHECK
    attr = Parser(Context(), "dense<0xFF800000> : tensor<f32>").parse_attribute()
    assert attr.get_values() == (4286578688.0,)
    minus_inf = DenseIntOrFPElementsAttr(
        TensorType(Float32Type(), ()), BytesAttr(np.float32(-np.inf).tobytes())
    )
    assert xdsl_printed(minus_inf) == "dense<0xff800000> : tensor<f32>"


def test_xdsl_prints_f16_nan_payloads_and_signed_zeros_lossily():
    """xDSL 0.74 prints elements through Python floats: an f16 NaN's payload is
    lost, and 0.0 and -0.0 make a splat (`==` rather than the bits)."""
    assert str(xdsl.__version__).startswith("0.74."), RECHECK
    nan = DenseIntOrFPElementsAttr(
        TensorType(Float16Type(), ()), BytesAttr((0x7C01).to_bytes(2, "little"))
    )
    assert xdsl_printed(nan) == "dense<0x7e00> : tensor<f16>"
    zeros = DenseIntOrFPElementsAttr(
        TensorType(Float32Type(), (2,)),
        BytesAttr(np.array([0.0, -0.0], np.float32).tobytes()),
    )
    assert xdsl_printed(zeros) == "dense<0.000000e+00> : tensor<2xf32>"
