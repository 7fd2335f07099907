"""Registers graph-opt's dialects and passes with xDSL tools (xdsl-opt sees them too)."""

from xdsl.universe import Universe

from graph_opt.passes import get_all_passes

# Loaded by any xDSL tool (xdsl-opt too): changes nothing in xDSL. graph-opt's own
# entry points apply its xDSL workarounds (graph_opt.xdsl_compat).


def _nn_dialect():
    from graph_opt.dialects.nn import NN

    return NN


def _tosa_dialect():
    from graph_opt.dialects.tosa_ext import TOSA

    return TOSA


def _tf_state_dialect():
    from graph_opt.dialects.tf_state import TF_STATE

    return TF_STATE


def _builtin_dialect():
    from graph_opt.formats.mlir.resources import builtin_dialect

    return builtin_dialect()


XDSL_DIALECT_OVERRIDES = {"builtin": _builtin_dialect, "tosa": _tosa_dialect}
"""xDSL dialects that graph-opt's tools replace by an extension of their own."""

GRAPH_OPT_UNIVERSE = Universe(
    all_dialects={"nn": _nn_dialect, "tf_state": _tf_state_dialect},
    all_passes=get_all_passes(),
)
