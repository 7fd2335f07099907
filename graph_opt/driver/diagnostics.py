"""Turning any failure of a run into the one-line message a user sees."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from xdsl.utils.exceptions import ParseError

from graph_opt.remarks import print_warnings_as_one_line, shortened

RECURSION_LIMIT = 20_000
"""Python's recursion limit in the commands (parsers recurse per nesting level):
far above what real models nest (a few hundred levels of MLIR regions parse)."""


def raise_recursion_limit() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))


def one_line_usage_errors(parser: argparse.ArgumentParser, tool: str) -> None:
    """Argument errors as one line (`tool: error: ...`), not argparse's usage text."""

    def error(message: str) -> NoReturn:
        parser.exit(2, f"{tool}: error: {message}; see {tool} --help\n")

    parser.error = error  # type: ignore[method-assign]


def run_tool(tool: str, input_name: str | None, body: Callable[[], None]) -> int:
    """Run a command's `body` with warnings and any error as one line on stderr
    (`tool: ...`, never a traceback); the exit code."""
    print_warnings_as_one_line(tool)
    raise_recursion_limit()
    try:
        body()
    except SystemExit as e:  # argument errors, already printed
        return e.code if isinstance(e.code, int) else 1
    except BrokenPipeError:  # the reader went away (`graph-opt-run ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # quietly, as a tool SIGPIPE ends
    except Exception as e:
        print(f"{tool}: {one_line(e, input_name)}", file=sys.stderr)
        return 1
    return 0


def one_line(error: BaseException, input_name: str | None = None) -> str:
    """`file:line:col: error: message` for parse errors, else the first informative line."""
    if isinstance(error, RecursionError):
        prefix = f"{input_name}: " if input_name else ""
        return (
            f"{prefix}error: the input nests too deeply: its parse or a pass went past "
            f"Python's recursion limit ({sys.getrecursionlimit()} calls)"
        )
    if isinstance(error, ParseError):
        loc = error.span.get_location()
        return f"{loc.file}:{loc.line}:{loc.col}: error: {shortened(error.msg)}"
    text = str(error).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    message = _informative(lines) if lines else type(error).__name__
    if input_name and message.startswith(f"{input_name}: "):
        message = message[len(input_name) + 2 :]
    prefix = f"{input_name}: " if input_name else ""
    return f"{prefix}error: {shortened(message)}"


def _informative(lines: list[str]) -> str:
    """xDSL verifier messages print the whole IR around the failure; keep the message itself."""
    for line in lines:
        if line.startswith("^") and line.strip("^ ").strip():
            return line.strip("^ ").strip()
    for line in reversed(lines):
        if "Operation does not verify" in line:
            return line.split("Operation does not verify:", 1)[-1].strip() or line
    return lines[0]
