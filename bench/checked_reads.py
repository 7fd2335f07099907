"""What checked reads of model files cost: CRC-32C throughput, and the import
of the TensorFlow corpus' SavedModels (every checkpoint tensor checked) and of
an ONNX model whose 3,000 weights lie in one external file.

    python bench/checked_reads.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.tensorflow.crc32c import crc32c

CORPUS = Path(__file__).parents[1] / "tests" / "formats" / "tensorflow" / "corpus"
SAVED_MODELS = ["resnet50_saved_model", "efficientnet_b0_saved_model",
                "mobilenet_v2_saved_model", "mobilenet_v3_saved_model"]  # fmt: skip


def best_of(runs: int, body) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return min(times)


def crc_rows() -> None:
    print("| data | MB/s |\n| --- | --- |")
    rng = np.random.default_rng(0)
    for size in (4 << 10, 64 << 10, 1 << 20, 64 << 20):
        data = rng.integers(0, 256, size, np.uint8).tobytes()
        crc32c(data)  # the carry tables of its sizes, once per process
        seconds = best_of(3, lambda data=data: crc32c(data))
        print(f"| {size >> 10} KiB | {size / seconds / 1e6:.0f} |")


def saved_model_rows() -> None:
    print("\n| SavedModel | checkpoint MB | import s |\n| --- | --- | --- |")
    for name in SAVED_MODELS:
        directory = CORPUS / name
        size = sum(p.stat().st_size for p in (directory / "variables").iterdir())
        seconds = best_of(3, lambda directory=directory: api.load(directory))
        print(f"| {name} | {size / 1e6:.1f} | {seconds:.2f} |")


def external_data_row() -> None:
    rng = np.random.default_rng(0)
    nodes, weights, previous = [], [], "x"
    for i in range(3000):
        weights.append(
            numpy_helper.from_array(rng.standard_normal((64, 64), np.float32), f"w{i}")
        )
        nodes.append(helper.make_node("MatMul", [previous, f"w{i}"], [f"y{i}"]))
        previous = f"y{i}"
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, 64])],
        weights,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chain.onnx"
        onnx.save_model(model, path, save_as_external_data=True,
                        location="weights.bin", size_threshold=0)  # fmt: skip
        seconds = best_of(3, lambda: api.load(path))
    print("\n| ONNX, 3,000 external weights (48 MB) | import s |\n| --- | --- |")
    print(f"| one file | {seconds:.2f} |")


if __name__ == "__main__":
    crc_rows()
    saved_model_rows()
    external_data_row()
