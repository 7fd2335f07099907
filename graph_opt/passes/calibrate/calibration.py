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
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.interpreter import Interpreter
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.dtypes import is_float_dtype, numpy_dtype
from graph_opt.dialects.nn.names import argument_names
from graph_opt.dialects.nn.shapes import dims_compatible
from graph_opt.entry import entry_function
from graph_opt.interpreter.runner import make_function_interpreter
from graph_opt.progress import progress

RANGE_ATTR = "nn.range"
"""The calibrated range of a value, array<f32: min, max>: a discardable attribute
of the op computing it, or an argument attribute of the function taking it."""


def store_range(value: SSAValue, low: float, high: float) -> None:
    """Record a calibrated range on the value's op, or on its function argument."""
    attr = DenseArrayBase.from_list(f32, [low, high])
    if isinstance(value, BlockArgument):
        function = value.block.parent_op()
        assert isinstance(function, func.FuncOp)
        entries = _arg_entries(function)
        entries[value.index] = {**entries[value.index], RANGE_ATTR: attr}
        function.arg_attrs = ArrayAttr([DictionaryAttr(e) for e in entries])
    else:
        value.owner.attributes[RANGE_ATTR] = attr  # type: ignore[union-attr]


def stored_range(
    value: SSAValue, attr_name: str = RANGE_ATTR
) -> tuple[float, float] | None:
    """The range `store_range` recorded for the value (or one given as
    `attr_name`), if any."""
    if isinstance(value, BlockArgument):
        function = value.block.parent_op()
        if not isinstance(function, func.FuncOp):
            return None
        attr = _arg_entries(function)[value.index].get(attr_name)
    else:
        attr = value.owner.attributes.get(attr_name)  # type: ignore[union-attr]
    if isinstance(attr, DenseArrayBase) and len(attr.get_values()) == 2:
        low, high = attr.get_values()
        return float(low), float(high)
    return None


def clear_ranges(module: ModuleOp, attr_name: str = RANGE_ATTR) -> None:
    """Remove every recorded range (or every one given as `attr_name`)."""
    for op in module.walk():
        op.attributes.pop(attr_name, None)
        if isinstance(op, func.FuncOp) and op.arg_attrs is not None:
            entries = _arg_entries(op)
            if any(attr_name in e for e in entries):
                op.arg_attrs = ArrayAttr(
                    [
                        DictionaryAttr({k: v for k, v in e.items() if k != attr_name})
                        for e in entries
                    ]  # fmt: skip
                )


def _arg_entries(function: func.FuncOp) -> list[dict]:
    count = len(function.function_type.inputs)
    entries = list(function.arg_attrs.data) if function.arg_attrs is not None else []
    entries += [DictionaryAttr({})] * (count - len(entries))
    return [dict(e.data) for e in entries]


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
        if op in self.observed:
            self._observe(op.results, results)

    def observe_arguments(self, arguments: Sequence[SSAValue], values) -> None:
        self._observe(arguments, values)

    def _observe(self, values: Sequence[SSAValue], arrays) -> None:
        for value, array in zip(values, arrays):
            array = np.asarray(array)
            if is_float_dtype(array.dtype) and array.size:
                if value not in self.statistics:
                    self.statistics[value] = self.make()
                self.statistics[value].update(array)


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
    """The range of each float argument and each float result of the `observed`
    ops over the sample runs."""
    target = entry_function(module, function)
    arg_types = target.function_type.inputs.data
    observer = _RangeObserver(observed, make)
    for sample in progress(samples, len(samples), "calibrate"):
        interpreter = make_function_interpreter(module)
        interpreter.listeners = (*interpreter.listeners, observer)
        args = tuple(
            np.asarray(value, numpy_dtype(t.element_type))  # type: ignore[attr-defined]
            for value, t in zip(sample, arg_types)
        )
        observer.observe_arguments(target.body.block.args, args)
        interpreter.call_op(target, args)
    return {value: stat.range() for value, stat in observer.statistics.items()}
