"""SavedModel directories without TensorFlow: the checkpoint reader, signatures,
and one-line errors on broken directories."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.formats.tensorflow.tensor_bundle import TensorBundle, read_table
from graph_opt.interpreter import run_function

CORPUS = Path(__file__).parent / "corpus"
MODEL = CORPUS / "dilated_conv_bn_saved_model"


def test_bundle_holds_every_variable_with_its_shape():
    bundle = TensorBundle(MODEL / "variables" / "variables")
    shapes = {
        key.split("/")[-3]: bundle.tensor(key).shape
        for key in bundle.entries
        if key.endswith("VARIABLE_VALUE")
    }
    assert shapes == {
        "_kernel": (3, 3, 3, 8), "bias": (8,), "gamma": (8,), "beta": (8,),
        "moving_mean": (8,), "moving_variance": (8,),
    }  # fmt: skip
    variance = next(k for k in bundle.entries if "moving_variance" in k)
    assert np.all(bundle.tensor(variance) >= 0.5)  # make_corpus draws them in [0.5, 2]


def test_signature_names_arguments_and_results_and_matches_tensorflow():
    data = np.load(CORPUS / "dilated_conv_bn.npz")
    module = api.load(MODEL)
    text = api.to_mlir(module)
    assert '{nn.name = "input"}' in text and '{nn.name = "output_0"}' in text
    np.testing.assert_allclose(
        run_function(module, [data["in:input"]])[0], data["out:0"], rtol=1e-5, atol=1e-5
    )


def test_unknown_signature_lists_the_known_ones():
    with pytest.raises(
        FrontendError, match="no signature 'foo' \\(has: serving_default\\)"
    ):
        import_saved_model(MODEL, "foo")


def broken_copy(tmp_path: Path, damage) -> Path:
    copy = tmp_path / "model"
    shutil.copytree(MODEL, copy)
    damage(copy)
    return copy


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "variables" / "variables.data-00000-of-00001").unlink(),
         "cannot read the checkpoint data"),
        (lambda d: (d / "variables" / "variables.index").write_bytes(b"\0" * 60),
         "not a TensorFlow checkpoint index"),
        (lambda d: (d / "saved_model.pb").write_bytes(b"\xff\xff\xff"),
         "not a valid SavedModel"),
        (lambda d: (d / "saved_model.pb").unlink(), "cannot read the SavedModel"),
    ],
)  # fmt: skip
def test_broken_directories_are_one_line_errors(tmp_path: Path, damage, message):
    directory = broken_copy(tmp_path, damage)
    result = subprocess.run(
        ["graph-opt", str(directory)], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_read_table_rejects_a_truncated_index():
    table = (MODEL / "variables" / "variables.index").read_bytes()
    assert read_table(table)[0][0] == b""  # the header entry comes first
    with pytest.raises(ValueError, match="magic"):
        read_table(table[:-1])
