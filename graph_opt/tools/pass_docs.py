"""`--list-passes`: each pass's one-line summary and options, from its class."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass


def summary(pass_class: type[ModulePass]) -> str:
    doc = inspect.getdoc(pass_class) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def options(pass_class: type[ModulePass]) -> list[str]:
    described = []
    for field in dataclasses.fields(pass_class):
        if field.name == "name" or not field.init:
            continue
        default = (
            "" if field.default is dataclasses.MISSING else f" = {field.default!r}"
        )
        kind = (
            field.type
            if isinstance(field.type, str)
            else getattr(field.type, "__name__", str(field.type))
        )
        help_text = field.metadata.get("help", "")
        described.append(
            f"{field.name.replace('_', '-')}: {kind}{default}"
            + (f"  ({help_text})" if help_text else "")
        )
    return described


def describe_passes(
    available: Mapping[str, Callable[[], type[ModulePass]]],
    also: Mapping[str, str] | None = None,
) -> str:
    """graph-opt's passes, and the named others, one line each with their options below."""
    also = also or {}
    lines = []
    for name in sorted(available):
        pass_class = available[name]()
        if name not in also and not pass_class.__module__.startswith("graph_opt"):
            continue
        lines.append(f"{name}: {also.get(name) or summary(pass_class)}")
        lines.extend(f"    --{opt}" for opt in options(pass_class))
    return "\n".join(lines)
