"""`--list-passes`: each pass's one-line summary, options and statistics, from its class."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass

from graph_opt.statistics import declared_statistics


def summary(pass_class: type[ModulePass]) -> str:
    """The docstring's first paragraph, on one line (a summary may wrap)."""
    doc = (inspect.getdoc(pass_class) or "").strip()
    return " ".join(doc.split("\n\n", 1)[0].split())


def _pipeline_value(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return ",".join(_pipeline_value(v) for v in value)
    return str(value)


def option_fields(pass_class: type[ModulePass]) -> list[tuple[str, str, str, str]]:
    """`(name, type, default, help)` per option, name and default as a pipeline
    writes them (`pass{name=default}`); a required option's default is `...`."""
    described = []
    for field in dataclasses.fields(pass_class):
        if field.name == "name" or not field.init:
            continue
        if field.default is not dataclasses.MISSING:
            default = _pipeline_value(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            default = _pipeline_value(field.default_factory())
        else:
            default = "..."
        kind = field.type if isinstance(field.type, str) else field.type.__name__
        help_text = field.metadata.get("help", "")
        described.append((field.name.replace("_", "-"), kind, default, help_text))
    return described


def options(pass_class: type[ModulePass]) -> list[tuple[str, str]]:
    """`(name=default, help)` per option, as written in a pipeline: `pass{name=value}`."""
    return [
        (f"{name}={default}", help_text)
        for name, _, default, help_text in option_fields(pass_class)
    ]


def describe_passes(
    available: Mapping[str, Callable[[], type[ModulePass]]],
    also: Mapping[str, str] | None = None,
) -> str:
    """graph-opt's passes, and the named others, one line each with their
    options and the statistics they declare below."""
    also = also or {}
    lines = []
    for name in sorted(available):
        pass_class = available[name]()
        if name not in also and not pass_class.__module__.startswith("graph_opt"):
            continue
        lines.append(f"{name}: {also.get(name) or summary(pass_class)}")
        lines.extend(
            f"    {name}{{{option}}}" + (f"  {help_text}" if help_text else "")
            for option, help_text in options(pass_class)
        )
        lines.extend(
            f"    (S) {key} - {text}"
            for key, text in declared_statistics(pass_class).items()
        )
    return "\n".join(lines)


def describe_patterns() -> str:
    """The registered patterns (`--explain-pattern`, `partition-pattern{pattern=NAME}`)."""
    from graph_opt.patterns.registry import all_patterns

    return "\n".join(
        [
            "patterns (--explain-pattern=NAME, partition-pattern{pattern=NAME}, "
            "quantize{patterns=NAME,...}; more with --load-patterns):"
        ]
        + [f"    {name}" for name in sorted(all_patterns())]
    )
