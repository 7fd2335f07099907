"""Quantization support: TensorFlow's fake-quant arithmetic and range calibration."""
