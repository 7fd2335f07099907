"""Which of TVM's TensorFlow ops graph-opt's TensorFlow frontend maps.

TVM's list (the keys of its Relay frontend's `_convert_map`) is kept in
bench/data/tvm_tensorflow_ops.txt with its source. graph-opt's is the importer
table after every mapping module is loaded.

Usage: python bench/tf_op_coverage.py [--write-docs]
(--write-docs rewrites the line of docs/frontends/tensorflow.md that starts
with "graph-opt maps").
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TVM_OPS = ROOT / "bench" / "data" / "tvm_tensorflow_ops.txt"
PAGE = ROOT / "docs" / "frontends" / "tensorflow.md"
PAGE_LINE = re.compile(
    r"^graph-opt maps \d+ of TVM's \d+ TensorFlow ops.*?(?=\n\n)", re.M | re.S
)


def tvm_ops() -> list[str]:
    lines = TVM_OPS.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def graph_opt_ops() -> set[str]:
    import graph_opt.formats.tensorflow.control_flow  # noqa: F401 (If, While, calls)
    from graph_opt.formats.tensorflow.op_table import IMPORTERS, load_mappings

    load_mappings()
    from graph_opt.dialects.effects import EFFECT_OPS

    return set(IMPORTERS) | EFFECT_OPS  # side effects import as ordered opaque ops


def summary() -> str:
    """The docs paragraph, wrapped at 80 columns."""
    theirs = tvm_ops()
    ours = graph_opt_ops()
    missing = [op for op in theirs if op not in ours]
    line = (
        f"graph-opt maps {len(theirs) - len(missing)} of TVM's {len(theirs)} "
        f"TensorFlow ops (`python bench/tf_op_coverage.py`); missing: "
        + ", ".join(missing)
        + "."
    )
    return textwrap.fill(line, 80, break_on_hyphens=False, break_long_words=False)


def write_docs(line: str) -> None:
    text = PAGE.read_text()
    if not PAGE_LINE.search(text):
        raise SystemExit(f'{PAGE} has no line starting with "graph-opt maps"')
    PAGE.write_text(PAGE_LINE.sub(lambda _: line, text, count=1))


def main(argv: list[str]) -> None:
    line = summary()
    print(line)
    if "--write-docs" in argv:
        write_docs(line)


if __name__ == "__main__":
    main(sys.argv[1:])
