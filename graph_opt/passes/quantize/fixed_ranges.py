"""Fixed activation ranges for the quantize pass, as TF contrib.quantize's
`FixedQuantize` (a `fake_quant_with_min_max_args` with a set interval): a
tensor whose range is known without calibration is fake-quantized with it.

The range is known from the op computing the tensor (relu6 [0, 6], a clip's
bounds, sigmoid and hard_sigmoid [0, 1], tanh [-1, 1], as an op or fused into
a conv or matmul), or stated for it: `nn.fixed_range = array<f32: min, max>`
on the op, or as an argument attribute of the function taking it.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.fused import FusedActivation
from graph_opt.passes.calibrate.calibration import stored_range
from graph_opt.passes.common.fusion_patterns import activation_of

FIXED_RANGE_ATTR = "nn.fixed_range"
"""A range stated for a value, array<f32: min, max>; quantize uses it as is."""

KNOWN_RANGES: dict[str, tuple[float, float] | None] = {
    "relu6": (0.0, 6.0),
    "clip": None,  # its own bounds
    "sigmoid": (0.0, 1.0),
    "hard_sigmoid": (0.0, 1.0),
    "tanh": (-1.0, 1.0),
}
"""The activations whose output range is known, by fused-activation name."""


def fixed_range_kinds(option: str) -> frozenset[str]:
    """The activations `quantize{fixed-ranges=...}` names: a comma-separated
    list of KNOWN_RANGES names, or `all`."""
    names = {n.strip() for n in option.split(",") if n.strip()}
    if names == {"all"}:
        return frozenset(KNOWN_RANGES)
    unknown = sorted(names - set(KNOWN_RANGES))
    if unknown:
        raise PassFailedException(
            f"quantize: fixed-ranges: unknown activation {unknown[0]!r} (known: "
            f"{', '.join(KNOWN_RANGES)}, or all)"
        )
    return frozenset(names)


def fixed_ranges(
    values: Iterable[SSAValue], kinds: frozenset[str]
) -> dict[SSAValue, tuple[float, float]]:
    """The values with a stated range, or made by an activation of `kinds`."""
    found = {}
    for value in values:
        stated = stored_range(value, FIXED_RANGE_ATTR)
        if stated is not None:
            if not stated[0] <= stated[1]:
                raise PassFailedException(
                    f"quantize: {FIXED_RANGE_ATTR} of {value.name_hint or 'a value'} "
                    f"is [{stated[0]}, {stated[1]}]: min must not exceed max"
                )
            found[value] = stated
        elif isinstance(value.owner, Operation):
            known = _known_range(value.owner, kinds)
            if known is not None:
                found[value] = known
    return found


def _known_range(op: Operation, kinds: frozenset[str]) -> tuple[float, float] | None:
    if isinstance(op, FusedActivation):
        activation = (op.activation_name, op.activation_values)
    else:
        activation = activation_of(op)
    if activation is None or activation[0] not in kinds:
        return None
    name, params = activation
    known = KNOWN_RANGES[name]
    return known if known is not None else (float(params[0]), float(params[1]))
