"""ONNX <-> nn mappings, one module per op family."""

from graph_opt.frontend.onnx_mappings import conv, elementwise, norm, shape_ops  # noqa: F401
