"""Range calibration: run the reference interpreter on sample inputs and record
the range of every float tensor an op computes.

Each sample is one run (one batch, for the moving average). The ranges are
raw observations; the quantize pass derives fake-quant ranges from them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.shapes import dims_compatible
from graph_opt.entry import entry_function
from graph_opt.frontend.names import argument_names
from graph_opt.interpreter.runner import make_function_interpreter
from graph_opt.progress import progress

RANGE_ATTR = "nn.range"
"""The discardable attribute holding an op's calibrated result range: array<f32: min, max>."""


class RangeStatistic(ABC):
    """The running range of one tensor over the calibration runs."""

    @abstractmethod
    def update(self, values: np.ndarray) -> None: ...

    @abstractmethod
    def range(self) -> tuple[float, float]: ...


class MinMaxRange(RangeStatistic):
    """The smallest and largest value seen in any run."""

    def __init__(self):
        self.low, self.high = np.inf, -np.inf

    def update(self, values):
        self.low = min(self.low, float(values.min()))
        self.high = max(self.high, float(values.max()))

    def range(self):
        return self.low, self.high


class MovingAverageRange(RangeStatistic):
    """TensorFlow's MovingAvgQuantize: an exponential moving average of each
    run's min and max, `avg -= (avg - value) * (1 - decay)`, started at the
    first run's values (TF starts its variables at [-6, 6] during training)."""

    def __init__(self, decay: float):
        self.decay = decay
        self.low: float | None = None
        self.high = 0.0

    def update(self, values):
        low, high = float(values.min()), float(values.max())
        if self.low is None:
            self.low, self.high = low, high
            return
        self.low -= (self.low - low) * (1 - self.decay)
        self.high -= (self.high - high) * (1 - self.decay)

    def range(self):
        return self.low, self.high  # type: ignore[return-value]


class PercentileRange(RangeStatistic):
    """The `percentile`-th and (100 - `percentile`)-th percentiles of all values
    seen (numpy's linear interpolation); keeps every value in memory."""

    def __init__(self, percentile: float):
        self.percentile = percentile
        self.values: list[np.ndarray] = []

    def update(self, values):
        self.values.append(np.asarray(values, np.float64).ravel())

    def range(self):
        values = np.concatenate(self.values)
        low, high = np.percentile(values, [100 - self.percentile, self.percentile])
        return float(low), float(high)


METHODS = ("minmax", "moving_average", "percentile")


def statistic_factory(
    method: str, decay: float, percentile: float
) -> Callable[[], RangeStatistic]:
    if method == "minmax":
        return MinMaxRange
    if method == "moving_average":
        if not 0 <= decay < 1:
            raise PassFailedException(f"decay must be in [0, 1), got {decay}")
        return lambda: MovingAverageRange(decay)
    if method == "percentile":
        if not 50 < percentile <= 100:
            raise PassFailedException(
                f"percentile must be in (50, 100], got {percentile}"
            )
        return lambda: PercentileRange(percentile)
    raise PassFailedException(
        f"unknown calibration method {method!r}: use one of {', '.join(METHODS)}"
    )


class _RangeObserver(Interpreter.Listener):
    """Feeds every float tensor result of the observed ops to its statistic."""

    def __init__(self, observed: set[Operation], make: Callable[[], RangeStatistic]):
        self.observed = observed
        self.make = make
        self.statistics: dict[SSAValue, RangeStatistic] = {}

    def did_interpret_op(self, op, results):
        if op not in self.observed:
            return
        for result, value in zip(op.results, results):
            value = np.asarray(value)
            if value.dtype.kind == "f" and value.size:
                if result not in self.statistics:
                    self.statistics[result] = self.make()
                self.statistics[result].update(value)


def load_samples(path: str, function: func.FuncOp) -> list[list[np.ndarray]]:
    """Sample input sets from an .npz keyed by argument name; an array with one
    more leading dim than its argument holds one sample per index."""
    try:
        with np.load(path) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError) as e:
        raise PassFailedException(f"cannot read calibration inputs {path}: {e}") from e
    names = argument_names(function)
    missing = [n for n in names if n not in arrays]
    if missing:
        raise PassFailedException(
            f"calibration inputs {path} lack {', '.join(missing)} (have {', '.join(arrays) or 'nothing'})"
        )
    stacks = []
    for name, arg_type in zip(names, function.function_type.inputs.data):
        array = arrays[name]
        stack = array[None]
        if isinstance(arg_type, TensorType):
            shape = arg_type.get_shape()
            stack = array if array.ndim == len(shape) + 1 else stack
            if not dims_compatible(shape, stack.shape[1:]):
                raise PassFailedException(
                    f"calibration input {name} has samples of shape {list(stack.shape[1:])}, "
                    f"the argument is {arg_type}"
                )
        stacks.append(stack)
    counts = {len(s) for s in stacks}
    if len(counts) > 1:
        raise PassFailedException(
            f"calibration inputs {path} hold different numbers of samples per argument"
        )
    return [
        [stack[i] for stack in stacks] for i in range(counts.pop() if counts else 1)
    ]


def calibrate_ranges(
    module: ModuleOp,
    samples: Sequence[Sequence[np.ndarray]],
    make: Callable[[], RangeStatistic],
    observed: set[Operation],
    function: str | None = None,
) -> Mapping[SSAValue, tuple[float, float]]:
    """The range of each float result of the `observed` ops over the sample runs."""
    target = entry_function(module, function)
    arg_types = target.function_type.inputs.data
    observer = _RangeObserver(observed, make)
    for sample in progress(samples, len(samples), "calibrate"):
        interpreter = make_function_interpreter(module)
        interpreter.listeners = (observer,)
        args = tuple(
            np.asarray(value, numpy_dtype(t.element_type))  # type: ignore[attr-defined]
            for value, t in zip(sample, arg_types)
        )
        interpreter.call_op(target, args)
    return {value: stat.range() for value, stat in observer.statistics.items()}
