"""Setting TensorFlow NodeDef attributes from Python values, for graphs built
with graph-opt's schema (the test fixtures and the fuzzer): the GraphDef
export's helpers."""

from __future__ import annotations

from graph_opt.formats.tensorflow.export.exporter import DataType as Type
from graph_opt.formats.tensorflow.export.exporter import set_attr

__all__ = ["Type", "set_attr"]
