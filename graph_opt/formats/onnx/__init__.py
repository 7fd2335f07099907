"""ONNX: import (`importer`), export (`exporter`), the operator table (`mappings/`)."""
