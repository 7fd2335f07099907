"""onnx's reference kernels that graph-opt replaces, each for a bug seen in
onnx, and those it adds where onnx has none.

graph-opt runs an `nn.opaque` with `onnx.reference`
(`formats/onnx/opaque_eval.py`, in the interpreter and in fold-constants),
which takes these kernels as `new_ops`, before its own. Each entry names the
onnx release the bug (or the missing kernel) was seen in: drop it when onnx
fixes the bug or adds the kernel (`tests/interpreter/test_onnx_overrides.py`
fails then).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graph_opt.interpreter.onnx_global_lp_pool import global_lp_pool_kernel
from graph_opt.interpreter.onnx_lp_normalization import lp_normalization_kernel
from graph_opt.interpreter.onnx_lrn import lrn_kernel
from graph_opt.interpreter.onnx_max_roi_pool import max_roi_pool_kernel
from graph_opt.interpreter.onnx_mean import mean_kernel
from graph_opt.interpreter.onnx_optional import optional_kernel
from graph_opt.interpreter.onnx_scatter import scatter_kernel

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


@dataclass(frozen=True)
class Override:
    op_type: str
    seen_in: str
    """The onnx release whose reference kernel is wrong."""
    bug: str
    kernel: Callable[[], type[OpRun]]


OVERRIDES = (
    Override(
        "LRN",
        "1.23.2",
        "onnx/reference/ops/op_lrn.py loops `for c in range(x.shape[0])`, over "
        "the batch size instead of the channels (x.shape[1]): channels at or past "
        "the batch size keep a square sum of 0 and those before it sum a window "
        "of channels, so every output but one with N == C is wrong",
        lrn_kernel,
    ),
    Override(
        "LpNormalization",
        "1.23.2",
        "onnx/reference/ops/op_lp_normalization.py computes the norm as "
        "`np.power(x, p).sum(axis)` ** (1/p), without the absolute value: with "
        "p=1 negative elements subtract from the L1 norm (wrong values, or a "
        "division by a zero or negative norm)",
        lp_normalization_kernel,
    ),
    Override(
        "Mean",
        "1.23.2",
        "onnx/reference/ops/op_mean.py adds the inputs in place into a copy of "
        "the first (`res += m`), so a first input smaller than the broadcast "
        "shape raises `non-broadcastable output operand` instead of "
        "broadcasting as the operator's definition says",
        mean_kernel,
    ),
    Override(
        "Optional",
        "1.23.2",
        "onnx/reference/ops/op_optional.py returns `[x]`, a one-item list, "
        "where the optional holds `x` itself: an optional tensor comes out as a "
        "sequence, an optional sequence nested once more, and `Optional()` of "
        "no input as `[None]`, which OptionalHasElement finds non-empty",
        optional_kernel,
    ),
)


@dataclass(frozen=True)
class Missing:
    op_type: str
    seen_in: str
    """The onnx release whose reference evaluator has no kernel for it."""
    kernel: Callable[[], type[OpRun]]


MISSING = (
    Missing("GlobalLpPool", "1.23.2", global_lp_pool_kernel),
    Missing("MaxRoiPool", "1.23.2", max_roi_pool_kernel),
    Missing("Scatter", "1.23.2", scatter_kernel),
)
"""Operators onnx's reference evaluator does not implement (it raises)."""


def reference_overrides() -> list[type[OpRun]]:
    """The kernels for `ReferenceEvaluator(new_ops=...)`."""
    return [entry.kernel() for entry in (*OVERRIDES, *MISSING)]
