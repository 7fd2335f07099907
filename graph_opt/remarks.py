"""What a pass or exporter was asked to do and left undone, said as a warning.

Warnings have the category GraphOptWarning, so library users filter or catch
them with Python's `warnings` module; the command-line tools print each as one
line on stderr: `graph-opt: warning: fold-bn: folded 50 of 52 batch norms; ...`.
"""

from __future__ import annotations

import inspect
import warnings

from xdsl.passes import ModulePass


class GraphOptWarning(UserWarning):
    """Work a pass or exporter was asked for that it did not do (or found none of)."""


MAX_MESSAGE = 300
"""The longest message said on one line (errors and warnings) before a list in
it is shortened to its first items and a count."""


def warn(message: str) -> None:
    """Say `message` as a GraphOptWarning attributed to the pass running (its
    `apply`'s line and its name as the message's prefix), else to the caller."""
    frame, level = inspect.currentframe().f_back, 2
    running = None
    while frame is not None and running is None:
        owner = frame.f_locals.get("self") if frame.f_code.co_name == "apply" else None
        if isinstance(owner, ModulePass):
            running = owner
        else:
            frame, level = frame.f_back, level + 1
    if running is None:
        level = 2
    elif not message.startswith(f"{running.name}: "):
        message = f"{running.name}: {message}"
    warnings.warn(message, GraphOptWarning, stacklevel=level)


def shortened(message: str, limit: int = MAX_MESSAGE) -> str:
    """`message` if it fits in `limit` characters; else the items of its
    comma-separated list shown from the first few to the last with a count of
    those left out (`a, b, ... (65 more), z: rest`), or, without such a list,
    cut at a word with `...`."""
    if len(message) <= limit:
        return message
    parts = message.split(", ")
    if len(parts) >= 3:
        head, *middle, tail = parts
        for shown in range(min(len(middle) - 1, 4), -1, -1):
            left_out = f"... ({len(middle) - shown} more)"
            text = ", ".join([head, *middle[:shown], left_out, tail])
            if len(text) <= limit:
                return text
    cut = message.rfind(" ", 0, limit - 4)
    return message[: cut if cut > 0 else limit - 4] + " ..."


def print_warnings_as_one_line(program: str) -> None:
    """Print GraphOptWarnings as `PROGRAM: warning: message`, each time one is said."""
    original = warnings.formatwarning

    def format_warning(message, category, filename, lineno, line=None):
        if issubclass(category, GraphOptWarning):
            return f"{program}: warning: {shortened(str(message))}\n"
        return original(message, category, filename, lineno, line)

    warnings.formatwarning = format_warning
    warnings.simplefilter("always", GraphOptWarning)
