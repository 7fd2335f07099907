"""TFLite: the int8 graph written as a .tflite flatbuffer (`exporter`)."""
