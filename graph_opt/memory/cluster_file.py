"""Reading a cluster description from a JSON or TOML file (TOML by its
`.toml` suffix), every field checked, errors as one line naming the file and
the field:

    {"default_device": "/device:GPU:0",
     "devices": [
       {"name": "/device:GPU:0", "memory": "16GiB", "bandwidth": "16GB/s", "layout": "NCHW"},
       {"name": "/device:CPU:0", "memory": "64GiB", "layout": "NHWC"}]}

`memory` is bytes, or a number with a unit (B, KB, MB, GB, TB or KiB, MiB,
GiB, TiB); `bandwidth` bytes per second, or a number with a unit and `/s`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from xdsl.utils.exceptions import PassFailedException

from graph_opt.memory.cluster import Cluster, Device, active_cluster
from graph_opt.memory.liveness import same_device

LAYOUTS = ("NCHW", "NHWC")
DEVICE_FIELDS = ("name", "memory", "bandwidth", "layout")
CLUSTER_FIELDS = ("devices", "default_device")
UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_QUANTITY = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)\s*$", re.IGNORECASE)


class ClusterFileError(ValueError):
    """A cluster file that cannot be read, or a field that is wrong."""


def read_cluster(path: str | os.PathLike) -> Cluster:
    source = str(path)
    try:
        text = Path(path).read_bytes()
    except OSError as error:
        raise ClusterFileError(f"{source}: cannot read: {error.strerror}") from error
    data = _parse(source, text)
    return _cluster(source, data)


def cluster_for_pass(pass_name: str, path: str) -> Cluster | None:
    """A pass's cluster: its `cluster` option's file, else the driver's."""
    if not path:
        return active_cluster()
    try:
        return read_cluster(path)
    except ClusterFileError as error:
        raise PassFailedException(f"{pass_name}: {error}") from error


def _parse(source: str, text: bytes) -> object:
    if source.lower().endswith(".toml"):
        try:
            import tomllib
        except ImportError as error:  # Python 3.10
            raise ClusterFileError(
                f"{source}: TOML needs Python 3.11 (tomllib); write the cluster as JSON"
            ) from error
        try:
            return tomllib.loads(text.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ClusterFileError(f"{source}: not valid TOML: {error}") from error
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ClusterFileError(
            f"{source}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}"
        ) from error
    except UnicodeDecodeError as error:
        raise ClusterFileError(f"{source}: not valid JSON: {error}") from error


def _cluster(source: str, data: object) -> Cluster:
    def fail(field: str, message: str) -> ClusterFileError:
        return ClusterFileError(f"{source}: {field}: {message}")

    if not isinstance(data, dict):
        raise ClusterFileError(f"{source}: expected an object with `devices`")
    _known_fields(data, CLUSTER_FIELDS, "", fail)
    entries = data.get("devices")
    if not isinstance(entries, list) or not entries:
        raise fail("devices", "expected a non-empty list of devices")
    devices: list[Device] = []
    for index, entry in enumerate(entries):
        device = _device(entry, f"devices[{index}]", fail)
        twin = next((d for d in devices if same_device(d.name, device.name)), None)
        if twin is not None:
            raise fail(f"devices[{index}].name", f"{device.name} is listed twice")
        devices.append(device)
    default = data.get("default_device")
    if default is not None:
        if not isinstance(default, str) or not any(
            same_device(d.name, default) for d in devices
        ):
            raise fail("default_device", f"{default!r} names no listed device")
    return Cluster(tuple(devices), default, source)


def _device(entry: object, where: str, fail) -> Device:
    if not isinstance(entry, dict):
        raise fail(where, "expected an object with a `name`")
    _known_fields(entry, DEVICE_FIELDS, f"{where}.", fail)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail(f"{where}.name", "expected a device name such as /device:GPU:0")
    layout = entry.get("layout")
    if layout is not None and layout not in LAYOUTS:
        raise fail(f"{where}.layout", f"expected NCHW or NHWC, got {layout!r}")
    memory = entry.get("memory")
    bandwidth = entry.get("bandwidth")
    return Device(
        name,
        None if memory is None else int(_quantity(memory, "", f"{where}.memory", fail)),
        None
        if bandwidth is None
        else _quantity(bandwidth, "/s", f"{where}.bandwidth", fail),
        layout,
    )


def _known_fields(entry: dict, known: tuple[str, ...], prefix: str, fail) -> None:
    for key in entry:
        if key not in known:
            raise fail(f"{prefix}{key}", f"unknown field (known: {', '.join(known)})")


def _quantity(value: object, per: str, field: str, fail) -> float:
    """A positive number of bytes (per second with `per`), with an optional unit."""
    expected = f"expected a positive number of bytes{per}, or one such as '16GiB{per}'"
    if isinstance(value, bool):
        raise fail(field, expected)
    if isinstance(value, int | float):
        amount = float(value)
    elif isinstance(value, str) and value.strip().lower().endswith(per):
        found = _QUANTITY.match(value.strip()[: len(value.strip()) - len(per)])
        unit = found[2].lower() if found else ""
        if found is None or (unit and unit not in UNITS):
            raise fail(field, f"{expected}, got {value!r}")
        amount = float(found[1]) * UNITS.get(unit, 1)
    else:
        raise fail(field, f"{expected}, got {value!r}")
    if not amount > 0 or amount == float("inf"):
        raise fail(field, f"{expected}, got {value!r}")
    return amount
