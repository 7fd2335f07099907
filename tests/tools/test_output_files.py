"""`-o`, `--emit-before` and `api.save` write as mlir-opt does: through a
symlink to its target, in place onto a FIFO or a device, atomically over a
regular file keeping its mode, and never leave a temporary file behind."""

import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from graph_opt import api

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "conv_bn_relu.onnx"
EXAMPLE_MLIR = ROOT / "examples" / "conv_bn_relu.mlir"


def graph_opt(*args, cwd, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    return subprocess.run(
        ["graph-opt", *map(str, args)], cwd=cwd, env=env, capture_output=True, **kwargs
    )


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr.decode()
    return result


def temporaries(*directories: Path) -> list[Path]:
    return [p for d in directories for p in d.iterdir() if p.name.startswith(".graph")]


@pytest.fixture
def char_device(tmp_path) -> Path:
    """A character device: a null device made in tmp_path when root may make one
    (so the old `os.replace` could not destroy the system's), else /dev/null."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return device


def test_output_through_a_symlink_writes_its_target(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    work = tmp_path / "work"
    elsewhere.mkdir()
    work.mkdir()
    (elsewhere / "real.mlir").write_text("previous")
    (work / "out.mlir").symlink_to(elsewhere / "real.mlir")
    ok(graph_opt(EXAMPLE, "-o", "out.mlir", "--emit-before", "out.mlir", cwd=work))
    assert (work / "out.mlir").is_symlink()
    assert (elsewhere / "real.mlir").read_text().startswith("builtin.module")
    assert temporaries(work, elsewhere) == []


def test_api_save_through_a_symlink_keeps_the_link(tmp_path):
    (tmp_path / "real.onnx").write_bytes(b"")
    (tmp_path / "link.onnx").symlink_to("real.onnx")
    api.save(api.load(EXAMPLE), tmp_path / "link.onnx")
    assert (tmp_path / "link.onnx").is_symlink()
    assert api.load(tmp_path / "real.onnx") is not None


@pytest.mark.parametrize("writer", ["-o", "--emit-before", "api.save"])
def test_an_existing_file_keeps_its_mode(tmp_path, writer):
    out = tmp_path / "out.mlir"
    out.write_text("previous")
    out.chmod(0o600)
    if writer == "api.save":
        api.save(api.load(EXAMPLE), out)
    elif writer == "-o":
        ok(graph_opt(EXAMPLE, "-o", out, cwd=tmp_path))
    else:
        ok(graph_opt(EXAMPLE, writer, out, "-o", tmp_path / "other.mlir", cwd=tmp_path))
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert out.read_text().startswith("builtin.module")


def test_output_to_a_device_writes_it_in_place(tmp_path, char_device):
    before = char_device.stat()
    ok(graph_opt(EXAMPLE, "-o", char_device, cwd=tmp_path))
    ok(graph_opt(EXAMPLE, "-t", "onnx", "-o", char_device, cwd=tmp_path))
    after = char_device.stat()
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert temporaries(tmp_path, char_device.parent) == []


def test_output_to_a_fifo_goes_to_its_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(
        target=lambda: received.append(fifo.read_bytes()), daemon=True
    )
    reader.start()
    result = graph_opt(EXAMPLE, "-o", fifo, cwd=tmp_path, timeout=120)
    reader.join(timeout=60)
    ok(result)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received and received[0].startswith(b"builtin.module")
    assert temporaries(tmp_path) == []


def test_output_through_a_link_to_standard_output_reaches_the_pipe(tmp_path):
    """As `-o /dev/stdout`: a symlink to /proc/self/fd/1, whose target names a
    pipe, not a file (the system's /dev/stdout is left alone: the old code
    would have replaced it)."""
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    result = ok(graph_opt(EXAMPLE, "-o", "stdout", cwd=tmp_path))
    assert result.stdout.startswith(b"builtin.module")
    assert (tmp_path / "stdout").is_symlink()


def test_a_hard_linked_file_is_replaced_and_the_other_name_keeps_the_old_text(
    tmp_path,
):
    """The documented choice (LLVM's tools do the same): atomic over a regular
    file, so the output is a new file and a hard link elsewhere is not written."""
    (tmp_path / "out.mlir").write_text("previous")
    os.link(tmp_path / "out.mlir", tmp_path / "other.mlir")
    ok(graph_opt(EXAMPLE, "-o", "out.mlir", cwd=tmp_path))
    assert (tmp_path / "out.mlir").read_text().startswith("builtin.module")
    assert (tmp_path / "other.mlir").read_text() == "previous"


def test_output_to_a_directory_is_a_one_line_error(tmp_path):
    (tmp_path / "dir").mkdir()
    result = graph_opt(EXAMPLE, "-o", "dir", cwd=tmp_path)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert line.endswith("error: dir: is a directory, not a file to write")
    assert temporaries(tmp_path) == []


@pytest.mark.parametrize(
    "number, code", [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130)]
)
def test_a_signal_during_the_run_leaves_no_temporary_file(tmp_path, number, code):
    """graph-opt opens -o before reading stdin: while it waits for the rest of
    the input, the temporary file exists; the signal must remove it."""
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_OPT_TRACEBACK"}
    process = subprocess.Popen(
        ["graph-opt", "-o", "out.mlir"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdin.write(EXAMPLE_MLIR.read_bytes()[:10])
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while not temporaries(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert temporaries(tmp_path), "graph-opt never opened its output"
    process.send_signal(number)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr.decode()
    assert b"Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []


def test_api_save_signal_handlers_are_restored(tmp_path):
    api.save(api.load(EXAMPLE), tmp_path / "out.mlir")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_failing_api_save_leaves_the_previous_file(tmp_path, monkeypatch):
    out = tmp_path / "out.mlir"
    out.write_text("previous")

    def fail(*args, **kwargs):
        raise RuntimeError("printer failed")

    monkeypatch.setattr(api, "_write_mlir", fail)
    with pytest.raises(RuntimeError, match="printer failed"):
        api.save(api.load(EXAMPLE), out)
    assert out.read_text() == "previous"
    assert temporaries(tmp_path) == []
