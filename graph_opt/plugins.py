"""`--load-pass-plugin`: out-of-tree passes and dialects on the command line, as
mlir-opt's option of that name.

A plugin is a Python module, named (`my_pkg.passes`) or given as a file
(`my_passes.py`), that registers what it brings when imported:

    from graph_opt import api

    api.register_pass(MyPass)          # a ModulePass subclass, by its `name`
    api.register_dialect(MyDialect)    # an xDSL Dialect, for the parser

The registrations are the same `api.run` sees, so `graph-opt` run in a process
that registered passes through the API sees them too.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable
from types import ModuleType


class PluginError(ValueError):
    """A plugin that cannot be found or fails to import."""


def register_arguments(arg_parser: argparse.ArgumentParser) -> None:
    arg_parser.add_argument(
        "--load-pass-plugin",
        action="append",
        default=[],
        metavar="MODULE_OR_FILE",
        help="Import a Python module or .py file that registers passes and dialects "
        "with graph_opt.api.register_pass / register_dialect (repeatable)",
    )
    arg_parser.add_argument(
        "--load-patterns",
        action="append",
        default=[],
        metavar="MODULE_OR_FILE",
        help="Import a Python module or .py file of dataflow patterns (register_pattern "
        "calls or a PATTERNS dict) for partition-pattern, quantize{patterns=...} and "
        "--explain-pattern (repeatable)",
    )


def load_plugin(spec: str, option: str = "--load-pass-plugin") -> ModuleType:
    """Import a plugin by module name or by path (a file is imported once per
    process); errors name the command-line `option` that gave it."""
    if spec.endswith(".py") or os.sep in spec or os.path.exists(spec):
        return _load_file(spec, option)
    try:
        return importlib.import_module(spec)
    except Exception as error:
        raise PluginError(
            f"{option} {spec}: {type(error).__name__}: {error}"
        ) from error


def load_plugins(specs: Iterable[str]) -> None:
    for spec in specs:
        load_plugin(spec)


def _load_file(path: str, option: str) -> ModuleType:
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise PluginError(f"{option} {path}: no such file")
    digest = hashlib.sha1(path.encode()).hexdigest()[:12]
    name = f"graph_opt_plugin_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"{option} {path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise PluginError(
            f"{option} {path}: {type(error).__name__}: {error}"
        ) from error
    return module
