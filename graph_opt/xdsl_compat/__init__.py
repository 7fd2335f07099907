"""graph-opt's one boundary with xDSL's internals.

Every use of a private xDSL name (`_`-prefixed module, class or member) lives in
this package, behind small public functions and classes; tests/xdsl_compat
checks each assumption against xDSL's own behaviour and
tests/xdsl_compat/test_boundary.py fails if a private name is used elsewhere in
graph_opt. This package imports only xDSL and the standard library.

Nothing here changes xDSL when imported: the workarounds are subclasses
graph-opt's parsers use (`parser.CompatParser`), context managers
(`traits.effects_memoized`) or patches graph-opt's own entry points apply
(`apply_workarounds`, called by the `graph-opt` CLI and `graph_opt.api`), so a
plain `xdsl-opt` with graph-opt installed runs xDSL unchanged.
"""

from __future__ import annotations

import warnings

import xdsl

XDSL_VERSION_SUPPORTED = "0.74"
"""The xDSL release whose internals this package is written against."""


def xdsl_version_supported(version: str | None = None) -> bool:
    """Whether `version` (the installed xDSL's by default) is a
    XDSL_VERSION_SUPPORTED release (`0.74`, `0.74.1`, ...)."""
    version = str(xdsl.__version__) if version is None else version
    return version == XDSL_VERSION_SUPPORTED or version.startswith(
        XDSL_VERSION_SUPPORTED + "."
    )


class XDSLVersionWarning(UserWarning):
    """The installed xDSL is not the release graph-opt's xDSL internals target."""


def check_xdsl_version(version: str | None = None) -> None:
    """Warn (one line) when the installed xDSL is not XDSL_VERSION_SUPPORTED."""
    version = str(xdsl.__version__) if version is None else version
    if not xdsl_version_supported(version):
        warnings.warn(
            f"graph-opt supports xDSL {XDSL_VERSION_SUPPORTED}.*, found {version}: "
            "graph_opt/xdsl_compat relies on its internals (run tests/xdsl_compat)",
            XDSLVersionWarning,
            stacklevel=2,
        )


check_xdsl_version()


def apply_workarounds() -> None:
    """Apply the workarounds that can only patch xDSL (idempotent): called by
    graph-opt's entry points (the CLI, `graph_opt.api`), never on import."""
    from graph_opt.xdsl_compat.traits import check_isolation_in_linear_time

    check_isolation_in_linear_time()
