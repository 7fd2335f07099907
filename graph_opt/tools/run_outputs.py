"""How `graph-opt-run` writes and prints results that are not one tensor.

In the .npz, a tensor result `y` is the array `y`; a sequence result `s` of
n tensors is `s.0` ... `s.<n-1>` and `s.length` (an int64 scalar, n: an empty
sequence is `s.length` alone); an optional result holding nothing is
`o.none` (a bool scalar, True), one holding a value is written as that value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np


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
