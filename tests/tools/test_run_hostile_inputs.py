"""`graph-opt-run -i` on .npz files that do not say one value of a sequence or
optional input: each is refused in one line, without iterating or allocating
what a count declares."""

import resource

import numpy as np
import onnx
import pytest

from tests.tools.test_run_sequences import X, graph_opt_run, sequence_identity_model

MEMORY_LIMIT = 4 << 30
"""Address space of the run (a count of 10^12 must not be walked into it)."""


def limited_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"s.length": np.int64(10**12)}, "input s: s.length is 1000000000000 but there is no s.0"),
        ({"s.length": np.int64(-3)}, "input s: s.length is array(-3), not a count"),
        ({"s.0": X[0], "s.length": np.float64(1.0)}, "input s: s.length is array(1.), not a count"),
        ({"s.0": X[0], "s.length": np.array([1])}, "input s: s.length is array([1]), not a count"),
        ({"s.length": np.array("0")}, "input s: s.length is array('0', dtype='<U1'), not a count"),
        ({"s": X, "s.0": X[0], "s.length": np.int64(1)}, "input s: given both as s and as s.length"),
        ({"s.length": np.int64(0), "o.none": np.array(True), "o": X}, "input o: given both as o and as o.none"),
        ({"s.length": np.int64(0), "o.none": np.array(False), "o": X}, "input o: o.none is array(False), not True"),
        ({"s.length": np.int64(0), "o.none": np.int64(1)}, "input o: o.none is array(1), not True"),
    ],
    ids=["huge-count", "negative-count", "float-count", "vector-count", "string-count",
         "sequence-twice", "optional-twice", "none-false", "none-int"],
)  # fmt: skip
def test_an_npz_not_saying_one_value_is_refused_in_one_line(tmp_path, arrays, message):
    onnx.save(sequence_identity_model(), tmp_path / "m.onnx")
    arrays = {"o": X} | arrays if "o.none" not in arrays else arrays
    np.savez(tmp_path / "in.npz", **arrays)
    result = graph_opt_run(
        "m.onnx", "-i", "in.npz", cwd=tmp_path, preexec_fn=limited_memory
    )
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert message in line
    assert result.stdout == b""


def test_an_object_array_is_refused_unpickled(tmp_path):
    """np.load keeps allow_pickle off: a pickled array is never unpickled."""
    onnx.save(sequence_identity_model(), tmp_path / "m.onnx")
    arrays = {"s.length": np.int64(0), "o": np.array([print], dtype=object)}
    np.savez(tmp_path / "in.npz", **arrays)
    result = graph_opt_run("m.onnx", "-i", "in.npz", cwd=tmp_path)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert "Object arrays cannot be loaded when allow_pickle=False" in line
