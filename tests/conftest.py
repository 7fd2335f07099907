"""Test directories named after packages (tests/formats/tensorflow, .../tflite,
.../onnx) reach sys.path when pytest imports the test modules beside them, and
a directory on sys.path is importable as a namespace package when no real
package of that name is installed: `pytest.importorskip("tensorflow")` would
then import the test directory instead of skipping. The packages the tests
import only when present are looked up here, before any test directory is on
sys.path, and an absent one is marked absent for good."""

import importlib.util
import sys

OPTIONAL_PACKAGES = ("tensorflow", "tflite", "ai_edge_litert", "torch")

for name in OPTIONAL_PACKAGES:
    if name not in sys.modules and importlib.util.find_spec(name) is None:
        sys.modules[name] = None  # import raises ImportError: importorskip skips
