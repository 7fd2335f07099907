"""`dense_resource` blobs of an .mlir file read lazily: their hex digits stay
in the mapped input (`weights.HexWeight`), checked at parse but not kept
decoded; printed back as resources they are copied through as written, and
exported to ONNX they are decoded a piece at a time. Built at run time: a
64 MiB float32 weight (128 MiB of hex)."""

from __future__ import annotations

import mmap
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.weights import HexWeight

ELEMENTS = 16 << 20
DECODED_BYTES = ELEMENTS * 4
SPECIAL_BITS = np.array(
    [0x7FC00001, 0xFFC12345, 0x7F800001, 0x80000000, 0x7F800000, 0xFF800000, 1],
    dtype=np.uint32,
)
"""NaN payloads (quiet, negative, signalling), -0.0, +-inf, the least denormal."""

PEAK_CHILD = """
import runpy, sys
sys.argv = ["graph-opt", *sys.argv[1:]]
try:
    runpy.run_module("graph_opt", run_name="__main__", alter_sys=True)
finally:
    status = open("/proc/self/status").read()
    print("VmHWM", status.split("VmHWM:")[1].split()[0], file=sys.stderr)
"""


def weight_module(values: np.ndarray) -> ModuleOp:
    constant = ConstantOp.from_array(values)
    function = func.FuncOp("weight", (([], [constant.output.type])))
    function.body.block.add_ops([constant, func.ReturnOp(constant)])
    return ModuleOp([function])


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, np.ndarray]:
    values = np.random.default_rng(0).standard_normal(ELEMENTS, np.float32)
    values[: len(SPECIAL_BITS)] = SPECIAL_BITS.view(np.float32)
    path = tmp_path_factory.mktemp("lazy") / "big.mlir"
    api.save(weight_module(values), path, weights_as_resources=64)
    return path, values


def blob_text(path: Path) -> bytes:
    """The digits of the file's one resource blob, as written."""
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=1) as text:
        start = text.find(b'"0x', text.find(b"{-#")) + 3
        return text[start : text.find(b'"', start)]


def graph_opt_peak_kb(*args: str) -> tuple[subprocess.CompletedProcess, int]:
    result = subprocess.run(
        [sys.executable, "-c", PEAK_CHILD, *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    peak = result.stderr.rsplit("VmHWM", 1)[1].split()[0]
    return result, int(peak)


def test_print_back_copies_the_blob_and_never_holds_it_decoded(big, tmp_path):
    path, values = big
    small = tmp_path / "small.mlir"
    api.save(weight_module(values[:64]), small, weights_as_resources=64)
    out = tmp_path / "out.mlir"
    pipeline = ("-p", "canonicalize", "--weights-as-resources")
    baseline, base_kb = graph_opt_peak_kb(str(small), *pipeline, "-o", str(out))
    assert baseline.returncode == 0, baseline.stderr
    result, peak_kb = graph_opt_peak_kb(str(path), *pipeline, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert blob_text(out) == blob_text(path)
    assert (peak_kb - base_kb) * 1024 < DECODED_BYTES / 2


def test_a_loaded_blob_is_decoded_only_when_read_and_bit_exact(big):
    path, values = big
    module = api.load(path)
    (constant,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert type(constant.value.data.data) is HexWeight
    got = constant.to_array()
    assert got.view(np.uint32)[: len(SPECIAL_BITS)].tolist() == SPECIAL_BITS.tolist()
    assert np.array_equal(got.view(np.uint32), values.view(np.uint32))


def test_a_blob_of_text_in_memory_is_decoded_at_parse(big):
    """Holding the digits of bytes read (not mapped) would keep twice the
    weight: such a blob is decoded, as before."""
    path, values = big
    module = api.parse(path.read_bytes())
    (constant,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert type(constant.value.data.data) is bytes
    assert constant.value.data.data == values.tobytes()


def test_onnx_export_of_a_lazy_blob_is_the_eager_bytes(big, tmp_path):
    path, _ = big
    lazy, eager = tmp_path / "lazy.onnx", tmp_path / "eager.onnx"
    api.save(api.load(path), lazy)
    api.save(api.parse(path.read_text()), eager)  # (a string: decoded at parse)
    assert lazy.read_bytes() == eager.read_bytes()


SMALL_TYPE = "tensor<1024xf32>"
GOOD_DIGITS = "04000000" + "3F800000" * 1024


@pytest.mark.parametrize(
    "digits, message",
    [
        (GOOD_DIGITS + "0", "not a hex string"),
        (GOOD_DIGITS[:-1] + "G", "not a hex string"),
        ("03000000" + GOOD_DIGITS[8:], "alignment 3 is not a power of two"),
        (GOOD_DIGITS + "00000000", "holds 4100 bytes, tensor<1024xf32> needs 4096"),
    ],
    ids=["odd-length", "not-hex", "alignment", "size"],
)
def test_a_malformed_large_blob_is_refused_in_one_line(tmp_path, digits, message):
    path = tmp_path / "bad.mlir"
    path.write_text(
        f"func.func @f() -> {SMALL_TYPE} {{\n"
        f"  %0 = nn.constant dense_resource<w0> : {SMALL_TYPE}\n"
        f"  func.return %0 : {SMALL_TYPE}\n}}\n"
        f'{{-#\n  dialect_resources: {{\n    builtin: {{\n      w0: "0x{digits}"\n'
        "    }\n  }\n#-}\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "graph_opt", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "dense_resource<w0>" in lines[0] and message in lines[0]


def test_negative_a_blob_like_string_in_a_comment_is_read_as_written(tmp_path):
    """A comment's `key: "0x..."` is cut too, found out (no blob `key`), and
    the whole text parsed again: the module is the text's."""
    values = np.arange(1024, dtype=np.float32)
    path = tmp_path / "commented.mlir"
    api.save(weight_module(values), path, weights_as_resources=64)
    path.write_text(f'// note: "0x{"AB" * 4096}"\n' + path.read_text())
    module = api.load(path)
    (constant,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert type(constant.value.data.data) is bytes
    assert np.array_equal(constant.to_array(), values)


def test_negative_a_dense_literal_in_a_comment_keeps_the_resource_keys(tmp_path):
    """The parse of the whole text after a cut the fast path did not read
    starts from the blob store as it was (the keys the first parse declared,
    declared again, were renamed `w0_0`: no blob of that name)."""
    values = np.arange(1024, dtype=np.float32)
    path = tmp_path / "commented.mlir"
    api.save(weight_module(values), path, weights_as_resources=64)
    path.write_text(f'// dense<"0x{"AB" * 4096}">\n' + path.read_text())
    (constant,) = [op for op in api.load(path).walk() if isinstance(op, ConstantOp)]
    assert np.array_equal(constant.to_array(), values)
