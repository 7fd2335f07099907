"""Parsing `-p`/`--pass` pipelines with errors that say what is wrong and where."""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable, Mapping

from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError


class PipelineError(ValueError):
    """A pipeline that does not parse or names an unknown pass or option."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def pointing_at(spec: str, column: int, message: str) -> PipelineError:
    """`message`, then the pipeline with a caret under `column` (0-based)."""
    return PipelineError(f"{message}\n  {spec}\n  {' ' * column}^")


def option_names(pass_class: type[ModulePass]) -> list[str]:
    return [
        field.name.replace("_", "-")
        for field in dataclasses.fields(pass_class)
        if field.init and field.name != "name"
    ]


def parse_specs(spec: str) -> list[ArgSpec]:
    try:
        return list(parse_pipeline(spec))
    except ArgSpecParseError as error:
        # xDSL's message: header, `pass-pipeline:1:COL`, the text, carets, reason.
        text = str(error)
        found = re.search(r"pass-pipeline:\d+:(\d+)", text)
        column = int(found.group(1)) - 1 if found else 0
        reason = text.strip().splitlines()[-1].strip() or "malformed pipeline"
        hint = ""
        if column < len(spec) and spec[column] in "./\\~":
            hint = ' (quote values with paths: inputs="samples.npz")'
        message = f"in the pass pipeline at column {column + 1}: {reason.lower()}{hint}"
        raise pointing_at(spec, column, message) from None


def check_specs(
    spec: str,
    specs: list[ArgSpec],
    available: Mapping[str, Callable[[], type[ModulePass]]],
    offered: Iterable[str],
) -> None:
    """Unknown pass or option names, each with a caret and a suggestion."""
    search_from = 0
    for pass_spec in specs:
        column = spec.find(pass_spec.name, search_from)
        search_from = max(column, search_from)
        if pass_spec.name not in available:
            raise pointing_at(
                spec,
                max(column, 0),
                f"unknown pass '{pass_spec.name}'{did_you_mean(pass_spec.name, offered)}",
            )
        known = option_names(available[pass_spec.name]())
        _check_repeated_options(spec, max(column, 0), pass_spec.name)
        for option in pass_spec.parameters:
            normalized = option.replace("_", "-")
            if normalized not in known:
                at = spec.find(option, search_from)
                listing = ", ".join(known) if known else "none"
                raise pointing_at(
                    spec,
                    max(at, 0),
                    f"pass '{pass_spec.name}' has no option '{option}'"
                    f"{did_you_mean(normalized, known)} (options: {listing})",
                )


def _check_repeated_options(spec: str, column: int, name: str) -> None:
    """An option given twice in one pass's braces is an error (xDSL keeps the last)."""
    start = column + len(name)
    if not spec.startswith("{", start):
        return
    end = spec.find("}", start)
    body = spec[start + 1 : end if end >= 0 else len(spec)]
    seen: set[str] = set()
    for found in re.finditer(r'"[^"]*"|([\w-]+)\s*=', body):
        option = found.group(1)
        if option is None:
            continue  # a quoted value
        if option.replace("_", "-") in seen:
            raise pointing_at(
                spec,
                start + 1 + found.start(1),
                f"pass '{name}' is given option '{option}' twice",
            )
        seen.add(option.replace("_", "-"))


def build_pipeline(
    spec: str,
    available: Mapping[str, Callable[[], type[ModulePass]]],
    offered: Iterable[str],
    callback=None,
) -> PassPipeline:
    specs = parse_specs(spec)
    check_specs(spec, specs, available, offered)
    passes = tuple(available[s.name]().from_pass_spec(s) for s in specs)
    return PassPipeline(passes, callback)
