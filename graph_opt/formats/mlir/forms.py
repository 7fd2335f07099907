"""Which ops the fast printer and parser may write and read in nn's custom form."""

from __future__ import annotations

from functools import cache

from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict

from graph_opt.dialects.nn.base import GENERIC_FORMAT


@cache
def has_nn_custom_form(op_class: type[Operation]) -> bool:
    """Whether the op is an nn op written `operands attr-dict : functional-type(operands,
    results)`, its properties in the attr-dict, without regions or successors."""
    if not issubclass(op_class, IRDLOperation) or not op_class.name.startswith("nn."):
        return False
    op_def = op_class.get_irdl_definition()
    return (
        op_def.assembly_format == GENERIC_FORMAT
        and any(isinstance(o, ParsePropInAttrDict) for o in op_def.options)
        and not op_def.regions
        and not op_def.successors
    )
