"""TensorFlow GraphDef export: `exporter` and its per-family modules."""
