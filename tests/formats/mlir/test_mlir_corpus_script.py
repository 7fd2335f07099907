"""bench/mlir_corpus.py keeps working: on a one-model zoo (the masked attention of
test_float_bits_cli) it prints the model's row, with its hex elements, and the
shipped TensorFlow corpora, all the same after the round trip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from test_float_bits_cli import masked_attention_model

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "mlir_corpus.py"


def test_mlir_corpus_script(tmp_path):
    onnx.save(masked_attention_model(), tmp_path / "masked.onnx")
    x = np.random.default_rng(0).standard_normal((6, 6)).astype(np.float32)
    np.savez(tmp_path / "masked.inputs.npz", x=x)
    (tmp_path / "manifest.json").write_text(json.dumps([{"name": "masked"}]))
    result = subprocess.run(
        [sys.executable, SCRIPT, "--zoo", tmp_path, "--models", "masked,resnet50"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {line.split(" | ")[0].strip(): line for line in result.stdout.splitlines()}
    cells = [c.strip() for c in rows["masked"].split(" | ")]
    assert cells[1:7] == ["2", "2", "same", "same", "same", "same"]
    assert "2 models, 0 differ after the round trip" in result.stdout
