"""`--verify-numerics`: find the first pass of a pipeline that changes the numbers.

The module is evaluated with the reference interpreter before the first pass
and after each one, on seeded random inputs (or samples from an .npz); a pass
whose outputs differ from those before it beyond the tolerance stops the
pipeline with a `NumericsChanged` naming the pass, the output and the first
value that diverged: each op's results are recorded by name (the names the
frontend gave, or the SSA name hints of MLIR text), so where the pass kept
names the values are compared op by op in the order they were computed.

The cost stays bounded: one sample by default, dynamic dims taken as 1, a
time limit on all evaluations after which checking stops with a warning, and
op kinds (`skip_ops`) that, while the module holds any, leave it unchecked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.passes import ModulePass

from graph_opt.remarks import warn

DEFAULT_TOLERANCE = 1e-4
DEFAULT_TIME_LIMIT = 120.0


class NumericsChanged(Exception):
    """A pass changed what the module computes."""

    def __init__(self, pass_name: str, message: str, first_value: str | None = None):
        super().__init__(message)
        self.pass_name = pass_name
        self.first_value = first_value


@dataclass(frozen=True)
class NumericCheck:
    """How `--verify-numerics` (and `api.run(..., verify_numerics=...)`) checks.

    `inputs`: an .npz path, or arrays by argument name (a leading dim of
    samples allowed); else `samples` random input sets from `seed`.
    `tolerance`: the largest error allowed, relative to the largest magnitude
    of the output (absolute below 1); integer and boolean results must match.
    `time_limit`: seconds of evaluation in all, after which checking stops.
    `skip_ops`: op names (`nn.conv`) that leave a module holding them unchecked.
    """

    tolerance: float = DEFAULT_TOLERANCE
    inputs: str | Mapping[str, np.ndarray] | None = None
    samples: int = 1
    seed: int = 0
    time_limit: float | None = DEFAULT_TIME_LIMIT
    skip_ops: frozenset[str] = frozenset()
    function: str | None = None


@dataclass
class Evaluation:
    """A module's outputs on each input set, and the named values of the first."""

    outputs: list[list[np.ndarray]]
    output_names: list[str]
    values: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)


class NumericChecker:
    """The pipeline callback that evaluates the module between passes."""

    def __init__(self, check: NumericCheck | None = None):
        self.check = check or NumericCheck()
        self.spent = 0.0
        self.stopped = False
        self.reference: Evaluation | None = None
        self._inputs: list[list[np.ndarray]] | None = None

    def wrap(self, callback: Callable | None) -> Callable:
        """`callback` (xDSL's between-passes hook), then the check."""

        def checked(previous, module, next_pass):
            if callback is not None:
                callback(previous, module, next_pass)
            self.after(previous, module)

        return checked

    def after(self, previous: ModulePass | None, module: ModuleOp) -> None:
        """Evaluate the module as `previous` left it (as given, for None)."""
        if self.stopped:
            return
        held = self._skipped_ops(module)
        if held:
            if self.reference is not None or previous is None:
                warn(
                    f"--verify-numerics: not checked while the module holds {held} "
                    f"(skipped ops){_after(previous)}"
                )
            self.reference = None
            return
        if self.check.time_limit is not None and self.spent > self.check.time_limit:
            warn(
                f"--verify-numerics: stopped checking{_after(previous)}: the time "
                f"limit of {self.check.time_limit:g} s was reached"
            )
            self.stopped = True
            return
        if self._inputs is None:  # a mistake in the given inputs is the user's
            from graph_opt.entry import entry_function

            function = entry_function(module, self.check.function)
            self._inputs = input_sets(function, self.check)
        started = time.perf_counter()
        try:
            evaluation = self._evaluate(module)
        except NumericsChanged:
            raise
        except Exception as error:
            self.spent += time.perf_counter() - started
            if self.reference is None or previous is None:
                warn(
                    f"--verify-numerics: not checked{_after(previous)}: the "
                    f"interpreter cannot run the module: {_first_line(error)}"
                )
                self.reference = None
                return
            raise NumericsChanged(
                previous.name,
                f"--verify-numerics: after pass '{previous.name}' the module no longer "
                f"runs in the interpreter (it did before): {_first_line(error)}",
            ) from error
        self.spent += time.perf_counter() - started
        if previous is not None and self.reference is not None:
            compare(self.reference, evaluation, previous.name, self.check.tolerance)
        self.reference = evaluation

    def _skipped_ops(self, module: ModuleOp) -> str | None:
        if not self.check.skip_ops:
            return None
        for op in module.walk():
            if op.name in self.check.skip_ops:
                return op.name
        return None

    def _evaluate(self, module: ModuleOp) -> Evaluation:
        from graph_opt.dialects.nn.names import result_names
        from graph_opt.entry import entry_function

        function = entry_function(module, self.check.function)
        assert self._inputs is not None
        recorder = _ValueRecorder(function)
        outputs = [run(module, function, self._inputs[0], recorder)]
        outputs += [run(module, function, inputs) for inputs in self._inputs[1:]]
        return Evaluation(outputs, result_names(function), recorder.values)


def run(
    module: ModuleOp,
    function: func.FuncOp,
    inputs: Sequence[np.ndarray],
    listener: Interpreter.Listener | None = None,
) -> list[np.ndarray]:
    """The function's results on `inputs`, with `listener` watching each op;
    through `nn.quantization` boundaries (convert-to-int{integer-io=true}),
    float inputs are given as their codes and results read as real values."""
    from graph_opt.dialects.nn.dtypes import numpy_dtype
    from graph_opt.interpreter.runner import make_function_interpreter, result_value
    from graph_opt.quantization.boundary import dequantized_outputs, quantized_inputs

    interpreter = make_function_interpreter(module)
    if listener is not None:
        interpreter.listeners = (*interpreter.listeners, listener)
    args = [
        np.asarray(value, dtype=numpy_dtype(t.element_type))
        if hasattr(t, "element_type")
        else value
        for value, t in zip(
            quantized_inputs(function, inputs), function.function_type.inputs.data
        )
    ]
    results = interpreter.call_op(function, tuple(args))
    outputs = function.function_type.outputs.data
    return dequantized_outputs(
        function, [result_value(r, t) for r, t in zip(results, outputs)]
    )


class _ValueRecorder(Interpreter.Listener):
    """Keeps the value of each named result of the function's own ops, in order."""

    def __init__(self, function: func.FuncOp):
        self.block = function.body.blocks.first
        self.values: dict[str, tuple[str, np.ndarray]] = {}

    def did_interpret_op(self, op, results) -> None:
        if op.parent is not self.block:
            return
        from graph_opt.dialects.nn.names import op_result_names

        for name, value in zip(op_result_names(op), results):
            if name is not None and isinstance(value, np.ndarray | np.generic):
                self.values[name] = (op.name, np.asarray(value))


def input_sets(function: func.FuncOp, check: NumericCheck) -> list[list[np.ndarray]]:
    """The input sets to evaluate on: the given ones (at most `samples` of
    them), or `samples` random ones from `seed`."""
    if check.inputs is not None:
        return given_inputs(function, check.inputs)[: max(check.samples, 1)]
    rng = np.random.default_rng(check.seed)
    return [random_inputs(function, rng) for _ in range(max(check.samples, 1))]


def random_inputs(function: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    """Standard-normal floats, integers in [0, 3) (valid as small indices and
    counts), random booleans; dynamic dims are 1."""
    from graph_opt.dialects.nn.dtypes import numpy_dtype
    from graph_opt.dialects.nn.shapes import DYN, ranked

    inputs = []
    for arg_type in function.function_type.inputs.data:
        shaped = ranked(arg_type)
        if shaped is None:
            raise ValueError(f"no random value for an argument of type {arg_type}")
        shape = [1 if d == DYN else d for d in shaped.get_shape()]
        dtype = np.dtype(numpy_dtype(shaped.element_type))
        if dtype == np.bool_:
            inputs.append(rng.random(shape) < 0.5)
        elif dtype.kind in "iu":
            inputs.append(rng.integers(0, 3, shape).astype(dtype))
        else:
            inputs.append(rng.standard_normal(shape).astype(dtype))
    return inputs


def given_inputs(
    function: func.FuncOp, inputs: str | Mapping[str, np.ndarray]
) -> list[list[np.ndarray]]:
    """Input sets from an .npz or a mapping by argument name; an array with one
    more dim than its argument holds one sample per index."""
    from graph_opt.dialects.nn.names import argument_names
    from graph_opt.dialects.nn.shapes import ranked

    if isinstance(inputs, str):
        with np.load(inputs) as archive:
            inputs = {name: archive[name] for name in archive.files}
    names = [
        # MLIR text without nn.name attributes: the SSA names (`%x` is "x")
        name if name in inputs or arg.name_hint is None else arg.name_hint
        for name, arg in zip(argument_names(function), function.args)
    ]
    missing = [n for n in names if n not in inputs]
    if missing:
        raise ValueError(
            f"--verify-numerics: the inputs lack {', '.join(missing)} "
            f"(have {', '.join(inputs) or 'nothing'})"
        )
    stacks = []
    for name, arg_type in zip(names, function.function_type.inputs.data):
        array = np.asarray(inputs[name])
        shaped = ranked(arg_type)
        rank = shaped.get_num_dims() if shaped is not None else array.ndim
        stacks.append(array if array.ndim == rank + 1 else array[None])
    count = min((len(s) for s in stacks), default=1)
    return [[stack[i] for stack in stacks] for i in range(count)]


def compare(
    before: Evaluation, after: Evaluation, pass_name: str, tolerance: float
) -> None:
    """Raise NumericsChanged when an output of `after` differs from `before`."""
    if len(before.outputs[0]) != len(after.outputs[0]):
        raise NumericsChanged(
            pass_name,
            f"--verify-numerics: pass '{pass_name}' changed the number of outputs "
            f"from {len(before.outputs[0])} to {len(after.outputs[0])}",
        )
    for sample, (expected, actual) in enumerate(zip(before.outputs, after.outputs)):
        for index, (e, a) in enumerate(zip(expected, actual)):
            difference = differs(e, a, tolerance)
            if difference is None:
                continue
            name = before.output_names[index]
            where = f" on input set {sample}" if len(before.outputs) > 1 else ""
            first = first_differing_value(before, after, tolerance)
            found = (
                f"; first differing value: {first}"
                if first
                else "; no value the pass kept by name differs"
            )
            raise NumericsChanged(
                pass_name,
                f"--verify-numerics: pass '{pass_name}' changed the numbers: output "
                f"'{name}'{where} {difference}{found}",
                first,
            )


def first_differing_value(
    before: Evaluation, after: Evaluation, tolerance: float
) -> str | None:
    """`%name (op)` of the first value, in the order `after` computed them,
    that has a name in both and differs."""
    for name, (op_name, value) in after.values.items():
        if name not in before.values:
            continue
        difference = differs(before.values[name][1], value, tolerance)
        if difference is not None:
            return f"%{name} ({op_name}) {difference}"
    return None


def differs(expected, actual, tolerance: float) -> str | None:
    """How `actual` differs from `expected` beyond the tolerance, or None; a
    sequence (list) item by item, an optional holding nothing as None."""
    if isinstance(expected, list) or isinstance(actual, list):
        return _sequence_differs(expected, actual, tolerance)
    if expected is None or actual is None:
        if expected is actual:
            return None
        return "holds nothing" if actual is None else "holds a value, not nothing"
    return _array_differs(expected, actual, tolerance)


def _sequence_differs(expected, actual, tolerance: float) -> str | None:
    if not (isinstance(expected, list) and isinstance(actual, list)):
        return "is a sequence where the other is not"
    if len(expected) != len(actual):
        return f"has {len(actual)} sequence items instead of {len(expected)}"
    for index, (e, a) in enumerate(zip(expected, actual)):
        difference = differs(e, a, tolerance)
        if difference is not None:
            return f"item {index} {difference}"
    return None


def _array_differs(
    expected: np.ndarray, actual: np.ndarray, tolerance: float
) -> str | None:
    from graph_opt.dialects.nn.dtypes import is_float_dtype

    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        return f"has shape {list(actual.shape)} instead of {list(expected.shape)}"
    if expected.dtype != actual.dtype:
        return f"has element type {actual.dtype} instead of {expected.dtype}"
    if not (is_float_dtype(expected.dtype) or expected.dtype.kind == "c"):
        wrong = int(np.count_nonzero(expected != actual))
        if wrong:
            return f"differs in {wrong} of {expected.size} elements"
        return None
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    nan_e, nan_a = np.isnan(e), np.isnan(a)
    if (nan_e != nan_a).any():
        return f"has NaN in {int(np.count_nonzero(nan_e != nan_a))} other elements"
    finite = ~nan_e
    if not finite.any():
        return None
    with np.errstate(invalid="ignore"):
        error = np.abs(e[finite] - a[finite])
        error = np.where(e[finite] == a[finite], 0.0, error)  # equal infinities
    scale = max(1.0, float(np.max(np.abs(e[finite]), initial=0.0)))
    if not np.isfinite(scale):
        scale = 1.0
    allowed = tolerance * scale
    worst = float(np.max(error, initial=0.0))
    if worst > allowed or np.isnan(worst):
        return f"differs by {worst:.4g} (allowed {allowed:.3g})"
    return None


def _after(previous: ModulePass | None) -> str:
    return f" after pass '{previous.name}'" if previous is not None else ""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def register_arguments(arg_parser) -> None:
    arg_parser.add_argument(
        "--verify-numerics",
        nargs="?",
        const=DEFAULT_TOLERANCE,
        type=float,
        metavar="TOL",
        help="Evaluate the module before and after each pass with the reference "
        "interpreter and stop at the first pass whose outputs differ by more than "
        f"TOL relative to their magnitude (default {DEFAULT_TOLERANCE:g}), naming "
        "the first value that diverged",
    )
    arg_parser.add_argument(
        "--inputs",
        metavar="NPZ",
        help="Inputs for --verify-numerics by argument name (a leading sample dim "
        "allowed); default: seeded random inputs",
    )
    arg_parser.add_argument(
        "--verify-numerics-samples",
        type=int,
        default=1,
        metavar="N",
        help="Input sets --verify-numerics evaluates on (default 1)",
    )
    arg_parser.add_argument(
        "--verify-numerics-time",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help="Seconds of evaluation after which --verify-numerics stops checking "
        f"(default {DEFAULT_TIME_LIMIT:g})",
    )
    arg_parser.add_argument(
        "--verify-numerics-skip",
        default="",
        metavar="OP,OP",
        help="Op names (e.g. nn.conv) that leave a module holding them unchecked",
    )


def check_from_args(args) -> NumericCheck | None:
    if args.verify_numerics is None:
        if args.inputs:
            raise ValueError("--inputs gives the inputs of --verify-numerics")
        return None
    return NumericCheck(
        tolerance=args.verify_numerics,
        inputs=args.inputs,
        samples=args.verify_numerics_samples,
        time_limit=args.verify_numerics_time,
        skip_ops=frozenset(
            o.strip() for o in args.verify_numerics_skip.split(",") if o.strip()
        ),
    )
