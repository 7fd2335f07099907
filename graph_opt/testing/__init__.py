"""Generated models (onnx.helper, seeded weights, no downloads) for tests and benchmarks."""
