"""A cluster description, as Grappler's optimizers read a Cluster: the devices
a graph runs on, each with its memory, its bandwidth to the host and the data
layout it prefers.

The memory passes count each op's tensors against the memory of the device
it is placed on (its `tf.device`; an unplaced op's: `default_device`), and
convert-layout converts only ops whose device prefers the target layout.
`graph-opt --cluster=FILE`, `graph_opt.api.run(..., cluster=...)` and each
pass's `cluster=FILE` option give one (`cluster_file.read_cluster`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from graph_opt.memory.liveness import DEFAULT_DEVICE, same_device


@dataclass(frozen=True)
class Device:
    name: str
    """A TensorFlow device name (`/device:GPU:0`; `/gpu:0` and the `/job:...`
    form name the same device)."""
    memory: int | None = None
    """Bytes of memory."""
    bandwidth: float | None = None
    """Bytes per second of copies between the device and the host."""
    layout: str | None = None
    """The data layout its kernels prefer (NCHW or NHWC)."""


@dataclass(frozen=True)
class Cluster:
    devices: tuple[Device, ...]
    default_device: str | None = None
    """Where unplaced ops run; None: they keep a device of their own ("")."""
    source: str = "cluster"
    """The file it was read from, for messages."""

    def device(self, placement: str) -> Device | None:
        """The listed device an op placed on `placement` runs on ("": unplaced)."""
        name = placement or self.default_device
        if not name:
            return None
        return next((d for d in self.devices if same_device(d.name, name)), None)

    def device_name(self, placement: str) -> str:
        """The name the planner counts an op placed on `placement` under: the
        listed device's, else `placement` as it is."""
        listed = self.device(placement)
        return listed.name if listed is not None else placement or DEFAULT_DEVICE


_active: Cluster | None = None


@contextmanager
def using_cluster(cluster: Cluster | None) -> Iterator[None]:
    """The cluster passes use while the block runs, unless given their own."""
    global _active
    previous, _active = _active, cluster
    try:
        yield
    finally:
        _active = previous


def active_cluster() -> Cluster | None:
    return _active
