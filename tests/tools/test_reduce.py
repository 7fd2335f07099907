"""`graph-opt-reduce`: a 500-op model with one planted fault shrinks to a lit test
that fails with the broken pass and passes with the fixed one."""

import shutil
import subprocess
import sys

import pytest
from broken_passes import chain_model
from toolkit_support import BROKEN, ROOT, run_module

from graph_opt import api, plugins
from graph_opt.tools import reduce

LIT_CFG = f"""import lit.formats
config.name = "reduced"
config.test_format = lit.formats.ShTest(preamble_commands=[])
config.suffixes = [".mlir"]
config.environment["PYTHONPATH"] = {str(ROOT)!r}
"""


def plugin(path, fixed: bool):
    path.write_text(
        f"import sys\nsys.path.insert(0, {str(BROKEN.parent)!r})\n"
        f"import broken_passes\nbroken_passes.register(fixed={fixed})\n"
    )


def lit(test) -> subprocess.CompletedProcess:
    (test.parent / "lit.cfg").write_text(LIT_CFG)
    command = shutil.which("lit") or f"{sys.executable} -m lit"
    return subprocess.run(
        [*command.split(), "-v", str(test)], capture_output=True, text=True
    )


def reduce_to_test(tmp_path, model_text, pipeline, *options):
    (tmp_path / "model.mlir").write_text(model_text)
    plugin(tmp_path / "plugin.py", fixed=False)
    test = tmp_path / "lit" / "bug.mlir"
    test.parent.mkdir()
    result = run_module(
        "graph_opt.tools.reduce_main",
        "model.mlir",
        "-p",
        pipeline,
        "--load-pass-plugin",
        tmp_path / "plugin.py",
        "-o",
        test,
        *options,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    return test, result


@pytest.mark.parametrize(
    "pipeline, broadcast, options, shows",
    [
        ("cse,sub-const-to-add,dce", False, [], "--verify-numerics"),
        ("sub-const-to-add-crash", False, ["--crash=index out of range"], "raises"),
        ("sub-const-to-add-bad-type", True, [], "fails verification"),
    ],
)
def test_planted_fault_reduces_to_a_lit_test_that_fails_until_fixed(
    tmp_path, pipeline, broadcast, options, shows
):
    model = chain_model(500, fault_at=250, broadcast=broadcast)
    test, result = reduce_to_test(tmp_path, model, pipeline, *options)
    assert "500 ops -> " in result.stderr
    text = test.read_text()
    assert text.startswith(f"// RUN: graph-opt %s -p {pipeline} --load-pass-plugin ")
    assert "// CHECK-LABEL: func.func @reduced" in text
    assert shows in text
    reduced = api.parse(text)
    assert reduce.count_ops(reduced) <= 10
    assert [op.name for op in reduced.walk()].count("nn.sub") == 1

    before = lit(test)
    assert before.returncode != 0, before.stdout
    assert "FAIL: reduced :: bug.mlir" in before.stdout
    plugin(tmp_path / "plugin.py", fixed=True)
    after = lit(test)
    assert after.returncode == 0, after.stdout + after.stderr
    assert "PASS: reduced :: bug.mlir" in after.stdout


def test_detect_names_the_bug():
    plugins.load_plugin(str(BROKEN))
    module = api.parse(chain_model(20, fault_at=10))
    crash = reduce.detect(module, "sub-const-to-add-crash")
    assert isinstance(crash, reduce.Crashes)
    assert crash.message == "tuple index out of range"
    assert crash.error_type == "IndexError"
    numbers = reduce.detect(module, "sub-const-to-add")
    assert isinstance(numbers, reduce.ChangesNumbers)
    with pytest.raises(ValueError, match="nothing to reduce"):
        reduce.detect(module, "cse")


def test_a_user_script_decides(tmp_path):
    script = tmp_path / "has_sub.py"
    script.write_text(
        "import sys\nsys.exit(0 if 'nn.sub' in open(sys.argv[1]).read() else 1)\n"
    )
    (tmp_path / "model.mlir").write_text(chain_model(30, fault_at=14))
    result = run_module(
        "graph_opt.tools.reduce_main", "model.mlir", "--test", script, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    reduced = api.parse(result.stdout)
    assert [op.name for op in reduced.walk() if op.name.startswith("nn.")] == ["nn.sub"]


def test_an_onnx_model_reduces(tmp_path):
    script = tmp_path / "has_conv.py"
    script.write_text(
        "import sys\nsys.exit(0 if 'nn.relu' in open(sys.argv[1]).read() else 1)\n"
    )
    result = run_module(
        "graph_opt.tools.reduce_main",
        ROOT / "examples" / "conv_bn_relu.onnx",
        "--test",
        script,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    reduced = api.parse(result.stdout)
    assert reduce.count_ops(reduced) == 1


def test_a_model_without_the_bug_is_one_line(tmp_path):
    (tmp_path / "model.mlir").write_text(chain_model(10, fault_at=100))
    result = run_module(
        "graph_opt.tools.reduce_main", "model.mlir", "-p", "cse", cwd=tmp_path
    )
    assert result.returncode == 1
    assert "nothing to reduce" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_without_a_pipeline_or_script_is_a_usage_error(tmp_path):
    result = run_module("graph_opt.tools.reduce_main", "model.mlir", cwd=tmp_path)
    assert result.returncode == 2 and "-p" in result.stderr
