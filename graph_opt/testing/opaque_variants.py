"""Randomized one-node models of operators graph-opt imports as `nn.opaque`:
random shapes (batch and channels apart), dtypes and non-default attributes.

Each generator draws through a `Pick`: `RandomPick` (numpy) for
`bench/opaque_ops.py`, one over hypothesis's `data()` in the tests, so both run
the same definitions. The differential check is `opaque_differential.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
import onnx
from onnx import helper

from graph_opt.testing.opaque_differential import Case

T = TypeVar("T")

OPSET = 21


class Pick(Protocol):
    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]."""
        ...

    def real(self, low: float, high: float) -> float: ...

    def choice(self, options: Sequence[T]) -> T: ...


class RandomPick:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def integer(self, low: int, high: int) -> int:
        return int(self.rng.integers(low, high + 1))

    def real(self, low: float, high: float) -> float:
        return float(self.rng.uniform(low, high))

    def choice(self, options: Sequence[T]) -> T:
        return options[int(self.rng.integers(len(options)))]


FLOATS = (np.float32, np.float64, np.float16)


def _data(pick: Pick, shape: Sequence[int], dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(pick.integer(0, 2**31))
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 2).astype(dtype)


def _nchw(pick: Pick, rank: int = 4) -> list[int]:
    """N x C x D...: the batch size and the channels drawn apart."""
    return [pick.integer(1, 3), pick.integer(1, 7)] + [
        pick.integer(1, 4) for _ in range(rank - 2)
    ]


def one_node(
    op_type: str,
    inputs: Sequence[np.ndarray],
    attrs: dict[str, Any],
    outputs: int = 1,
    opset: int = OPSET,
) -> onnx.ModelProto:
    """A model of one `op_type` node whose inputs are graph inputs of `inputs`' types."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, [f"y{i}" for i in range(outputs)], **attrs)
    graph = helper.make_graph(
        [node],
        op_type,
        [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in zip(names, inputs)
        ],
        [helper.make_empty_tensor_value_info(f"y{i}") for i in range(outputs)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    first_type = graph.input[0].type.tensor_type.elem_type
    for output in model.graph.output:  # not inferred through a function body
        if not output.type.HasField("tensor_type"):
            output.type.tensor_type.elem_type = first_type
    return model


def lrn(pick: Pick):
    size = pick.integer(1, 6)
    attrs = {
        "size": size,
        "alpha": pick.real(1e-4, 2.0),
        "beta": pick.real(0.1, 1.5),
        "bias": pick.real(0.5, 3.0),
    }
    return [_data(pick, _nchw(pick), pick.choice((np.float32, np.float16)))], attrs


def celu(pick: Pick):
    return [_data(pick, _nchw(pick, 3))], {"alpha": pick.real(0.1, 3.0)}


def shrink(pick: Pick):
    dtype = pick.choice((np.float32, np.float64, np.int32))
    attrs = {"lambd": pick.real(0.0, 2.0), "bias": pick.real(-1.0, 1.0)}
    return [_data(pick, _nchw(pick, 3), dtype)], attrs


def thresholded_relu(pick: Pick):
    dtype = pick.choice(FLOATS)
    return [_data(pick, _nchw(pick, 3), dtype)], {"alpha": pick.real(-1.0, 2.0)}


def lp_normalization(pick: Pick):
    rank = pick.integer(2, 4)
    attrs = {"axis": pick.integer(-rank, rank - 1), "p": pick.choice((1, 2))}
    return [_data(pick, _nchw(pick, rank), pick.choice(FLOATS[:2]))], attrs


def mean_variance_normalization(pick: Pick):
    """Each normalized slice holds 2 or more elements: on a constant slice
    onnxruntime gives NaN where the definition's epsilon gives 0."""
    axes = pick.choice(([0, 2, 3], [1], [2, 3], [0, 1, 2, 3]))
    shape = _nchw(pick)
    shape[axes[-1]] = max(2, shape[axes[-1]])
    return [_data(pick, shape)], {"axes": axes}


def instance_normalization(pick: Pick):
    shape = _nchw(pick, pick.integer(3, 4))
    channels = [shape[1]]
    inputs = [_data(pick, shape), _data(pick, channels), _data(pick, channels)]
    return inputs, {"epsilon": pick.real(1e-6, 0.5)}


def depth_to_space(pick: Pick):
    block = pick.integer(1, 3)
    shape = [pick.integer(1, 3), block * block * pick.integer(1, 3)]
    shape += [pick.integer(1, 3), pick.integer(1, 3)]
    attrs = {"blocksize": block, "mode": pick.choice(("DCR", "CRD"))}
    return [_data(pick, shape, pick.choice(FLOATS))], attrs


def space_to_depth(pick: Pick):
    block = pick.integer(1, 3)
    shape = _nchw(pick, 2) + [block * pick.integer(1, 3), block * pick.integer(1, 3)]
    return [_data(pick, shape, pick.choice(FLOATS))], {"blocksize": block}


def hardmax(pick: Pick):
    rank = pick.integer(1, 4)
    shape = _nchw(pick, rank)[-rank:] if rank > 1 else [pick.integer(1, 6)]
    return [_data(pick, shape)], {"axis": pick.integer(-rank, rank - 1)}


def log_softmax(pick: Pick):
    rank = pick.integer(2, 4)
    attrs = {"axis": pick.integer(-rank, rank - 1)}
    return [_data(pick, _nchw(pick, rank), pick.choice(FLOATS[:2]))], attrs


def _reduce(pick: Pick):
    rank = pick.integer(1, 4)
    shape = [pick.integer(1, 4) for _ in range(rank)]
    chosen = {pick.integer(0, rank - 1) for _ in range(pick.integer(1, rank))}
    axes = sorted(a - rank * pick.integer(0, 1) for a in chosen)  # some negative
    x = np.abs(_data(pick, shape)) + 0.5  # ReduceLogSum's log of the sum
    attrs = {"keepdims": pick.integer(0, 1)}
    return [x, np.array(axes, np.int64)], attrs


def trilu(pick: Pick):
    shape = [pick.integer(1, 3), pick.integer(1, 5), pick.integer(1, 5)]
    k = np.array(pick.integer(-4, 4), np.int64)
    dtype = pick.choice((np.float32, np.int64))
    return [_data(pick, shape, dtype), k], {"upper": pick.integer(0, 1)}


def global_lp_pool(pick: Pick):
    return [_data(pick, _nchw(pick))], {"p": pick.integer(1, 3)}


def lp_pool(pick: Pick):
    shape = _nchw(pick, 2) + [pick.integer(3, 6), pick.integer(3, 6)]
    kernel = [pick.integer(1, 3), pick.integer(1, 3)]
    attrs = {
        "p": pick.integer(1, 3),
        "kernel_shape": kernel,
        "strides": [pick.integer(1, 2), pick.integer(1, 2)],
    }
    return [_data(pick, shape)], attrs


def prelu(pick: Pick):
    shape = _nchw(pick)
    slope = [shape[1], 1, 1] if pick.integer(0, 1) else [1]
    return [_data(pick, shape), _data(pick, slope)], {}


def _variadic(pick: Pick):
    shape = _nchw(pick, 3)
    count = pick.integer(1, 4)
    return [_data(pick, shape[pick.integer(0, 2) :]) for _ in range(count)], {}


def reverse_sequence(pick: Pick):
    batch, time = pick.integer(1, 4), pick.integer(1, 5)
    batch_axis = pick.integer(0, 1)
    shape = [time, batch] if batch_axis else [batch, time]
    lengths = np.array([pick.integer(1, time) for _ in range(batch)], np.int64)
    x = _data(pick, [*shape, pick.integer(1, 3)])
    return [x, lengths], {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}


def eye_like(pick: Pick):
    shape = [pick.integer(1, 5), pick.integer(1, 5)]
    return [_data(pick, shape)], {"k": pick.integer(-4, 4)}


def group_normalization(pick: Pick):
    groups = pick.integer(1, 3)
    shape = [pick.integer(1, 3), groups * pick.integer(1, 3), pick.integer(1, 4)]
    channels = [shape[1]]
    inputs = [_data(pick, shape), _data(pick, channels), _data(pick, channels)]
    return inputs, {"num_groups": groups, "epsilon": pick.real(1e-6, 0.5)}


Generator = Callable[[Pick], tuple[list[np.ndarray], dict[str, Any]]]

VARIANTS: dict[str, Generator] = {
    "LRN": lrn,
    "Celu": celu,
    "Shrink": shrink,
    "ThresholdedRelu": thresholded_relu,
    "LpNormalization": lp_normalization,
    "MeanVarianceNormalization": mean_variance_normalization,
    "InstanceNormalization": instance_normalization,
    "DepthToSpace": depth_to_space,
    "SpaceToDepth": space_to_depth,
    "Hardmax": hardmax,
    "LogSoftmax": log_softmax,
    "ReduceL1": _reduce,
    "ReduceL2": _reduce,
    "ReduceLogSum": _reduce,
    "ReduceLogSumExp": _reduce,
    "ReduceSumSquare": _reduce,
    "Trilu": trilu,
    "GlobalLpPool": global_lp_pool,
    "LpPool": lp_pool,
    "PRelu": prelu,
    "Mean": _variadic,
    "Sum": _variadic,
    "ReverseSequence": reverse_sequence,
    "EyeLike": eye_like,
    "GroupNormalization": group_normalization,
}
"""Opaque operators with a generator of randomized variants."""


def variant(op_type: str, pick: Pick) -> Case:
    """A random one-node model of `op_type` (a key of VARIANTS) and its inputs."""
    inputs, attrs = VARIANTS[op_type](pick)
    shown = ",".join(f"{k}={_short(v)}" for k, v in sorted(attrs.items()))
    shapes = " ".join(f"{list(a.shape)}:{a.dtype}" for a in inputs)
    model = one_node(op_type, inputs, attrs)
    return Case(op_type, f"{op_type}({shown}) {shapes}", model, tuple(inputs))


def _short(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value).replace(" ", "")
