"""The command-line conventions of `graph-opt` and `graph-opt-run`, run as real commands."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "conv_bn_relu.onnx"
TF_FIXTURE = ROOT / "tests" / "formats" / "tensorflow" / "fixtures" / "cond_in_while_v1"
GRAPH_OPT = shutil.which("graph-opt") or "graph-opt"
GRAPH_OPT_RUN = shutil.which("graph-opt-run") or "graph-opt-run"


def run(*command, cwd, stdin=None, umask=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        list(map(str, command)),
        capture_output=True,
        cwd=cwd,
        env=env,
        stdin=stdin,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def graph_opt(*args, cwd, **kwargs) -> subprocess.CompletedProcess:
    return run(GRAPH_OPT, *args, cwd=cwd, **kwargs)


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr.decode()
    return result


def pipeline_error(result: subprocess.CompletedProcess) -> list[str]:
    """The message, the pipeline and a caret line; no traceback, exit code 1."""
    assert result.returncode == 1, result
    stderr = result.stderr.decode()
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 3, stderr
    assert lines[0].startswith("graph-opt: error: "), stderr
    assert lines[2].strip() == "^", stderr
    return lines


def caret_under(lines: list[str]) -> str:
    """The text of the pipeline from the caret's column on."""
    return lines[1][lines[2].index("^") :]


@pytest.mark.parametrize(
    "name, target_magic", [("out.onnx", b"\x08"), ("out.mlir", b"builtin.module")]
)
def test_output_format_follows_the_suffix(tmp_path, name, target_magic):
    ok(graph_opt(EXAMPLE, "--pass=fold-bn", "-o", name, cwd=tmp_path))
    data = (tmp_path / name).read_bytes()
    assert data.startswith(target_magic)
    if name.endswith(".onnx"):
        onnx.checker.check_model(onnx.load_from_string(data))


def test_explicit_target_wins_over_the_suffix(tmp_path):
    ok(graph_opt(EXAMPLE, "-t", "mlir", "-o", "out.onnx", cwd=tmp_path))
    assert (tmp_path / "out.onnx").read_bytes().startswith(b"builtin.module")


def test_repeated_passes_append_in_order(tmp_path):
    result = ok(
        graph_opt(
            EXAMPLE,
            "-p",
            "fold-bn",
            "--pass=cse",
            "-p",
            "dce",
            "--time-passes",
            cwd=tmp_path,
        )
    )
    lines = result.stderr.decode().splitlines()
    assert lines[:2] == [
        "graph-opt: warning: cse: found no common subexpression",
        "graph-opt: warning: dce: found no dead code",
    ]
    table = lines[2:]
    assert [line.split()[-1] for line in table[1:]] == [
        "fold-bn",
        "cse",
        "dce",
        "total",
    ]
    assert "nn.batch_norm" not in result.stdout.decode()


def test_time_passes_is_a_table_on_stderr(tmp_path):
    result = ok(
        graph_opt(EXAMPLE, "-p", "fold-bn,optimize", "--time-passes", cwd=tmp_path)
    )
    assert result.stdout.decode().startswith("builtin.module")
    header, *rows = result.stderr.decode().splitlines()
    assert header.split() == ["seconds", "percent", "pass"]
    passes = [row for row in rows if ": " not in row]
    stages = [row for row in rows if "optimize: " in row]
    assert [row.split()[-1] for row in passes] == ["fold-bn", "optimize", "total"]
    assert {row.split()[-1] for row in stages} >= {
        "simplify-and-fuse",
        "eliminate-common-subexpressions",
        "eliminate-dead-code",
    }
    seconds = [float(row.split()[0]) for row in passes]
    assert sum(seconds[:-1]) == pytest.approx(seconds[-1], abs=5e-4)
    assert float(passes[-1].split()[1].rstrip("%")) == 100.0
    optimize_seconds = seconds[1]
    stage_seconds = sum(float(row.split()[0]) for row in stages)
    assert 0 < stage_seconds <= optimize_seconds + 5e-4


def test_print_between_passes_goes_to_stderr(tmp_path):
    result = ok(
        graph_opt(
            EXAMPLE,
            "-p",
            "fold-bn,cse",
            "--print-between-passes",
            "-o",
            "o.mlir",
            cwd=tmp_path,
        )
    )
    assert "// IR after fold-bn:" in result.stderr.decode()
    assert "IR after" not in (tmp_path / "o.mlir").read_text()
    ok(graph_opt("o.mlir", cwd=tmp_path))


def test_malformed_pipeline_points_at_the_position(tmp_path):
    lines = pipeline_error(
        graph_opt(EXAMPLE, "-p", "calibrate{inputs=samples.npz}", cwd=tmp_path)
    )
    assert "column 25" in lines[0] and 'inputs="samples.npz"' in lines[0]
    assert lines[1].strip() == "calibrate{inputs=samples.npz}"
    assert caret_under(lines).startswith(".npz")


def test_unknown_pass_did_you_mean(tmp_path):
    lines = pipeline_error(graph_opt(EXAMPLE, "-p", "cse,fold-nb", cwd=tmp_path))
    assert "unknown pass 'fold-nb'; did you mean 'fold-bn'?" in lines[0]
    assert caret_under(lines) == "fold-nb"


def test_unknown_option_did_you_mean(tmp_path):
    lines = pipeline_error(
        graph_opt(EXAMPLE, "-p", "fold-bn{explian=true}", cwd=tmp_path)
    )
    assert "no option 'explian'; did you mean 'explain'?" in lines[0]
    assert caret_under(lines).startswith("explian")


def test_help_offers_graph_opt_passes_and_targets_only(tmp_path):
    text = ok(graph_opt("--help", cwd=tmp_path)).stdout.decode()
    for name in ("fold-bn", "calibrate", "cse", "dce", "canonicalize", "mlir", "onnx"):
        assert name in text
    for name in ("riscv", "wgsl", "stencil", "csl", "llvm"):
        assert name not in text


@pytest.mark.parametrize("target", ["wgsl", "llvm"])
def test_foreign_targets_are_refused(tmp_path, target):
    result = graph_opt(EXAMPLE, "-t", target, cwd=tmp_path)
    assert result.returncode == 2
    assert b"invalid choice" in result.stderr and result.stdout == b""


def test_version(tmp_path):
    from importlib.metadata import version

    import graph_opt as package

    text = ok(graph_opt("--version", cwd=tmp_path)).stdout.decode()
    assert package.__version__ == version("graph-opt")
    assert f"graph-opt {package.__version__}" in text
    assert f"xDSL {version('xdsl')}" in text


def test_python_dash_m(tmp_path):
    result = ok(
        run(sys.executable, "-m", "graph_opt", EXAMPLE, "--pass=fold-bn", cwd=ROOT)
    )
    assert "nn.conv" in result.stdout.decode()
    assert "nn.batch_norm" not in result.stdout.decode()


def test_list_passes_in_pipeline_syntax_with_patterns(tmp_path):
    text = ok(graph_opt("--list-passes", cwd=tmp_path)).stdout.decode()
    assert 'calibrate{inputs=""}' in text
    assert 'calibrate{method="minmax"}' in text
    assert "fold-constants{max-size=65536}" in text
    assert "--inputs" not in text
    from graph_opt.patterns.registry import PATTERNS

    patterns = text[text.index("patterns") :]
    for name in PATTERNS:
        assert f"    {name}\n" in patterns + "\n"


@pytest.mark.parametrize(
    "path, frontend, expected",
    [
        (EXAMPLE, "onnx", "nn.batch_norm"),
        (TF_FIXTURE.with_suffix(".pb"), "pb", "scf.while"),
    ],
)
def test_binary_formats_from_stdin(tmp_path, path, frontend, expected):
    with open(path, "rb") as stdin:
        result = ok(graph_opt("-f", frontend, cwd=tmp_path, stdin=stdin))
    assert expected in result.stdout.decode()


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_written_files_honour_the_umask(tmp_path, umask):
    ok(graph_opt(EXAMPLE, "-o", "out.onnx", cwd=tmp_path, umask=umask))
    ok(graph_opt(EXAMPLE, "-o", "out.mlir", cwd=tmp_path, umask=umask))
    np.save(tmp_path / "x.npy", np.ones((1, 3, 16, 16), np.float32))
    ok(
        run(
            GRAPH_OPT_RUN,
            EXAMPLE,
            "-i",
            "x.npy",
            "-o",
            "y.npz",
            cwd=tmp_path,
            umask=umask,
        )
    )
    code = (
        f"from graph_opt import api; api.save(api.load({str(EXAMPLE)!r}), 'api.onnx')"
    )
    ok(run(sys.executable, "-c", code, cwd=tmp_path, umask=umask))
    for name in ("out.onnx", "out.mlir", "y.npz", "api.onnx"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name


def test_graph_opt_run_reads_a_graph_def(tmp_path):
    expected = np.load(TF_FIXTURE.with_suffix(".npz"))
    np.save(tmp_path / "x.npy", expected["in0_x"])
    np.save(tmp_path / "n.npy", expected["in0_n"])
    ok(
        run(
            GRAPH_OPT_RUN,
            TF_FIXTURE.with_suffix(".pb"),
            "-i",
            "x=x.npy",
            "-i",
            "n=n.npy",
            "-o",
            "y.npz",
            cwd=tmp_path,
        )
    )
    with np.load(tmp_path / "y.npz") as outputs:
        np.testing.assert_allclose(outputs["result"], expected["out0_0"], rtol=1e-6)


def test_graph_opt_run_one_npy_for_a_one_input_model(tmp_path):
    from graph_opt import api
    from graph_opt.interpreter import run_function

    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ok(run(GRAPH_OPT_RUN, EXAMPLE, "-i", "x.npy", "-o", "y.npz", cwd=tmp_path))
    (expected,) = run_function(api.load(EXAMPLE), [x])
    with np.load(tmp_path / "y.npz") as outputs:
        np.testing.assert_allclose(outputs["output"], expected, rtol=1e-6)


def test_graph_opt_run_one_npy_for_several_inputs_is_an_error(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((2, 3), np.float32))
    result = run(
        GRAPH_OPT_RUN,
        TF_FIXTURE.with_suffix(".pb"),
        "-i",
        "x.npy",
        "-o",
        "y.npz",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and "one array for a model of 2 inputs" in lines[0]
    assert not (tmp_path / "y.npz").exists()


def test_an_option_given_twice_is_refused_with_a_caret(tmp_path):
    result = graph_opt(
        EXAMPLE, "-p", "fold-bn{explain=true explain=false}", cwd=tmp_path
    )
    lines = pipeline_error(result)
    assert "option 'explain' twice" in lines[0]
    assert caret_under(lines).startswith("explain=false")


def test_an_option_out_of_range_is_a_one_line_error(tmp_path):
    result = graph_opt(EXAMPLE, "-p", "fold-constants{max-size=-1}", cwd=tmp_path)
    assert result.returncode == 1
    stderr = result.stderr.decode()
    assert stderr.count("\n") == 1 and "max-size must be 0 or more, got -1" in stderr
