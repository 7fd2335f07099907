"""mkdocs hook: the op coverage page (op-coverage.md), generated at build time
from the registries by graph_opt.testing.op_coverage."""

from __future__ import annotations

from mkdocs.structure.files import File

from graph_opt.testing.op_coverage import coverage_page

URI = "op-coverage.md"


def on_files(files, config):
    files.append(File.generated(config, URI, content=coverage_page()))
    return files
