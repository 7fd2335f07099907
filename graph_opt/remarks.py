"""What a pass or exporter was asked to do and left undone, said as a warning.

Warnings have the category GraphOptWarning, so library users filter or catch
them with Python's `warnings` module; the command-line tools print each as one
line on stderr: `graph-opt: warning: fold-bn: folded 50 of 52 batch norms; ...`.
"""

from __future__ import annotations

import warnings


class GraphOptWarning(UserWarning):
    """Work a pass or exporter was asked for that it did not do (or found none of)."""


def warn(message: str) -> None:
    warnings.warn(message, GraphOptWarning, stacklevel=3)


def print_warnings_as_one_line(program: str) -> None:
    """Print GraphOptWarnings as `PROGRAM: warning: message`, each time one is said."""
    original = warnings.formatwarning

    def format_warning(message, category, filename, lineno, line=None):
        if issubclass(category, GraphOptWarning):
            return f"{program}: warning: {message}\n"
        return original(message, category, filename, lineno, line)

    warnings.formatwarning = format_warning
    warnings.simplefilter("always", GraphOptWarning)
