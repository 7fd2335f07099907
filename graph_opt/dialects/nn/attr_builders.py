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

from graph_opt.identity_memo import IdentityMemo
from graph_opt.weights import HexWeight, ScaledWeight, WeightBytes

_DATA_TYPES = (bytes, WeightBytes, ScaledWeight, HexWeight)
"""What a dense attribute's BytesAttr holds: bytes, or a weight held elsewhere."""

_dense_types_checked: IdentityMemo[bool] = IdentityMemo(limit=1 << 16)
"""The type objects checked so far (hashing a type costs more than checking it)."""


def dense_elements(
    value_type: TensorType, data: bytes | WeightBytes | ScaledWeight | HexWeight
) -> DenseIntOrFPElementsAttr:
    """`DenseIntOrFPElementsAttr(value_type, BytesAttr(data))`, IRDL-checked once per
    type object (graph-opt's types are interned: see `shapes.tensor_type`)."""
    if not _dense_types_checked.get(value_type):
        attr = DenseIntOrFPElementsAttr(value_type, BytesAttr(data))
        _dense_types_checked.put(value_type, True)
        return attr
    if type(data) not in _DATA_TYPES:
        raise TypeError(f"dense data must be bytes, got {type(data).__name__}")
    attr = object.__new__(DenseIntOrFPElementsAttr)
    object.__setattr__(attr, "type", value_type)
    object.__setattr__(attr, "data", _unchecked(BytesAttr, data))
    if not value_type.shape.data:
        attr.verify()  # (xDSL 0.74's check looks at zero-rank attributes only)
    return attr


def _unchecked(data_class: type, data: object):
    """A Data attribute whose check (of its class only) holds by construction."""
    attr = object.__new__(data_class)
    object.__setattr__(attr, "data", data)
    return attr


_NO_CHILD = NoneAttr()


def name_loc(name: str) -> NameLoc:
    """`NameLoc(StringAttr(name))`: a StringAttr checks nothing but its class, and
    the location's parameters have the classes its constraints require."""
    if type(name) is not str:
        raise TypeError(f"a location name must be a str, got {type(name).__name__}")
    loc = object.__new__(NameLoc)
    object.__setattr__(loc, "desc", _unchecked(StringAttr, name))
    object.__setattr__(loc, "location", _NO_CHILD)
    return loc
