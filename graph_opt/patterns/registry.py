"""Named patterns, for the CLI (`--explain-pattern=NAME`) and the pattern-driven
passes (`partition-pattern{pattern=NAME}`, `quantize{patterns=NAME}`).

Besides graph-opt's own, patterns come from the user:

- `register_pattern("my-cbr", pattern_or_factory)` from Python (also
  `graph_opt.api.register_pattern`);
- `graph-opt --load-patterns my_patterns.py` (or a module name): the module
  calls `register_pattern`, or defines `PATTERNS = {"name": pattern, ...}`;
- an installed package's entry points in the group `graph_opt.patterns`
  (`my-cbr = "my_pkg.patterns:cbr"`), read when a name is first looked up.

A registered value is a DFPattern or a function of no arguments returning one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from typing import IO

from xdsl.dialects.builtin import ModuleOp

from graph_opt.patterns import library
from graph_opt.patterns.matcher import explain
from graph_opt.patterns.pattern import DFPattern

ENTRY_POINT_GROUP = "graph_opt.patterns"

PATTERNS: dict[str, Callable[[], DFPattern]] = {
    "conv-bias-relu": library.conv_bias_relu,
    "conv-bn-relu": library.conv_bn_relu,
    "decomposed-batch-norm": lambda: library.FoldDecomposedBatchNorm().pattern,
    "double-relu": library.double_relu,
    "matmul-bias": lambda: library.MatMulBiasToGemm().pattern,
}
"""graph-opt's own patterns."""

_user_patterns: dict[str, Callable[[], DFPattern]] = {}
_loaded: dict[str, list[str]] = {}
"""The pattern modules loaded, with the names each added."""


class PatternRegistryError(ValueError):
    """A pattern that cannot be registered, found or loaded (a one-line message)."""


def register_pattern(name: str, pattern: DFPattern | Callable[[], DFPattern]) -> None:
    """Make `pattern` (or a function building it) available by `name`."""
    if not isinstance(pattern, DFPattern) and not callable(pattern):
        raise PatternRegistryError(
            f"pattern '{name}' is a {type(pattern).__name__}, not a DFPattern or a function returning one"
        )
    # (an is_op pattern is callable too: it builds a call pattern)
    _user_patterns[name] = (
        (lambda: pattern) if isinstance(pattern, DFPattern) else pattern
    )


def all_patterns() -> dict[str, Callable[[], DFPattern]]:
    """Every pattern by name: graph-opt's, entry points', then registered ones."""
    return {**PATTERNS, **_entry_point_patterns(), **_user_patterns}


def get_pattern(name: str) -> DFPattern:
    known = all_patterns()
    if name not in known:
        raise PatternRegistryError(
            f"unknown pattern '{name}'; known patterns: {', '.join(sorted(known))}"
        )
    pattern = known[name]()
    if not isinstance(pattern, DFPattern):
        raise PatternRegistryError(
            f"pattern '{name}' built a {type(pattern).__name__}, not a DFPattern"
        )
    return pattern


def load_patterns(spec: str) -> list[str]:
    """Import a pattern module (`--load-patterns`); the names it added."""
    from graph_opt.plugins import PluginError, load_plugin

    if spec in _loaded:
        return _loaded[spec]
    before = dict(_user_patterns)
    try:
        module = load_plugin(spec, option="--load-patterns")
    except PluginError as error:
        raise PatternRegistryError(str(error)) from error
    table = getattr(module, "PATTERNS", None)
    if table is not None:
        if not isinstance(table, dict):
            raise PatternRegistryError(
                f"--load-patterns {spec}: PATTERNS is a {type(table).__name__}, not a dict"
            )
        for name, pattern in table.items():
            register_pattern(name, pattern)
    added = [n for n in _user_patterns if before.get(n) is not _user_patterns[n]]
    if not added:
        raise PatternRegistryError(
            f"--load-patterns {spec}: registers no pattern (call register_pattern or define PATTERNS)"
        )
    _loaded[spec] = added
    return added


@cache
def _entry_point_patterns() -> dict[str, Callable[[], DFPattern]]:
    found: dict[str, Callable[[], DFPattern]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found[entry.name] = lambda entry=entry: _load_entry(entry)
    return found


def _load_entry(entry) -> DFPattern:
    try:
        value = entry.load()
    except Exception as error:
        raise PatternRegistryError(
            f"pattern entry point {entry.name} = {entry.value}: {type(error).__name__}: {error}"
        ) from error
    return value if isinstance(value, DFPattern) else value()


def print_explanations(module: ModuleOp, name: str, out: IO[str] = sys.stderr) -> None:
    """Explain the pattern at every op whose name can be the pattern's root."""
    pattern = get_pattern(name)
    roots = pattern.root_names
    for op in module.walk():
        if op.results and (roots is None or op.name in roots):
            print(explain(pattern, op), file=out)
