"""The corpus of real TensorFlow models (corpus/, made by make_corpus.py): every
form imports, exports to ONNX that onnxruntime runs with TensorFlow's outputs,
and every pass alone keeps them."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.conv import ConvolutionBase
from graph_opt.dialects.nn.elementwise import AddOp, MulOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.interpreter import run_function
from graph_opt.passes import get_all_passes
from graph_opt.passes.common.constant_eval import computed_constant
from graph_opt.passes.fold_bn.fold_bn import explain_fold_bn
from graph_opt.remarks import GraphOptWarning

CORPUS = Path(__file__).parent / "corpus"
MODELS = sorted(p.stem for p in CORPUS.glob("*.npz"))
FORMS = sorted(
    p.name
    for p in CORPUS.iterdir()
    if p.suffix in (".pb", ".pbtxt") or p.name.endswith(("_saved_model", "_export"))
)  # frozen with lowered control flow, `_functional`, text, SavedModel, model.export
PASSES = [
    "fold-bn",
    "fold-constants",
    "prune",
    "fuse-ops",
    "convert-layout",
    "refine-shapes",
    "optimize",
]
CNNS = [m for m in MODELS if m not in ("nested_loops", "text_lstm")]


def model_of(form: str) -> str:
    name = form.split(".")[0]
    for suffix in ("_functional", "_saved_model", "_export"):
        name = name.removesuffix(suffix)
    return name


@cache
def reference(model: str):
    data = np.load(CORPUS / f"{model}.npz")
    inputs = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    outputs = [str(name) for name in data["outputs"]]
    expected = [data[f"out:{i}"] for i in range(len(outputs))]
    return inputs, outputs, expected


def load(form: str) -> ModuleOp:
    if form.endswith(("_saved_model", "_export")):
        return import_saved_model(CORPUS / form)
    _, outputs, _ = reference(model_of(form))
    return import_graph_def(load_graph_def(str(CORPUS / form)), outputs=outputs)


def run_onnx(model_bytes: bytes, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Inputs by placeholder name; a SavedModel's are its signature's keys, which
    the corpus's models name as their placeholders."""
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: inputs[i.name] for i in session.get_inputs()})


def assert_matches_tensorflow(actual, expected) -> None:
    """Max abs error at most 1e-4 of the largest output value."""
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype, (a.shape, e.shape)
        bound = 1e-4 * max(float(np.max(np.abs(e))), 1e-30)
        assert float(np.max(np.abs(a - e))) <= bound


def test_the_corpus_is_complete():
    assert {m for m in MODELS} >= {
        "mobilenet_v2", "mobilenet_v3", "resnet50", "efficientnet_b0",
        "densenet", "text_lstm", "nested_loops", "dilated_conv_bn", "qat_conv_bn",
    }  # fmt: skip
    for model in MODELS:
        assert (CORPUS / f"{model}.pb").exists()
        assert (CORPUS / f"{model}_saved_model" / "saved_model.pb").exists()
        data = np.load(CORPUS / f"{model}.npz")
        assert sorted(
            k.removeprefix("in:") for k in data.files if k.startswith("in:")
        ) == list(
            data["signature_inputs"]
        )  # the harness feeds SavedModels by these names
    for model in ("text_lstm", "nested_loops"):
        assert (CORPUS / f"{model}_functional.pb").exists()
    for model in ("text_lstm", "dilated_conv_bn", "resnet50"):
        assert (CORPUS / f"{model}_export" / "saved_model.pb").exists()


@pytest.mark.parametrize("form", FORMS)
def test_onnx_export_matches_tensorflow(form: str):
    inputs, _, expected = reference(model_of(form))
    model = export_module(load(form)).SerializeToString()
    if form.endswith("_export"):  # a free batch dim: run on a batch of 2
        data = np.load(CORPUS / f"{model_of(form)}.npz")
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        (first,) = session.get_inputs()
        assert first.shape[0] is None or isinstance(first.shape[0], str)
        outputs = session.run(None, {first.name: data["export_in"]})
        assert_matches_tensorflow(outputs, [data["export_out"]])
        return
    assert_matches_tensorflow(run_onnx(model, inputs), expected)


@pytest.mark.parametrize(
    "form", ["mobilenet_v2.pb", "nested_loops.pb", "text_lstm_saved_model"]
)
def test_first_command_converts_to_onnx(form: str, tmp_path: Path):
    """`graph-opt model.pb -t onnx -o out.onnx` (or a SavedModel directory), as
    a TensorFlow user types it."""
    inputs, outputs, expected = reference(model_of(form))
    out = tmp_path / "out.onnx"
    names = [] if form.endswith("_saved_model") else ["--outputs", ",".join(outputs)]
    result = subprocess.run(
        ["graph-opt", str(CORPUS / form), *names, "-t", "onnx", "-o", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert_matches_tensorflow(run_onnx(out.read_bytes(), inputs), expected)


def apply(module: ModuleOp, name: str) -> ModuleOp:
    get_all_passes()[name]()().apply(Context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("pass_name", PASSES)
@pytest.mark.parametrize("model", MODELS)
def test_pass_alone_keeps_tensorflow_outputs(model: str, pass_name: str):
    if pass_name not in get_all_passes():
        pytest.fail(f"no pass {pass_name}")
    inputs, _, expected = reference(model)
    module = apply(load(f"{model}.pb"), pass_name)
    model_bytes = export_module(module).SerializeToString()
    assert_matches_tensorflow(run_onnx(model_bytes, inputs), expected)


def foldable_batch_norms(module: ModuleOp) -> list[str]:
    """Batch norms, and per-channel scales of a conv's output (Keras' decomposed
    batch norm, after the conv's bias add), that fold-bn could fold: all but
    those after a filter fake-quantized per tensor (a tfmot depthwise conv)."""
    left = []
    for op in module.walk():
        if isinstance(op, BatchNormOp):
            reason = explain_fold_bn(op) or ""
            if "fake-quantized per tensor" not in reason:  # folding changes numbers
                left.append(str(op.location))
        elif isinstance(op, ConvolutionBase):
            value = op.results[0]
            while isinstance(user := value.get_user_of_unique_use(), AddOp | MulOp):
                if not any(
                    v is not value and computed_constant(v) is not None
                    for v in user.operands
                ):
                    break
                if isinstance(user, MulOp):
                    left.append(str(user.location))
                    break
                value = user.results[0]
    return left


@pytest.mark.parametrize("model", CNNS)
def test_fold_bn_alone_leaves_no_foldable_batch_norm(model: str):
    module = load(f"{model}.pb")
    assert foldable_batch_norms(module)  # the model has batch norms to fold
    assert foldable_batch_norms(apply(module, "fold-bn")) == []


def test_int8_pipeline_on_a_fresh_import(tmp_path: Path):
    """calibrate, quantize and convert-to-int straight after import (no fold-bn
    or fuse-ops first): the convs become int8, and the integer graph stays
    within one output quantization step of the fake-quantized one."""
    inputs, _, _ = reference("mobilenet_v2")
    rng = np.random.default_rng(0)
    samples = tmp_path / "samples.npz"
    np.savez(samples, input=rng.standard_normal((4, 1, 32, 32, 3)).astype(np.float32))
    module = load("mobilenet_v2.pb")
    api.run(
        module,
        f'calibrate{{inputs="{samples}"}},quantize{{per-channel=true symmetric=true}}',
    )
    fake_quantized = run_function(module, [inputs["input"]])[0]
    with pytest.warns(GraphOptWarning, match="stay float"):
        api.run(module, "convert-to-int")
    ops = [op.name for op in module.walk()]
    assert ops.count("nn.qconv") >= 45 and ops.count("nn.conv") <= 5
    integer = run_function(module, [inputs["input"]])[0]
    # softmax probabilities: one 8-bit step of [0, 1] at most
    assert float(np.max(np.abs(integer - fake_quantized))) <= 1 / 255


def test_keras_export_loop_is_static_once_its_batch_is_given():
    """Keras 3's export of an LSTM reserves its output TensorList with an
    unknown batch dim and starts its state from zeros of a computed shape:
    with the batch given, the list takes the size its loop writes, and
    fold-constants (refining through the loop) leaves no dynamic type."""
    data = np.load(CORPUS / "text_lstm.npz")
    x = data["export_in"]
    module = import_saved_model(
        CORPUS / "text_lstm_export", input_shapes={"keras_tensor_57": x.shape}
    )
    (loop,) = [op for op in module.walk() if op.name == "scf.while"]
    list_type = next(str(t) for t in loop.result_types if "x16xf32" in str(t))
    assert list_type == "tensor<1x2x16xf32>"  # reserved 1x?x16 on import before
    api.run(module, "fold-constants")
    assert "?" not in api.to_mlir(module)
    assert_matches_tensorflow(run_function(module, [x]), [data["export_out"]])
