"""Frontends (ONNX, TensorFlow GraphDef) into the nn dialect, and the ONNX exporter."""
