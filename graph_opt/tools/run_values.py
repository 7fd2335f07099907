"""How `graph-opt-run` reads, writes and prints values that are not one tensor.

In an .npz, a tensor `y` is the array `y`; a sequence `s` of n tensors is
`s.0` ... `s.<n-1>` and `s.length` (an int64 scalar, n: an empty sequence is
`s.length` alone); an optional `o` holding nothing is `o.none` (a bool
scalar, True), one holding a value is written as that value. Inputs are read
the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
from xdsl.ir import Attribute

from graph_opt.dialects.nn.types import OptionalType, SequenceType


def npz_arrays(results: Mapping[str, object]) -> dict[str, np.ndarray]:
    """The results as named arrays (see above); two names that meet are refused."""
    arrays: dict[str, np.ndarray] = {}
    for key, array in _flattened(results):
        if key in arrays:
            raise ValueError(
                f"output array {key!r} would be written twice (a result named "
                "like a sequence item): rename the result or print the outputs"
            )
        arrays[key] = array
    return arrays


def _flattened(results: Mapping[str, object]) -> Iterator[tuple[str, np.ndarray]]:
    for name, value in results.items():
        if value is None:
            yield f"{name}.none", np.array(True)
        elif isinstance(value, list):
            yield f"{name}.length", np.array(len(value), np.int64)
            yield from _flattened({f"{name}.{i}": v for i, v in enumerate(value)})
        else:
            yield name, np.asarray(value)


def npz_inputs(
    arrays: Mapping[str, np.ndarray], argument_types: Mapping[str, Attribute]
) -> dict[str, object]:
    """The arrays of an .npz as the arguments' values (see above): a sequence
    argument's items as a list, an optional's `.none` as None."""
    values = dict(arrays)
    for name, value_type in argument_types.items():
        if isinstance(value_type, SequenceType | OptionalType):
            value = _read(values, name, value_type)
            if value is not _ABSENT:
                values[name] = value
    return values


_ABSENT = object()


def _read(values: dict[str, object], name: str, value_type: Attribute) -> object:
    """The value `name` of `value_type`, its arrays taken out of `values`;
    arrays that do not say one value (a count that is not one, a `.none` that
    is not True, the value given in two forms) are refused in one line."""
    if isinstance(value_type, OptionalType):
        none = values.pop(f"{name}.none", None)
        if none is None:
            return _read(values, name, value_type.value_type)
        array = np.asarray(none)
        if array.shape != () or array.dtype != np.bool_ or not array:
            raise ValueError(f"input {name}: {name}.none is {array!r}, not True")
        _refuse_both(values, name, f"{name}.none")
        return None
    if isinstance(value_type, SequenceType) and f"{name}.length" in values:
        length = _count(values.pop(f"{name}.length"), name)
        _refuse_both(values, name, f"{name}.length")
        # (length items need as many arrays: a count past them is not iterated)
        for i in range(min(length, len(values) + 1)):
            if f"{name}.{i}" not in values:
                raise ValueError(
                    f"input {name}: {name}.length is {length} but there is no "
                    f"{name}.{i}"
                )
        return [
            _read(values, f"{name}.{i}", value_type.item_type) for i in range(length)
        ]
    return values.pop(name, _ABSENT)


def _count(length: object, name: str) -> int:
    array = np.asarray(length)
    if array.shape != () or array.dtype.kind not in "iu" or array < 0:
        raise ValueError(
            f"input {name}: {name}.length is {array!r}, not a count (an integer "
            "scalar >= 0)"
        )
    return int(array)


def _refuse_both(values: dict[str, object], name: str, form: str) -> None:
    if name in values:
        raise ValueError(f"input {name}: given both as {name} and as {form}")


def print_outputs(results: Mapping[str, object]) -> None:
    """Each output's name, dtype and shape, then its values as numpy prints them
    (summarized past a thousand elements); a sequence's items as `name[i]`, an
    optional holding nothing as `none`."""
    for name, value in results.items():
        if value is None:
            print(f"{name}: none")
        elif isinstance(value, list):
            print(f"{name}: sequence of {len(value)}")
            print_outputs({f"{name}[{i}]": v for i, v in enumerate(value)})
        else:
            array = np.asarray(value)
            print(f"{name}: {array.dtype} {tuple(array.shape)}")
            print(np.array2string(array))
