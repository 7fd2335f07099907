"""`--load-pass-plugin` and passes registered through `graph_opt.api` on the command line."""

import pytest
from toolkit_support import BROKEN, graph_opt, run_module

from graph_opt import api, plugins
from graph_opt.tools.graph_opt_main import main

SUB = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = nn.constant dense<1.0> : tensor<4xf32>
  %s = nn.sub %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


def test_plugin_file_passes_run_from_the_command_line(tmp_path):
    (tmp_path / "in.mlir").write_text(SUB)
    result = graph_opt(
        tmp_path / "in.mlir", "--load-pass-plugin", BROKEN, "-p", "sub-const-to-add"
    )
    assert result.returncode == 0, result.stderr
    assert "nn.add" in result.stdout and "nn.sub" not in result.stdout


def test_plugin_by_module_name(tmp_path):
    (tmp_path / "my_plugin.py").write_text(
        f"import sys\nsys.path.insert(0, {str(BROKEN.parent)!r})\n"
        "import broken_passes\n"
    )
    (tmp_path / "in.mlir").write_text(SUB)
    result = run_module(
        "graph_opt",
        "in.mlir",
        "--load-pass-plugin",
        "my_plugin",
        "-p",
        "sub-const-to-add",
        cwd=tmp_path,
        pythonpath=[tmp_path],
    )
    assert result.returncode == 0, result.stderr
    assert "nn.add" in result.stdout
    listing = graph_opt("--load-pass-plugin", BROKEN, "--list-passes")
    assert "sub-const-to-add-bad-type" in listing.stdout


def test_without_the_plugin_the_pass_is_unknown(tmp_path):
    (tmp_path / "in.mlir").write_text(SUB)
    result = graph_opt(tmp_path / "in.mlir", "-p", "sub-const-to-add")
    assert result.returncode == 1
    assert "unknown pass 'sub-const-to-add'" in result.stderr


@pytest.mark.parametrize(
    "plugin, message",
    [("no_such_plugin_module", "No module named"), ("missing.py", "no such file")],
)
def test_missing_plugin_is_one_line(tmp_path, plugin, message):
    (tmp_path / "in.mlir").write_text(SUB)
    result = graph_opt("in.mlir", "--load-pass-plugin", plugin, cwd=tmp_path)
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_failing_plugin_is_one_line(tmp_path):
    (tmp_path / "bad.py").write_text("raise RuntimeError('plugin broke')\n")
    (tmp_path / "in.mlir").write_text(SUB)
    result = graph_opt("in.mlir", "--load-pass-plugin", "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "RuntimeError: plugin broke" in result.stderr
    assert "Traceback" not in result.stderr


def test_api_registered_pass_is_seen_by_main_in_process(tmp_path, capsys):
    plugins.load_plugin(str(BROKEN))
    assert "sub-const-to-add" in api.registered_passes()
    (tmp_path / "in.mlir").write_text(SUB)
    assert main([str(tmp_path / "in.mlir"), "-p", "sub-const-to-add-crash"]) == 1
    assert "tuple index out of range" in capsys.readouterr().err
    assert main([str(tmp_path / "in.mlir"), "-p", "sub-const-to-add"]) == 0
    assert "nn.add" in capsys.readouterr().out


def test_loading_a_file_twice_imports_it_once():
    assert plugins.load_plugin(str(BROKEN)) is plugins.load_plugin(str(BROKEN))
