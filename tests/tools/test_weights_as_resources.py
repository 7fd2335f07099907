"""--weights-as-resources / `to_mlir(weights_as_resources=N)`: weights printed as
`dense_resource`s with their bytes in a `{-# dialect_resources #-}` section,
read back bit for bit; bad blobs are one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.interpreter import run_function

EXAMPLE = Path(__file__).parents[2] / "examples" / "conv_bn_relu.onnx"

NAN_PAYLOAD = np.array([0x7FC00001, 0xFFC12345], dtype=np.uint32).view(np.float32)
ARRAYS = {
    "f32": np.concatenate([np.linspace(-3, 3, 30, dtype=np.float32), NAN_PAYLOAD]),
    "f16": np.linspace(-2, 2, 24).astype(np.float16).reshape(2, 3, 4),
    "bf16": np.linspace(-2, 2, 16).astype(ml_dtypes.bfloat16),
    "f64": np.linspace(0, 1, 9).reshape(3, 3),
    "i8": np.arange(-128, 128, dtype=np.int8).reshape(16, 16),
    "u8": np.arange(0, 256, 3, dtype=np.uint8),
    "i32": np.arange(-40, 40, 3, dtype=np.int32),
    "i64": np.array([2**62, -(2**62), 7, 0, -1, 5, 9, 11], dtype=np.int64),
    "bool": np.array([True, False, False, True] * 5),
}


def constants_module(arrays: dict[str, np.ndarray]) -> ModuleOp:
    """One function returning each array as an nn.constant."""
    constants = [ConstantOp.from_array(a) for a in arrays.values()]
    types = [c.output.type for c in constants]
    function = func.FuncOp("constants", (([], types)))
    function.body.block.add_ops([*constants, func.ReturnOp(*constants)])
    return ModuleOp([function])


def arrays_of(module: ModuleOp) -> list[np.ndarray]:
    return [op.to_array() for op in module.walk() if isinstance(op, ConstantOp)]


@pytest.mark.parametrize("generic", [False, True])
def test_every_element_type_round_trips_bit_exact(generic: bool):
    module = constants_module(ARRAYS)
    text = api.to_mlir(module, generic=generic, weights_as_resources=0)
    assert "dense<" not in text
    assert text.count("dense_resource<") == len(ARRAYS)
    parsed = api.parse(text)
    for got, want in zip(arrays_of(parsed), ARRAYS.values()):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
    assert parsed.is_structurally_equivalent(module)


def test_splats_and_small_constants_stay_inline():
    arrays = {
        "splat": np.full((64, 64), 0.5, dtype=np.float32),
        "small": np.arange(4, dtype=np.float32),
        "large": np.arange(64, dtype=np.float32),
    }
    text = api.to_mlir(constants_module(arrays), weights_as_resources=64)
    assert "dense<5.000000e-01> : tensor<64x64xf32>" in text
    assert "dense<[0.000000e+00, 1.000000e+00" in text
    assert text.count("dense_resource<") == 1
    parsed = api.parse(text)
    for got, want in zip(arrays_of(parsed), arrays.values()):
        np.testing.assert_array_equal(got, want)


def test_a_shared_attribute_is_one_resource():
    weight = ConstantOp.from_array(np.arange(32, dtype=np.float32))
    twin = ConstantOp(weight.value)
    add = AddOp.create(
        operands=[weight.output, twin.output], result_types=[weight.output.type]
    )
    function = func.FuncOp("f", ([], [weight.output.type]))
    function.body.block.add_ops([weight, twin, add, func.ReturnOp(add)])
    text = api.to_mlir(ModuleOp([function]), weights_as_resources=0)
    assert text.count("dense_resource<w0>") == 2
    assert "w1" not in text
    assert api.parse(text).is_structurally_equivalent(ModuleOp([function.clone()]))


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "graph_opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_a_model_reads_back_runs_and_exports_the_same(tmp_path: Path):
    printed = run_cli(str(EXAMPLE), "--weights-as-resources")
    assert printed.returncode == 0, printed.stderr
    assert "{-#\n  dialect_resources: {\n    builtin: {" in printed.stdout
    path = tmp_path / "model.mlir"
    path.write_text(printed.stdout)
    original, reread = api.load(EXAMPLE), api.load(path)
    assert api.to_mlir(reread) == api.to_mlir(original)
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16), dtype=np.float32)
    np.testing.assert_array_equal(
        run_function(reread, [x])[0], run_function(original, [x])[0]
    )
    exported = run_cli(str(path), "-o", str(tmp_path / "out.onnx"))
    assert exported.returncode == 0, exported.stderr
    initializers = onnx.load(tmp_path / "out.onnx").graph.initializer
    want = {t.name: t for t in onnx.load(EXAMPLE).graph.initializer}
    for tensor in initializers:
        assert onnx.numpy_helper.to_array(tensor).tobytes() == (
            onnx.numpy_helper.to_array(want[tensor.name]).tobytes()
        )


def test_each_chunk_of_a_split_file_reads_its_own_resources(tmp_path: Path):
    """Resource names repeat across chunks (each print starts at w0)."""
    first = api.to_mlir(constants_module({"a": ARRAYS["i8"]}), weights_as_resources=0)
    second = api.to_mlir(constants_module({"b": ARRAYS["i32"]}), weights_as_resources=0)
    path = tmp_path / "split.mlir"
    path.write_text(first + "// -----\n" + second)
    result = run_cli(str(path), "--split-input-file")
    assert result.returncode == 0, result.stderr
    assert 'dense<"0x80818283' in result.stdout  # xDSL prints large i8 data in hex
    assert "dense<[-40, -37" in result.stdout


RESOURCE_TEXT = """func.func @f() -> tensor<2xf32> {
  %0 = nn.constant dense_resource<w0> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "BLOB"
    }
  }
#-}
"""


@pytest.mark.parametrize(
    "blob, message",
    [
        (None, "dense_resource<w0>: no blob of that name"),
        ("0x04000000", "the blob holds 0 bytes, tensor<2xf32> needs 8"),
        ("0x040000000000803F", "the blob holds 4 bytes, tensor<2xf32> needs 8"),
        ("0x0400", "the blob has no 4-byte alignment prefix"),
        ("0x030000000000803F00000040", "alignment 3 is not a power of two"),
        ("0x04000000ZZ00803F00000040", "the blob is not a hex string"),
        ("040000000000803F00000040", "Blob must be a hex string"),
    ],
)
def test_a_missing_or_malformed_blob_is_a_one_line_error(
    blob: str | None, message: str, tmp_path: Path
):
    text = RESOURCE_TEXT.replace("BLOB", blob or "")
    if blob is None:
        text = text[: text.index("{-#")]
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    result = run_cli(str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert message in result.stderr


def test_a_good_blob_reads_back():
    text = RESOURCE_TEXT.replace("BLOB", "0x040000000000803F00000040")
    (constant,) = [op for op in api.parse(text).walk() if isinstance(op, ConstantOp)]
    np.testing.assert_array_equal(constant.to_array(), [1.0, 2.0])
    assert isinstance(constant.output.type, TensorType)


@pytest.mark.parametrize(
    "args, message",
    [
        (["-t", "onnx", "-o", "out.onnx"], "an option of the MLIR output"),
        (["--elide-weights"], "an option of the MLIR output"),
        (["--weights-as-resources=-1"], "a size in bytes >= 0"),
    ],
)
def test_refused_where_it_means_nothing(args: list[str], message: str, tmp_path):
    extra = [] if "--weights-as-resources=-1" in args else ["--weights-as-resources"]
    result = subprocess.run(
        [sys.executable, "-m", "graph_opt", str(EXAMPLE), *extra, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert message in result.stderr
    assert not (tmp_path / "out.onnx").exists()
