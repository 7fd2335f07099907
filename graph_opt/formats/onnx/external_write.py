"""Writing an ONNX model's large weights to an external data file.

Protobuf refuses messages of 2 GiB or more (onnxruntime fails to parse them),
so a model past `PROTOBUF_LIMIT` is written with its weights in a file beside
it, as `onnx.save(..., save_as_external_data=True)` lays it out (`location`,
`offset`, `length`; offsets aligned to `ALIGNMENT`); on request
(`ExternalData`) any model is. A weight mapped from the model graph-opt read is
copied file to file, never read into the process (`graph_opt.weights`); a
weight a pass computed is written past the page cache
(`graph_opt.formats.direct_write`); a weight held twice (two constants of one
mapped region) is written once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import onnx
from onnx import TensorProto

from graph_opt.formats.direct_write import DirectWriter
from graph_opt.formats.errors import FrontendError
from graph_opt.output_files import writing_output_file
from graph_opt.weights import WeightBytes

PROTOBUF_LIMIT = (1 << 31) - 1
"""The largest message protobuf parses."""
ALIGNMENT = 4096
"""Each weight starts at a multiple of this offset (pages: mappable in place)."""


@dataclass(frozen=True)
class ExternalData:
    """Where and which weights go outside the model.

    `location`: the data file's name, beside the model (None: the model's name
    plus ".data"); `min_bytes`: tensors of fewer bytes stay in the model (those
    under 4096 bytes always do); `always`: write external data even when the
    model would fit in one protobuf."""

    location: str | None = None
    min_bytes: int = 1024
    always: bool = False


def needs_external_data(
    model: onnx.ModelProto, deferred: dict[str, object], options: ExternalData
) -> bool:
    """Whether the weights go to a file: asked for, or the model too large."""
    if options.always:
        return True
    size = model.ByteSize() + sum(len(raw) + 16 for raw in deferred.values())
    return size > PROTOBUF_LIMIT


@contextmanager
def writing_external_data(
    model: onnx.ModelProto,
    deferred: dict[str, object],
    model_path: str | os.PathLike | None,
    options: ExternalData,
) -> Iterator[None]:
    """Write the deferred weights of at least `options.min_bytes` to the data
    file and point their tensors at it; they leave `deferred`. The data file
    replaces the previous one only when the block ends normally: write the
    model inside it, so a model that fails to be written (a full disk) leaves
    the previous model and data file as they were, a matching pair."""
    if model_path is None:
        raise FrontendError(
            "the model needs external data (its weights pass protobuf's 2 GiB "
            "limit, or it was asked for) and is not written to a file: give one "
            "with -o"
        )
    directory, name = os.path.split(os.fspath(model_path))
    location = options.location or f"{name}.data"
    if os.path.basename(location) != location or location in ("", ".", ".."):
        raise FrontendError(
            f"--external-data {location!r}: a file name beside the model, "
            "without a directory"
        )
    written: dict[object, tuple[int, int]] = {}
    with writing_output_file(os.path.join(directory, location)) as data_file:
        data_file.flush()
        fd, end = data_file.fileno(), 0
        with DirectWriter(fd) as writer:
            for tensor in model.graph.initializer:
                raw = deferred.get(tensor.name)
                if raw is None or len(raw) < options.min_bytes:
                    continue
                key = raw if type(raw) is WeightBytes else id(raw)
                if key not in written:
                    offset = -end % ALIGNMENT + end
                    writer.write(raw, offset)
                    end = offset + len(raw)
                    written[key] = (offset, len(raw))
                _point_at(tensor, location, *written[key])
                del deferred[tensor.name]
        os.ftruncate(fd, end)
        yield


def _point_at(tensor: TensorProto, location: str, offset: int, length: int) -> None:
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, str(value)
