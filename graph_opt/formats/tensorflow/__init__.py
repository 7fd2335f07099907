"""TensorFlow GraphDef import (.pb, .pbtxt), without TensorFlow: see `schema`."""

from __future__ import annotations

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.importer import (
    graph_def_from_bytes,
    import_graph_def,
    load_graph_def,
)

__all__ = [
    "graph_def_from_bytes",
    "import_graph_def",
    "load_graph_def",
    "parse_input_shapes",
]


def parse_input_shapes(specs: list[str]) -> dict[str, list[int]]:
    """`name=1,224,224,3` options as {name: dims}."""
    shapes = {}
    for spec in specs:
        name, _, dims = spec.rpartition("=")
        try:
            shapes[name] = [int(d) for d in dims.split(",")] if dims else []
        except ValueError:
            name = ""
        if not name:
            raise FrontendError(
                f"bad --input-shape '{spec}': expected NAME=D0,D1,... (e.g. input=1,224,224,3)"
            )
    return shapes
