"""The docs' embedding example runs, and the API's pieces behave as documented."""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

from graph_opt import api

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "conv_bn_relu.onnx"


def docs_embedding_example() -> str:
    page = (ROOT / "docs" / "embedding.md").read_text()
    section = page.split("# Embedding the pass manager", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_docs_embedding_example_runs(tmp_path, capsys):
    for name in ("examples",):
        os.symlink(ROOT / name, tmp_path / name)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(
            compile(docs_embedding_example(), "docs/embedding.md", "exec"),
            {"__name__": "docs"},
        )
    finally:
        os.chdir(cwd)
    assert re.search(r"^\d+ ops$", capsys.readouterr().out, re.M)
    onnx.checker.check_model(onnx.load(tmp_path / "conv_bn_relu.opt.onnx"))


def test_pipeline_from_pass_objects_equals_text():
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    by_text = api.run(api.load(EXAMPLE), "dce")
    by_objects = api.run(api.load(EXAMPLE), [DeadCodeElimination()])
    assert api.to_mlir(by_text) == api.to_mlir(by_objects)


def test_mlir_text_round_trips_through_parse():
    module = api.load(EXAMPLE)
    assert api.to_mlir(api.parse(api.to_mlir(module, generic=True))) == api.to_mlir(
        module
    )


def test_graph_opt_run_writes_interpreter_outputs(tmp_path):
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.savez(tmp_path / "in.npz", input=x)
    subprocess.run(
        [
            "graph-opt-run",
            str(EXAMPLE),
            "-i",
            str(tmp_path / "in.npz"),
            "-o",
            str(tmp_path / "out.npz"),
        ],
        check=True,
    )
    import onnxruntime as ort

    expected = ort.InferenceSession(str(EXAMPLE)).run(None, {"input": x})[0]
    np.testing.assert_allclose(
        np.load(tmp_path / "out.npz")["output"], expected, rtol=1e-5, atol=1e-5
    )


def test_graph_opt_run_reports_missing_input_in_one_line(tmp_path):
    result = subprocess.run(
        ["graph-opt-run", str(EXAMPLE), "-o", str(tmp_path / "out.npz")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip().count("\n") == 0
        and "missing inputs: input" in result.stderr
    )
    assert not (tmp_path / "out.npz").exists()


def test_docs_pattern_example_runs():
    page = (ROOT / "docs" / "patterns.md").read_text()
    section = page.split("# Pattern language", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/patterns.md", "exec"), {"__name__": "docs"})


def test_pipeline_errors_point_at_the_mistake():
    from graph_opt.driver.pipeline import PipelineError

    with pytest.raises(PipelineError, match="did you mean 'fold-bn'") as error:
        api.pipeline("cse,fold-nb")
    assert str(error.value).splitlines()[1:] == ["  cse,fold-nb", "      ^"]
