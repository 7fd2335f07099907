"""Writes TensorFlow's op registry (every OpDef, without documentation) to
graph_opt/formats/tensorflow/op_defs.pb.gz, which `validation` checks
GraphDefs against as TensorFlow's importer does.

Needs TensorFlow (not a dependency; the package ships the written file):
    python tests/formats/tensorflow/make_op_defs.py
"""

from __future__ import annotations

import gzip
from pathlib import Path

import tensorflow as tf
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.client import pywrap_tf_session as c_api

TARGET = Path(__file__).parents[3] / "graph_opt/formats/tensorflow/op_defs.pb.gz"


def main() -> None:
    ops = op_def_pb2.OpList()
    ops.ParseFromString(c_api.TF_GetBuffer(c_api.TF_GetAllOpList()))
    for op in ops.op:
        op.ClearField("summary")
        op.ClearField("description")
        op.ClearField("deprecation")
        for arg in (*op.input_arg, *op.output_arg):
            arg.ClearField("description")
        for attr in op.attr:
            attr.ClearField("description")
    ops.op.sort(key=lambda op: op.name)
    TARGET.write_bytes(
        gzip.compress(ops.SerializeToString(deterministic=True), 9, mtime=0)
    )
    print(f"{len(ops.op)} ops from TensorFlow {tf.__version__} -> {TARGET}")


if __name__ == "__main__":
    main()
