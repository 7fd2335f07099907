"""Models whose tensors are stored in external files load, with their data,
read from inside the model's directory only (or the one given explicitly)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import BytesAttr

from graph_opt import api
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx import importer as onnx_import
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model, load_model

RNG = np.random.default_rng(0)


def run(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def add_model(weight: np.ndarray, constant: np.ndarray) -> onnx.ModelProto:
    """y = x + w + c, with w an initializer and c a Constant node's tensor."""
    nodes = [
        helper.make_node(
            "Constant", [], ["c"], value=numpy_helper.from_array(constant, "c")
        ),
        helper.make_node("Add", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # one onnxruntime reads
    return model


@pytest.fixture(params=["search", "visit"])
def external_data_test(request, monkeypatch):
    """Both ways of finding external data: searching the bytes or visiting the tensors."""
    limit = 1 << 40 if request.param == "search" else -1
    monkeypatch.setattr(onnx_import, "BYTES_SEARCHED_PER_ITEM", limit)


@pytest.mark.parametrize("external", [True, False])
def test_tensors_in_a_separate_file(tmp_path, external, external_data_test):
    weight = RNG.standard_normal(64).astype(np.float32)
    constant = RNG.standard_normal(64).astype(np.float32)
    model = add_model(weight, constant)
    path = tmp_path / "model.onnx"
    onnx.save_model(
        model,
        path,
        save_as_external_data=external,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=0,
    )
    assert (tmp_path / "weights.bin").exists() == external
    loaded = load_model(str(path))
    exported = export_module(import_model(loaded))
    x = RNG.standard_normal(64).astype(np.float32)
    (y,) = run(exported, {"x": x})
    np.testing.assert_allclose(y, x + weight + constant, rtol=1e-6)


def test_weights_whose_bytes_spell_location(tmp_path, external_data_test):
    """The quick test for external data may say yes when there is none."""
    text = np.frombuffer(b"location" * 32, dtype=np.float32).copy()
    model = add_model(text, np.zeros(64, np.float32))
    path = tmp_path / "model.onnx"
    onnx.save_model(model, path)
    loaded = load_model(str(path))
    np.testing.assert_array_equal(
        numpy_helper.to_array(loaded.graph.initializer[0]), text
    )


ROOT = Path(__file__).resolve().parents[3]
WEIGHT = np.arange(64, dtype=np.float32)
DECOY = np.full(64, 1e30, np.float32)
"""What a model's external file holds in the working directory instead."""


def graph_opt(*args, cwd, stdin: bytes | None = None, tool: str = "graph_opt"):
    """This checkout's command, as a process (a FIFO may block it: a timeout ends it)."""
    return subprocess.run(
        [sys.executable, "-m", tool, *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


def external_model(tmp_path: Path, location: str = "weights.bin", **keys) -> Path:
    """model/model.onnx whose weight `w` is stored in `location` (model/weights.bin
    holds WEIGHT); the working directory tmp_path holds a decoy weights.bin."""
    directory = tmp_path / "model"
    directory.mkdir(exist_ok=True)
    WEIGHT.tofile(directory / "weights.bin")
    DECOY.tofile(tmp_path / "weights.bin")
    model = add_model(WEIGHT, np.zeros(64, np.float32))
    tensor = model.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in {"location": location, **keys}.items():
        tensor.external_data.add(key=key, value=str(value))
    path = directory / "model.onnx"
    onnx.save_model(model, path)
    return path


def weight_of(module) -> np.ndarray:
    from graph_opt.dialects.nn.constant import ConstantOp

    (weight,) = [op.to_array() for op in module.walk() if isinstance(op, ConstantOp)][
        :1
    ]
    return weight


def assert_one_line(result, *fragments: str) -> str:
    assert result.returncode == 1, result
    stderr = result.stderr.decode()
    assert len(stderr.splitlines()) == 1 and "Traceback" not in stderr, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr
    return stderr


def test_stdin_model_with_external_data_needs_a_directory(tmp_path):
    """Read from the working directory, the decoy would become the weight."""
    path = external_model(tmp_path)
    result = graph_opt("-f", "onnx", cwd=tmp_path, stdin=path.read_bytes())
    assert_one_line(result, "'w'", "weights.bin", "--external-data-dir")
    given = graph_opt(
        "-f", "onnx", "--external-data-dir", path.parent, cwd=tmp_path,
        stdin=path.read_bytes(),
    )  # fmt: skip
    assert given.returncode == 0, given.stderr
    assert b"1.000000e+30" not in given.stdout and b"6.300000e+01" in given.stdout


def test_model_proto_with_external_data_needs_base_dir(tmp_path, monkeypatch):
    path = external_model(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FrontendError, match="no directory to read it from"):
        api.load(onnx.load(path, load_external_data=False))
    module = api.load(onnx.load(path, load_external_data=False), base_dir=path.parent)
    np.testing.assert_array_equal(weight_of(module), WEIGHT)


def test_an_onnx_file_reads_its_own_directory_or_the_given_one(tmp_path, monkeypatch):
    path = external_model(tmp_path)
    monkeypatch.chdir(tmp_path)
    np.testing.assert_array_equal(weight_of(api.load(path)), WEIGHT)
    np.testing.assert_array_equal(weight_of(api.load(path, base_dir=".")), DECOY)


def opaque_scan_with_external_body_weight(tmp_path: Path) -> Path:
    """An .mlir whose nn.opaque Scan keeps a body initializer stored in weights.bin."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "k"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["y_t"])],
        "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [64]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [64]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [64])],
        [numpy_helper.from_array(np.zeros(64, np.float32), "k")],
    )  # fmt: skip
    graph = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], body=body,
                          num_scan_inputs=1)],
        "g",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [64]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [64])],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = api.load(model)
    (scan,) = [op for op in module.walk() if isinstance(op, OpaqueOp)]
    holder = onnx.NodeProto.FromString(scan.serialized_attrs.data)
    tensor = holder.attribute[0].g.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    tensor.external_data.add(key="location", value="weights.bin")
    scan.serialized_attrs = BytesAttr(holder.SerializeToString())
    directory = tmp_path / "model"
    directory.mkdir()
    WEIGHT.tofile(directory / "weights.bin")
    DECOY.tofile(tmp_path / "weights.bin")
    path = tmp_path / "scan.mlir"
    path.write_text(api.to_mlir(module))
    np.savez(
        tmp_path / "in.npz",
        s0=np.zeros(64, np.float32),
        xs=np.ones((1, 64), np.float32),
    )
    return path


def test_opaque_attribute_of_an_mlir_file_needs_a_directory(tmp_path):
    path = opaque_scan_with_external_body_weight(tmp_path)
    run = ("-i", "in.npz", "-o", "out.npz")
    result = graph_opt(path, *run, cwd=tmp_path, tool="graph_opt.tools.run_main")
    assert_one_line(result, "'k'", "weights.bin", "--external-data-dir")
    assert not (tmp_path / "out.npz").exists()
    given = graph_opt(
        path, *run, "--external-data-dir", "model", cwd=tmp_path,
        tool="graph_opt.tools.run_main",
    )  # fmt: skip
    assert given.returncode == 0, given.stderr
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["s"], WEIGHT)
    with pytest.raises(FrontendError, match="'k' is stored in the external file"):
        api.load(path)


def test_a_symlink_inside_the_directory_is_read(tmp_path):
    path = external_model(tmp_path, "link.bin")
    os.symlink("weights.bin", path.parent / "link.bin")
    np.testing.assert_array_equal(weight_of(api.load(path)), WEIGHT)


@pytest.mark.parametrize(
    "target, message",
    [("/proc/self/environ", "outside the model's directory"),
     ("../weights.bin", "outside the model's directory"),
     (None, "a FIFO")],
)  # fmt: skip
def test_external_data_leaving_the_directory_or_not_a_file_is_refused(
    tmp_path, target, message
):
    """onnx 1.16 (the declared floor) reads all of these; graph-opt reads
    external data itself, so no onnx release decides."""
    path = external_model(tmp_path, "link.bin")
    if target is None:
        os.mkfifo(path.parent / "link.bin")
    else:
        os.symlink(target, path.parent / "link.bin")
    assert_one_line(graph_opt(path, cwd=tmp_path), "link.bin", message)


@pytest.mark.parametrize(
    "keys", [{"offset": 300}, {"offset": 8, "length": 256}, {"length": 1 << 40}]
)
def test_external_data_past_the_end_of_its_file_is_refused(tmp_path, keys):
    path = external_model(tmp_path, **keys)
    assert_one_line(graph_opt(path, cwd=tmp_path), "weights.bin", "past the end")


@pytest.mark.parametrize(
    "keys, message",
    [({"offset": "abc"}, "bad external offset"), ({"location": ""}, "names no file")],
)
def test_bad_external_data_keys_are_one_line(tmp_path, keys, message):
    path = external_model(tmp_path, **keys)
    assert_one_line(graph_opt(path, cwd=tmp_path), "'w'", message)


def test_external_data_of_another_size_than_the_tensor_is_refused_unread(tmp_path):
    """A tensor of 64 floats naming a whole (large) file: refused before reading it."""
    path = external_model(tmp_path)
    with open(path.parent / "weights.bin", "ab") as f:
        f.truncate(1 << 40)  # sparse: no disk used, but a read would take 1 TiB
    assert_one_line(graph_opt(path, cwd=tmp_path), "'w'", "expected 256")


def test_onnx_never_reads_the_external_data(tmp_path, monkeypatch):
    """Whatever onnx release is installed, its loader is not what reads the files."""

    def refuse(*args, **kwargs):
        raise AssertionError("onnx read external data")

    helper_module = onnx.external_data_helper
    for name in ("load_external_data_for_model", "load_external_data_for_tensor"):
        monkeypatch.setattr(helper_module, name, refuse)
    path = external_model(tmp_path)
    np.testing.assert_array_equal(weight_of(api.load(path)), WEIGHT)
    with pytest.raises(FrontendError):
        api.load(onnx.load(path, load_external_data=False))
