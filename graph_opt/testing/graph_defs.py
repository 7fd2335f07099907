"""Setting TensorFlow NodeDef attributes from Python values, for graphs built
with graph-opt's schema (the test fixtures and the fuzzer): the GraphDef
export's helpers."""

from __future__ import annotations

from graph_opt.frontend.tensorflow.graph_export import DataType as Type
from graph_opt.frontend.tensorflow.graph_export import set_attr

__all__ = ["Type", "set_attr"]
