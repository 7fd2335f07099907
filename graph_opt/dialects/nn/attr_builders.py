"""Building the attributes that large graphs hold by the thousand, with xDSL's checks
run once per kind.

xDSL verifies every attribute as it is built: the IRDL constraints on its
parameters, then its own `verify`. A dense elements attribute's constraints look
only at its type (its data is a BytesAttr), and a name location's only at the
classes of its parameters, so these builders run xDSL's full check on the first
attribute of each type and afterwards only the part that depends on the data.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
)

_dense_types_checked: dict[int, TensorType] = {}
"""The type objects checked so far, by id (hashing a type costs more than checking it)."""
_MAX_TYPES_REMEMBERED = 1 << 16


def dense_elements(value_type: TensorType, data: bytes) -> DenseIntOrFPElementsAttr:
    """`DenseIntOrFPElementsAttr(value_type, BytesAttr(data))`, IRDL-checked once per
    type object (graph-opt's types are interned: see `shapes.tensor_type`)."""
    if _dense_types_checked.get(id(value_type)) is not value_type:
        attr = DenseIntOrFPElementsAttr(value_type, BytesAttr(data))
        if len(_dense_types_checked) >= _MAX_TYPES_REMEMBERED:
            _dense_types_checked.clear()
        _dense_types_checked[id(value_type)] = value_type
        return attr
    attr = object.__new__(DenseIntOrFPElementsAttr)
    object.__setattr__(attr, "type", value_type)
    object.__setattr__(attr, "data", BytesAttr(data))
    attr.verify()
    return attr


_NO_CHILD = NoneAttr()


def name_loc(name: str) -> NameLoc:
    """`NameLoc(StringAttr(name))`: its parameters have the classes that its
    constraints require by construction."""
    loc = object.__new__(NameLoc)
    object.__setattr__(loc, "desc", StringAttr(name))
    object.__setattr__(loc, "location", _NO_CHILD)
    return loc
