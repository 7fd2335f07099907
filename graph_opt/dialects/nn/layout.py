"""Data and filter layouts of convolution-like ops, for any number of spatial dims."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import PropertyDefaults, str_value

CHANNELS_FIRST = "NCHW"
CHANNELS_LAST = "NHWC"
DATA_LAYOUTS = (CHANNELS_FIRST, CHANNELS_LAST)


class HasDataLayout:
    """The `layout` of an op with an optional `data_layout` property (default NCHW)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"data_layout": CHANNELS_FIRST}

    @property
    def layout(self) -> str:
        return str_value(self.properties, "data_layout", CHANNELS_FIRST)  # type: ignore[attr-defined]


def check_layout(layout: str) -> None:
    if layout not in DATA_LAYOUTS:
        raise VerifyException(
            f"data_layout must be one of {DATA_LAYOUTS}, got {layout!r}"
        )


def channel_axis(layout: str, rank: int) -> int:
    return 1 if layout == CHANNELS_FIRST else rank - 1


def spatial_axes(layout: str, rank: int) -> list[int]:
    return (
        list(range(2, rank)) if layout == CHANNELS_FIRST else list(range(1, rank - 1))
    )


def split_data_shape(layout: str, shape: Sequence[int]) -> tuple[int, int, list[int]]:
    """(batch, channels, spatial dims) of a data tensor."""
    rank = len(shape)
    return (
        shape[0],
        shape[channel_axis(layout, rank)],
        [shape[a] for a in spatial_axes(layout, rank)],
    )


def join_data_shape(
    layout: str, batch: int, channels: int, spatial: Sequence[int]
) -> tuple[int, ...]:
    if layout == CHANNELS_FIRST:
        return (batch, channels, *spatial)
    return (batch, *spatial, channels)


def split_filter_shape(layout: str, shape: Sequence[int]) -> tuple[int, int, list[int]]:
    """(output channels, input channels per group, kernel dims) of a conv filter (OIHW or HWIO)."""
    if layout == CHANNELS_FIRST:
        return shape[0], shape[1], list(shape[2:])
    return shape[-1], shape[-2], list(shape[:-2])
