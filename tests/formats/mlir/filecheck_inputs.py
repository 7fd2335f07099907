"""Every module the FileCheck suite feeds graph-opt: each file, split on `// -----`
where its RUN lines use --split-input-file."""

from __future__ import annotations

from pathlib import Path

FILECHECK_DIR = Path(__file__).parents[2] / "filecheck"


def filecheck_chunks() -> list[tuple[str, str]]:
    """(file:chunk-index, text) of every FileCheck input."""
    chunks = []
    for path in sorted(FILECHECK_DIR.rglob("*.mlir")):
        text = path.read_text()
        name = path.relative_to(FILECHECK_DIR).as_posix()
        parts = text.split("// -----") if "--split-input-file" in text else [text]
        chunks += [(f"{name}:{i}", part) for i, part in enumerate(parts)]
    return chunks


CHUNKS = filecheck_chunks()
