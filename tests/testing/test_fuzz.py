"""A bounded run of graph-opt's fuzzers (bench/fuzz.py runs the long campaign),
and the fuzzers' own parts: valid generators, deterministic mutations, the judge,
the hostile files, the audit of what a run opens, the SavedModel writer."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

from graph_opt.formats.tensorflow.crc32c import crc32c, mask
from graph_opt.testing.fuzz import audit
from graph_opt.testing.fuzz.campaign import run_campaign
from graph_opt.testing.fuzz.cli_runs import Run, problems, run_limited
from graph_opt.testing.fuzz.differential import compare
from graph_opt.testing.fuzz.hostile_campaign import (
    GENERATORS,
    build,
    record_finding,
    run_hostile_campaign,
)
from graph_opt.testing.fuzz.hostile_campaign import main as hostile_main
from graph_opt.testing.fuzz.hostile_inputs import (
    ACCEPT,
    BOUNDED,
    EITHER,
    REFUSE,
    input_size,
)
from graph_opt.testing.fuzz.hostile_runs import SIZE_LIMIT, run_hostile
from graph_opt.testing.fuzz.mutations import mutate_graph_def, mutate_onnx
from graph_opt.testing.fuzz.onnx_graphs import OPSETS, random_inputs, random_model
from graph_opt.testing.fuzz.tf_graphs import random_graph_def
from graph_opt.testing.saved_models import (
    OBJECT_GRAPH_KEY,
    SHARD,
    shard_name,
    variable_key,
    write_linear_saved_model,
)


def test_a_bounded_campaign_passes(tmp_path: Path):
    report = run_campaign(8, 10, seed=7, findings=tmp_path, log=lambda _: None, jobs=2)
    assert report.passed, "\n".join(report.findings)
    assert report.graphs == 8 and report.malformed == 10


def test_random_onnx_graphs_are_valid_and_cover_the_opsets():
    import onnxruntime as ort

    opsets = set()
    for seed in range(40):
        model = random_model(seed)
        onnx.checker.check_model(model, full_check=True)
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        session.run(None, random_inputs(model, seed))
        opsets.add(model.opset_import[0].version)
        assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    assert opsets == set(OPSETS)


def test_random_graph_defs_import_and_run():
    from graph_opt.formats.tensorflow import import_graph_def
    from graph_opt.interpreter import run_function
    from graph_opt.testing.fuzz.campaign import tf_input

    for seed in range(10):
        graph, outputs = random_graph_def(seed)
        module = import_graph_def(graph, outputs=outputs)
        assert len(run_function(module, [tf_input(graph, seed)])) == len(outputs)


def test_mutations_are_deterministic():
    model = random_model(3)
    graph, _ = random_graph_def(3)
    for seed in range(20):
        a = mutate_onnx(model, np.random.default_rng(seed))
        assert a == mutate_onnx(model, np.random.default_rng(seed))
        b = mutate_graph_def(graph, np.random.default_rng(seed))
        assert b == mutate_graph_def(graph, np.random.default_rng(seed))


def test_compare_uses_the_output_scale():
    expected = [np.array([100.0, -50.0], np.float32)]
    assert compare(expected, [np.array([100.005, -50.0])]) is None
    assert "max error" in compare(expected, [np.array([100.02, -50.0])])
    assert "shape" in compare(expected, [np.zeros(3)])


OK = Run(0, "", 1.0, 100 << 20, True)


@pytest.mark.parametrize(
    "run, refused, problem",
    [
        (OK, False, None),
        (Run(1, "graph-opt: x: error: bad\n", 1.0, 1 << 20, False), True, None),
        (OK, True, "exit 0 on a model the runtime refuses"),
        (
            Run(
                1, "Traceback (most recent call last):\n  x\nKeyError: 1\n", 1, 1, False
            ),
            True,
            "traceback",
        ),
        (
            Run(1, "graph-opt: x: error: bad\n", 1.0, 1, True),
            True,
            "left an output file",
        ),
        (Run(-9, "", 30.5, 1, False), True, "took 30 s"),
        (Run(0, "", 1.0, 2 << 30, True), False, "peak memory 2048 MiB"),
    ],
)
def test_the_judge_of_malformed_runs(run, refused, problem):
    found = problems(run, refused)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found


def test_a_bounded_hostile_campaign_passes(tmp_path: Path):
    """One input of each hostile kind: nothing read outside the model, nothing
    corrupt accepted, bombs and loops stopped within 60 s and 512 MiB."""
    report = run_hostile_campaign(
        1, seed=5, findings=tmp_path, log=lambda _: None, jobs=2
    )
    assert report.passed, "\n".join(report.findings)
    assert report.inputs == len(GENERATORS)
    assert report.largest_input < SIZE_LIMIT


def _tree(root: Path) -> dict[str, object]:
    """Each entry under root: its bytes, link target or file type."""
    tree: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        key = str(path.relative_to(root))
        if stat.S_ISLNK(mode):
            tree[key] = os.readlink(path).replace(str(root), "ROOT")
        elif stat.S_ISREG(mode):
            tree[key] = path.read_bytes().replace(str(root).encode(), b"ROOT")
        else:
            tree[key] = stat.S_IFMT(mode)
    return tree


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_hostile_inputs_are_small_and_deterministic(tmp_path: Path, kind: str):
    space, hostile = build(kind, 1, 0, tmp_path / "a")
    again, _ = build(kind, 1, 0, tmp_path / "b")
    assert _tree(space.root) == _tree(again.root)
    assert input_size(space, hostile) < SIZE_LIMIT
    assert hostile.expect in (ACCEPT, REFUSE, BOUNDED, EITHER)


def _log(
    tmp_path: Path, python_path: str, *events: tuple[str, int, Path | str]
) -> Path:
    log = tmp_path / "opened.log"
    lines = [f"sys.path\t0\t{python_path}"]
    lines += [f"{kind}\t{flags}\t{path}" for kind, flags, path in events]
    log.write_text("\n".join(lines) + "\n")
    return log


def test_the_audit_resolves_symlinks_and_keeps_to_reads(tmp_path: Path):
    model, outside = tmp_path / "model", tmp_path / "outside"
    model.mkdir(), outside.mkdir()
    (outside / "secret").write_bytes(b"s")
    (model / "out").symlink_to("../outside/secret")
    (model / "in").write_bytes(b"w")
    (model / "environ").symlink_to("/proc/self/environ")
    nofollow = os.O_RDONLY | os.O_NOFOLLOW
    log = _log(
        tmp_path, str(tmp_path),  # a sys.path entry holding the work: not allowed
        ("path", os.O_RDONLY, model / "in"),
        ("path", os.O_RDONLY, model / "out"),
        ("os", nofollow, model / "environ"),  # not followed: stays inside
        ("fd", os.O_RDONLY, "/proc/123/environ"),  # an fd: the file it is open on
        ("path", os.O_WRONLY | os.O_CREAT, outside / "written"),  # a write
        ("path", os.O_RDONLY, model / "environ"),  # through an opener...
        ("os", nofollow, model / "environ"),  # ...that adds O_NOFOLLOW
        ("path", os.O_RDWR, "/dev/null"),
    )  # fmt: skip
    found = audit.reads_outside(log, [model], tmp_path)
    assert found == [str(outside / "secret"), "/proc/123/environ"]
    python_path, reads = audit.opened_for_reading(log.read_text().splitlines())
    assert python_path == [str(tmp_path)] and len(reads) == 6


def test_the_audited_child_logs_external_data_opened_in_cpp(tmp_path: Path):
    """onnx opens external data in C++ and reads it through os.fdopen: the audit
    sees the descriptor's file, and a valid model reads nothing outside."""
    space, hostile = build("valid_external_data", 0, 0, tmp_path)
    verdict = run_hostile(space, hostile)
    assert verdict.run.returncode == 0 and verdict.findings() == []
    _, reads = audit.opened_for_reading(
        (space.root / "opened.log").read_text().splitlines()
    )
    assert str(space.model / "weights.bin") in reads


def test_a_child_past_the_memory_limit_is_killed(tmp_path: Path):
    grow = "import time; b = b'x' * (400 << 20); time.sleep(100)"
    run = run_limited(
        [sys.executable, "-c", grow], tmp_path / "none", rss_limit=128 << 20
    )
    assert run.returncode == -9 and run.peak_rss > 128 << 20


def test_saved_models_written_here_load_and_checksum():
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert mask(0) == 0xA282EAD8


def test_the_written_checkpoint_is_one_tensorflow_reads(tmp_path: Path):
    tf = pytest.importorskip("tensorflow")
    weight = np.arange(12, dtype=np.float32).reshape(3, 4)
    write_linear_saved_model(tmp_path, {"w": weight}, {variable_key("w"): 1})
    reader = tf.train.load_checkpoint(str(tmp_path / "variables" / "variables"))
    np.testing.assert_array_equal(reader.get_tensor(variable_key("w")), weight)
    assert reader.get_tensor(OBJECT_GRAPH_KEY)
    shard = tmp_path / "variables" / shard_name(1, 2)
    data = bytearray(shard.read_bytes())
    data[5] ^= 4
    shard.write_bytes(data)
    with pytest.raises(tf.errors.OpError, match="Checksum does not match"):
        tf.train.load_checkpoint(str(tmp_path / "variables" / "variables")).get_tensor(
            variable_key("w")
        )


def test_graph_opt_reads_the_written_saved_model(tmp_path: Path):
    from graph_opt import api
    from graph_opt.interpreter import run_function

    weight = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    write_linear_saved_model(tmp_path, {"w": weight, "unused": np.ones(2, np.float32)})
    x = np.ones((1, 5), np.float32)
    (y,) = run_function(api.load(tmp_path), [x])
    np.testing.assert_allclose(y, x @ weight, rtol=1e-6)


def test_the_audit_logs_the_file_each_open_reached(tmp_path: Path):
    """Relative to a dir_fd, through a symlink, relative to the working
    directory: each open is logged as the file it opened."""
    model, outside, cwd = tmp_path / "model", tmp_path / "outside", tmp_path / "cwd"
    for folder in (model, outside, cwd):
        folder.mkdir()
    (model / "weights.bin").write_bytes(b"w")
    (cwd / "weights.bin").write_bytes(b"decoy")  # what the dir_fd open is not
    (cwd / "other.bin").write_bytes(b"decoy")
    (outside / "secret").write_bytes(b"s")
    (model / "link").symlink_to("../outside/secret")
    child = f"""
import os
from pathlib import Path
from graph_opt.testing.fuzz import audit
audit.install("opened.log")
folder = os.open({str(model)!r}, os.O_RDONLY | os.O_DIRECTORY)
os.read(os.open("weights.bin", os.O_RDONLY, dir_fd=folder), 1)
open("other.bin", "rb").read()
Path({str(model / "link")!r}).read_bytes()
"""
    subprocess.run([sys.executable, "-c", child], cwd=cwd, check=True)
    found = audit.reads_outside(cwd / "opened.log", [model], tmp_path)
    assert found == [str(cwd / "other.bin"), str(outside / "secret")]


@pytest.mark.parametrize("kind", ["data_bit_flip", "index_bit_flip", "entry_crc_flip"])
def test_tensorflow_refuses_the_damaged_checkpoints(tmp_path: Path, kind: str):
    """The checkpoints the campaign expects refused are ones TensorFlow refuses."""
    tf = pytest.importorskip("tensorflow")
    for round_ in range(12):
        space, hostile = build(kind, 0, round_, tmp_path / str(round_))
        assert hostile.expect == REFUSE
        with pytest.raises(tf.errors.OpError):
            reader = tf.train.load_checkpoint(
                str(space.model / "variables" / "variables")
            )
            for key in reader.get_variable_to_shape_map():
                reader.get_tensor(key)


def test_a_hostile_finding_keeps_the_files_and_how_to_rebuild_them(
    tmp_path: Path, capsys
):
    space, hostile = build("shard_fifo", 0, 0, tmp_path / "case")
    folder = tmp_path / "findings"
    record_finding(folder, space, hostile, ["took 60 s"], ("shard_fifo", 0, 0))
    lines = (folder / "findings.txt").read_text().splitlines()
    assert lines[:2] == ["saved_model:shard_fifo (expected: refuse)", "took 60 s"]
    assert "hostile_campaign shard_fifo 0 0 DIR" in lines[2]
    assert (
        lines[3]
        == "then: cd DIR/cwd && graph-opt DIR/model -p optimize -t onnx -o DIR/out/out.onnx"
    )
    assert (folder / "model" / "saved_model.pb").is_file()
    assert not (folder / "model" / "variables" / SHARD).exists()  # the FIFO
    assert hostile_main(["shard_fifo", "0", "0", str(tmp_path / "again")]) == 0
    assert capsys.readouterr().out.startswith(
        f"cd {tmp_path / 'again' / 'cwd'} && graph-opt"
    )
    assert _tree(tmp_path / "again") == _tree(space.root)


def test_a_child_is_not_charged_its_parents_pages(tmp_path: Path):
    """A forked child's `ru_maxrss` counts the parent's pages: after a long test
    session every child looked 548 MiB large. The peak is the child's own."""
    parent_pages = np.ones(600 << 20 >> 3)  # 600 MiB touched in this process
    child = run_limited(
        [sys.executable, "-c", "import numpy; numpy.ones(100 << 20 >> 3)"],
        tmp_path / "none",
    )
    assert child.returncode == 0
    assert 100 << 20 < child.peak_rss < 400 << 20
    del parent_pages
