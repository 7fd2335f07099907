"""TensorFlow's semantics in plain numpy, written from its documentation, for expectations."""

from __future__ import annotations

import math

import numpy as np


def same_padding(
    size: int, kernel: int, stride: int, dilation: int = 1
) -> tuple[int, int]:
    """TensorFlow's SAME: output ceil(size / stride), the odd pixel padded at the end."""
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def conv2d_nhwc(x, w, strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0))):
    """Conv2D of NHWC data with an HWIO filter, one output pixel at a time."""
    xp = np.pad(x.astype(np.float64), ((0, 0), *pads, (0, 0)))
    kh, kw = w.shape[:2]
    (sh, sw), (dh, dw) = strides, dilations
    out_h = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    out_w = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], out_h, out_w, w.shape[3]))
    for i in range(out_h):
        for j in range(out_w):
            window = xp[:, i * sh : i * sh + (kh - 1) * dh + 1 : dh,
                        j * sw : j * sw + (kw - 1) * dw + 1 : dw, :]  # fmt: skip
            out[:, i, j, :] = np.einsum("nhwc,hwco->no", window, w)
    return out.astype(x.dtype)


def depthwise_conv2d_nhwc(
    x, w, strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0))
):
    """DepthwiseConv2dNative: filter [H, W, C, M], output channel c * M + m."""
    channels, multiplier = w.shape[2:]
    outs = [
        conv2d_nhwc(x[..., c : c + 1], w[:, :, c : c + 1, :], strides, dilations, pads)
        for c in range(channels)
    ]
    return np.concatenate(outs, axis=-1).reshape(
        *outs[0].shape[:3], channels * multiplier
    )


def batch_norm_nhwc(x, scale, offset, mean, variance, epsilon):
    return (x - mean) / np.sqrt(variance + epsilon) * scale + offset


def relu6(x):
    return np.minimum(np.maximum(x, 0), 6)


def leaky_relu(x, alpha):
    return np.where(x >= 0, x, alpha * x)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))
