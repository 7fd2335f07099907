"""Installing graph-opt changes nothing in a plain xDSL tool: xdsl-opt loads
graph-opt's universe (the `xdsl.universe` entry point) and the dialects it
registers, and xDSL's lexer, traits and parser stay xDSL's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

FINGERPRINT = textwrap.dedent(
    """
    import json, sys
    from xdsl import traits
    from xdsl.parser.attribute_parser import AttrParser
    from xdsl.utils.mlir_lexer import MLIRLexer

    def fingerprint():
        return {
            "lexer": MLIRLexer._unescaped_characters_regex.pattern,
            "isolation": traits.IsolatedFromAbove.verify.__module__,
            "get_effects": traits.get_effects.__module__,
            "parser": sorted(
                f"{name}:{getattr(AttrParser, name).__module__}"
                for name in dir(AttrParser)
                if callable(getattr(AttrParser, name)) and not name.startswith("__")
            ),
        }

    before = fingerprint()
    {load}
    print(json.dumps([before, fingerprint()]))
    """
)

LOAD_LIKE_XDSL_OPT = """
from xdsl.universe import Universe
multiverse = Universe.get_multiverse()  # loads every xdsl.universe entry point
assert "nn" in multiverse.all_dialects and "fuse-ops" in multiverse.all_passes
for name in ("nn", "tf_state"):
    multiverse.all_dialects[name]()
for name in ("fuse-ops", "optimize", "quantize"):
    multiverse.all_passes[name]()
import graph_opt, graph_opt.universe, graph_opt.formats.mlir.parser
from graph_opt.universe import XDSL_DIALECT_OVERRIDES
for factory in XDSL_DIALECT_OVERRIDES.values():
    factory()
"""


def run(script: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_loading_graph_opt_the_way_xdsl_opt_does_patches_nothing():
    before, after = run(FINGERPRINT.replace("{load}", LOAD_LIKE_XDSL_OPT))
    assert after == before
    assert before["isolation"] == before["get_effects"] == "xdsl.traits"
    assert not [m for m in before["parser"] if "graph_opt" in m]


def test_graph_opt_entry_points_apply_the_workarounds():
    """The contrast: graph-opt's own entry points do patch (once, in their
    process): api.context() and the CLI make IsolatedFromAbove linear."""
    load = "from graph_opt import api\napi.context()"
    before, after = run(FINGERPRINT.replace("{load}", load))
    assert after["isolation"] == "graph_opt.xdsl_compat.traits"
    assert after["lexer"] == before["lexer"]  # the lexer is a subclass: never patched


@pytest.mark.skipif(shutil.which("xdsl-opt") is None, reason="no xdsl-opt script")
def test_plain_xdsl_opt_lexes_as_xdsl_does():
    """xdsl-opt (graph-opt's universe loaded) reads a dense array with a
    hexadecimal float as xDSL 0.74 does, i.e. refuses it; graph-opt reads it."""
    text = '"test.op"() {a = array<f32: 0x7FC00000>} : () -> ()\n'
    plain = subprocess.run(
        ["xdsl-opt", "--allow-unregistered-dialect"],
        input=text,
        capture_output=True,
        text=True,
    )
    assert plain.returncode != 0
    ours = subprocess.run(
        [
            sys.executable,
            "-m",
            "graph_opt.tools.graph_opt_main",
            "--allow-unregistered-dialect",
        ],
        input=text,
        capture_output=True,
        text=True,
    )
    assert ours.returncode == 0, ours.stderr
    assert "0x7fc00000" in ours.stdout.lower()
