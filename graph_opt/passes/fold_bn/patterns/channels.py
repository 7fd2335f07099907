"""Per-channel affine maps (x * scale + shift along one axis) and where their channels live."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graph_opt.dialects.nn.shapes import DYN


@dataclass(frozen=True)
class ChannelAffine:
    """x * scale + shift, with float64 vectors over the channels of one axis."""

    scale: np.ndarray
    shift: np.ndarray

    @staticmethod
    def identity(channels: int) -> ChannelAffine:
        return ChannelAffine(np.ones(channels), np.zeros(channels))

    def then(self, other: ChannelAffine) -> ChannelAffine:
        """This map followed by `other`."""
        return ChannelAffine(
            self.scale * other.scale, self.shift * other.scale + other.shift
        )


def batch_norm_affine(params: np.ndarray, epsilon: float) -> ChannelAffine | str:
    """Inference batch norm as x * s + t, or why it has no finite form; `params`
    holds gamma, beta, mean and variance as float64 rows."""
    gamma, beta, mean, variance = params
    denominator = variance + epsilon
    if not (denominator > 0).all():
        return "variance + epsilon is not positive"
    scale = gamma / np.sqrt(denominator)
    return ChannelAffine(scale, beta - mean * scale)


def channel_vector(
    constant: np.ndarray, value_shape: Sequence[int], axis: int
) -> np.ndarray | None:
    """The float64 vector a constant broadcasts along `axis` of `value_shape`, or
    None when it varies along another axis or would enlarge the value."""
    rank = len(value_shape)
    if constant.ndim > rank:
        return None
    shape = (1,) * (rank - constant.ndim) + constant.shape
    if any(size != 1 for i, size in enumerate(shape) if i != axis):
        return None
    if shape[axis] not in (1, value_shape[axis]):
        return None
    return np.broadcast_to(
        constant.astype(np.float64).reshape(-1), (value_shape[axis],)
    )


def reshaped_channel_axis(
    in_shape: Sequence[int], out_shape: Sequence[int], axis: int
) -> int | None:
    """The axis of a reshape's result that carries input channel `axis`, or None.

    Elements keep their flat order, so channel c of an element is
    (flat // inner) % C with inner the product of the dims after the axis;
    an output axis of size C with the same inner product carries the same channel.
    """
    if DYN in in_shape or DYN in out_shape:
        return None
    channels, inner = in_shape[axis], math.prod(in_shape[axis + 1 :])
    for candidate, size in enumerate(out_shape):
        if size == channels and math.prod(out_shape[candidate + 1 :]) == inner:
            return candidate
    return None
