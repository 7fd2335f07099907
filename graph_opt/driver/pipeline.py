"""Parsing `-p`/`--pass` pipelines with errors that say what is wrong and where."""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing
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
    passes, search_from = [], 0
    for pass_spec in specs:
        column = max(spec.find(pass_spec.name, search_from), 0)
        search_from = column + len(pass_spec.name)
        pass_class = available[pass_spec.name]()
        try:
            passes.append(pass_class.from_pass_spec(pass_spec))
        except (ValueError, TypeError) as error:
            raise _option_error(spec, column, pass_class, pass_spec, error) from None
    return PassPipeline(tuple(passes), callback)


def _option_error(
    spec: str, column: int, pass_class: type[ModulePass], pass_spec: ArgSpec, error
) -> PipelineError:
    """The option xDSL could not convert (tried one by one), its expected type,
    and a caret under its value."""
    hints = typing.get_type_hints(pass_class)
    for option, values in pass_spec.parameters.items():
        try:
            pass_class.from_pass_spec(ArgSpec(pass_spec.name, {option: values}))
        except (ValueError, TypeError):
            given = ",".join(map(str, values)) or "nothing"
            expected = describe_type(hints.get(option.replace("-", "_")))
            at = spec.find(option, column)
            value_at = spec.find("=", at) + 1 if values else at
            return pointing_at(
                spec,
                max(value_at, 0),
                f"pass '{pass_spec.name}' option '{option}' takes {expected}, "
                f"not '{given}'",
            )
    return pointing_at(spec, column, f"pass '{pass_spec.name}': {error}")


TYPE_NAMES = {
    int: "an integer",
    float: "a number",
    bool: "true or false",
    str: "a string",
}


def describe_type(hint) -> str:
    """How a pass option's type is said to a user: `an integer`, `a number or none`."""
    if hint in TYPE_NAMES:
        return TYPE_NAMES[hint]
    arguments = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and arguments:
        return f"a comma-separated list of {describe_type(arguments[0])}s".replace(
            "of an ", "of "
        ).replace("of a ", "of ")
    if arguments and type(None) in arguments:
        kept = [describe_type(a) for a in arguments if a is not type(None)]
        return " or ".join(kept) + " (or nothing)"
    return str(hint)
