"""TensorFlow's cond and while lowered to tosa.cond_if / tosa.while_loop, compiled
by IREE and run against the interpreter and TensorFlow's own outputs; and the
IREE 3.13 failures that keep two forms from compiling, each reduced to a minimal
module (these tests start failing when IREE fixes them: then drop the fallback)."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import iree.compiler as iree_compiler
import numpy as np
import pytest
from iree.compiler import ir

from graph_opt import api
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.interpreter import run_function
from graph_opt.passes.optimize import OptimizePass
from graph_opt.remarks import GraphOptWarning

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CPU_FLAGS, CompiledGraphs  # noqa: E402

TENSORFLOW = Path(__file__).parents[1] / "formats" / "tensorflow"
FIXTURES = TENSORFLOW / "fixtures"
CORPUS = TENSORFLOW / "corpus"

TOSA_CONTROL_FLOW = {
    "cond_v1": {"tosa.cond_if"},
    "cond_v2": {"tosa.cond_if"},
    "while_v1": {"tosa.while_loop"},
    "while_v2": {"tosa.while_loop"},
    "cond_in_while_v1": {"tosa.while_loop", "tosa.cond_if"},
    "cond_in_while_v2": {"tosa.while_loop", "tosa.cond_if"},
    "nested_loops": {"tosa.while_loop", "tosa.cond_if", "scf.while"},
    "text_lstm": {"tosa.while_loop"},
}
"""Each graph and its control-flow ops after lower-to-tosa (nested_loops keeps its
outer loop scf: IREE cannot legalize a while_loop in a while_loop)."""


def load(name: str):
    """The optimized import of a fixture or corpus graph and TensorFlow's feeds
    and outputs for it."""
    if name in ("nested_loops", "text_lstm"):
        data = np.load(CORPUS / f"{name}.npz")
        feeds = {
            k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")
        }
        outputs = [str(n) for n in data["outputs"]]
        expected = [data[f"out:{i}"] for i in range(len(outputs))]
        graph = load_graph_def(str(CORPUS / f"{name}.pb"))
    else:
        data = np.load(FIXTURES / f"{name}.npz")
        feeds = {k.removeprefix("in0_"): data[k] for k in data if k.startswith("in0_")}
        outputs = ["result"] if name.endswith("_v1") else None
        expected = [data["out0_0"]]
        graph = load_graph_def(str(next(FIXTURES.glob(f"{name}.pb*"))))
    module = import_graph_def(graph, outputs=outputs)
    OptimizePass().apply(api.context(), module)
    (function,) = module.ops
    names = [a.data["nn.name"].data for a in function.arg_attrs.data]  # type: ignore[attr-defined]
    return module, [feeds[n] for n in names], expected


def op_names(text: str) -> set[str]:
    with ir.Context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
        names: set[str] = set()

        def collect(op):
            names.add(op.name)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
    return names


@pytest.mark.parametrize("name", sorted(TOSA_CONTROL_FLOW))
def test_control_flow_runs_on_iree_like_the_interpreter_and_tensorflow(name):
    module, inputs, tensorflow = load(name)
    expected = run_function(module, inputs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphOptWarning)
        compiled = CompiledGraphs(module)
    kept_scf = [w for w in caught if "as scf" in str(w.message)]
    assert len(kept_scf) == ("scf.while" in TOSA_CONTROL_FLOW[name])
    control_flow = {
        n for n in op_names(compiled.tosa_text) if n.split(".")[0] in ("scf", "tosa")
    }
    assert (
        control_flow & {"tosa.cond_if", "tosa.while_loop", "scf.if", "scf.while"}
        == TOSA_CONTROL_FLOW[name]
    )
    actual = compiled.run(module.ops.first.sym_name.data, inputs)  # type: ignore[union-attr]
    for got, want, reference in zip(actual, expected, tensorflow, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)


NESTED_WHILE_LOOPS = """
func.func @main(%n: tensor<i32>) -> tensor<i32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %r:2 = "tosa.while_loop"(%z, %n) ({
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %c = "tosa.greater"(%m, %i) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %s:2 = "tosa.while_loop"(%i, %m) ({
    ^bb0(%j: tensor<i32>, %k: tensor<i32>):
      %c = "tosa.greater"(%k, %j) : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "tosa.yield"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%j: tensor<i32>, %k: tensor<i32>):
      %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %j2 = "tosa.add"(%j, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "tosa.yield"(%j2, %k) : (tensor<i32>, tensor<i32>) -> ()
    }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    "tosa.yield"(%s#0, %m) : (tensor<i32>, tensor<i32>) -> ()
  }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  return %r#0 : tensor<i32>
}
"""
"""A while_loop in a while_loop: TosaToSCF clones the outer loop's regions,
inner loop included, and MLIR's dialect conversion will not legalize an op its
own pattern just created (the pattern does not declare bounded recursion).
A cond_if in a cond_if fails the same way; a cond_if in a while_loop, or a
while_loop in a cond_if, compiles."""

WRITE_ONLY_LOOP_VALUE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %n = "tosa.const"() <{values = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %r:3 = "tosa.while_loop"(%z, %x, %x) ({
  ^bb0(%i: tensor<i32>, %a: tensor<4xf32>, %last: tensor<4xf32>):
    %c = "tosa.greater"(%n, %i) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %a: tensor<4xf32>, %last: tensor<4xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %i2 = "tosa.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %a2 = "tosa.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %l2 = "tosa.sub"(%a, %a2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "tosa.yield"(%i2, %a2, %l2) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>)
  return %r#2 : tensor<4xf32>
}
"""
"""A loop-carried value the loop writes but never reads (%last; an LSTM's output
sequence is one): IREE rotates the loop into a do-while whose scf.while has
fewer `before` than `after` arguments, and its stream conversion
(ScfWhileOpConversion) copies past the end of an argument list on it. Keras'
LSTM carries one (its one-slot output TensorList): prune moves it out of the
loop (graph_opt/passes/prune/loop_patterns.py), after which text_lstm runs."""


def compile_tosa(text: str, *flags: str) -> bytes:
    return iree_compiler.compile_str(
        text,
        target_backends=["llvm-cpu"],
        input_type="tosa",
        extra_args=[*CPU_FLAGS, *flags],
    )


def compile_error(text: str, *flags: str) -> str:
    with pytest.raises(iree_compiler.CompilerToolError) as error:
        compile_tosa(text, *flags)
    return str(error.value)


def assert_crashes_converting_to_stream(text: str) -> None:
    """Compiles to IREE's flow phase, then the conversion to stream fails on
    memory ScfWhileOpConversion corrupts: SIGSEGV, SIGABRT when the corrupted
    copy size reaches the allocator first ("LLVM ERROR: out of memory"), or a
    verifier error on the corrupted scf.while (seen on a fresh CI machine)."""
    compile_tosa(text, "--compile-to=flow")
    message = compile_error(text, "--compile-to=stream")
    signal = re.search(r"Error code: -(11|6)\b", message)
    assert signal or "'scf.while' op" in message, message[:500]


def test_iree_cannot_legalize_a_while_loop_in_a_while_loop():
    assert op_names(NESTED_WHILE_LOOPS) >= {"tosa.while_loop"}
    message = compile_error(NESTED_WHILE_LOOPS)
    assert "failed to legalize operation 'tosa.while_loop'" in message


def test_iree_crashes_on_a_loop_value_written_but_never_read():
    assert op_names(WRITE_ONLY_LOOP_VALUE) >= {"tosa.while_loop"}
    assert_crashes_converting_to_stream(WRITE_ONLY_LOOP_VALUE)


def test_text_lstm_carries_no_value_its_loop_only_writes():
    """Imported as TensorFlow wrote it, the LSTM's loop carries its output list
    without reading it; optimize (prune) computes it after the loop instead."""
    graph = load_graph_def(str(CORPUS / "text_lstm.pb"))
    module = import_graph_def(graph)
    (loop,) = [op for op in module.walk() if op.name == "scf.while"]
    before = len(loop.results)
    optimized, _, _ = load("text_lstm")
    (loop,) = [op for op in optimized.walk() if op.name == "scf.while"]
    assert len(loop.results) == before - 1
    assert not any(not arg.uses for arg in loop.after_region.block.args), (
        "a loop value no iteration reads is still carried"
    )


def test_keras_export_lowers_alone_once_its_batch_is_given():
    """Keras 3's `model.export()` of an LSTM has a free batch: its state starts
    as zeros of a computed shape and its output list with unknown element dims.
    Given the batch on import, lower-to-tosa alone (no optimize) makes every
    loop value static and IREE runs it like TensorFlow."""
    data = np.load(CORPUS / "text_lstm.npz")
    x = data["export_in"]
    module = import_saved_model(
        CORPUS / "text_lstm_export", input_shapes={"keras_tensor_57": x.shape}
    )
    compiled = CompiledGraphs(module)
    assert "tosa.while_loop" in op_names(compiled.tosa_text)
    (actual,) = compiled.run(module.ops.first.sym_name.data, [x])  # type: ignore[union-attr]
    np.testing.assert_allclose(actual, data["export_out"], rtol=1e-4, atol=1e-5)
