"""mkdocs hook: the pass reference, one page per registered pass, generated at
build time by graph_opt.tools.pass_reference (as `mlir-tblgen -gen-pass-doc`)
and listed under "Passes" in the navigation."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

from graph_opt.tools.pass_reference import pass_pages

ROOT = Path(__file__).resolve().parents[2]
_pages: dict[str, str] = {}


def on_config(config):
    _pages.clear()
    _pages.update(pass_pages(ROOT))
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Passes" in entry:
            entry["Passes"].extend({Path(uri).stem: uri} for uri in sorted(_pages))
    return config


def on_files(files, config):
    for uri, text in _pages.items():
        files.append(File.generated(config, uri, content=text))
    return files
