"""Shrinking a module while a bug persists (delta debugging), as `mlir-reduce`.

An interestingness test says whether a module still shows the bug: a pipeline
crashes with a message (`Crashes`), changes the numbers (`ChangesNumbers`),
leaves a module that fails verification (`InvalidAfter`), or a user script
exits with 0 on the module's text (`Script`). `reduce` then shrinks the entry
function while the test holds:

1. ops are removed in chunks, halved down to single ops (ddmin's complement
   step, in program order): a removed op's results become new function
   arguments where kept ops read them, and the function returns the results
   nothing kept reads; a chunk that cannot go is split;
2. constants become splats (one value repeated, printed as `dense<1.0>`);
3. each dim size is tried at 1 in every type at once, result types inferred
   again op by op;
4. discardable attributes and argument and result attributes are dropped.

Each step is repeated until none makes progress. Every candidate is built
afresh from the smallest module so far, verified, then tested.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import PassPipeline

from graph_opt import api
from graph_opt.driver.diagnostics import one_line
from graph_opt.entry import entry_function
from graph_opt.remarks import GraphOptWarning
from graph_opt.xdsl_compat.ir import set_value_type


class Interestingness(ABC):
    """Whether a module still shows the bug (the module may be changed)."""

    pipeline: str | None = None

    @abstractmethod
    def __call__(self, module: ModuleOp) -> bool: ...

    @abstractmethod
    def describe(self) -> str:
        """What the bug is, for the test's comment."""

    def run_options(self) -> list[str]:
        """graph-opt options, besides the pipeline, that make the test fail."""
        return []


def _passes(pipeline: str) -> PassPipeline:
    return api.pipeline(pipeline)


def _run_verified(module: ModuleOp, pipeline: str) -> None:
    """Run each pass, raising _InvalidAfter when the module fails to verify after one.
    What the passes warn about in these trial runs is not the bug: unsaid."""
    ctx = api.context()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphOptWarning)
        for one_pass in _passes(pipeline).passes:
            one_pass.apply(ctx, module)
            try:
                module.verify()
            except Exception as error:
                raise _InvalidAfter(one_pass.name, error) from error


class _InvalidAfter(Exception):
    def __init__(self, pass_name: str, error: Exception):
        super().__init__(str(error))
        self.pass_name = pass_name
        self.error = error


@dataclass
class Crashes(Interestingness):
    """The pipeline raises (not a verification failure) with `message` in its text."""

    pipeline: str
    message: str = ""
    error_type: str | None = None

    def __call__(self, module: ModuleOp) -> bool:
        try:
            _run_verified(module, self.pipeline)
        except _InvalidAfter:
            return False
        except Exception as error:
            if self.error_type and type(error).__name__ != self.error_type:
                return False
            return self.message in str(error)
        return False

    def describe(self) -> str:
        kind = self.error_type or "an error"
        return f"'{self.pipeline}' raises {kind}: {self.message}"


@dataclass
class InvalidAfter(Interestingness):
    """The module fails to verify after a pass of the pipeline (after `pass_name`
    if given), with `message` in the error."""

    pipeline: str
    pass_name: str | None = None
    message: str = ""

    def __call__(self, module: ModuleOp) -> bool:
        try:
            _run_verified(module, self.pipeline)
        except _InvalidAfter as invalid:
            return self.pass_name in (None, invalid.pass_name) and self.message in str(
                invalid.error
            )
        except Exception:
            return False
        return False

    def describe(self) -> str:
        after = f"'{self.pass_name}'" if self.pass_name else f"'{self.pipeline}'"
        return f"the module fails verification after {after}: {self.message}"


@dataclass
class ChangesNumbers(Interestingness):
    """A pass of the pipeline (`pass_name` if given) changes the outputs beyond
    `tolerance` (see --verify-numerics)."""

    pipeline: str
    tolerance: float = 1e-4
    pass_name: str | None = None

    def __call__(self, module: ModuleOp) -> bool:
        from graph_opt.driver.instrument import apply_instrumented
        from graph_opt.driver.verify_numerics import NumericCheck, NumericsChanged

        check = NumericCheck(tolerance=self.tolerance, time_limit=None)
        pipeline = PassPipeline(_passes(self.pipeline).passes, _verify_after_pass)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                apply_instrumented(api.context(), module, pipeline, numerics=check)
            except NumericsChanged as changed:
                return (
                    self.pass_name in (None, changed.pass_name)
                    and changed.__cause__ is None  # not "no longer runs"
                )
            except Exception:
                return False
        return False

    def describe(self) -> str:
        which = f"'{self.pass_name}'" if self.pass_name else f"'{self.pipeline}'"
        return f"{which} changes the numbers (tolerance {self.tolerance:g})"

    def run_options(self) -> list[str]:
        return [f"--verify-numerics={self.tolerance:g}"]


def _verify_after_pass(previous, module, next_pass) -> None:
    if previous is not None:
        module.verify()


@dataclass
class Script(Interestingness):
    """A user's script, run as `SCRIPT FILE.mlir`, exits with 0."""

    script: str
    pipeline: str | None = None
    timeout: float = 60.0

    def __call__(self, module: ModuleOp) -> bool:
        with tempfile.NamedTemporaryFile(
            "w", suffix=".mlir", prefix="graph-opt-reduce-", delete=False
        ) as handle:
            handle.write(api.to_mlir(module))
        try:
            command = [os.path.abspath(self.script), handle.name]
            if not os.access(self.script, os.X_OK):
                import sys

                command = [sys.executable, *command]
            done = subprocess.run(command, capture_output=True, timeout=self.timeout)
            return done.returncode == 0
        except subprocess.TimeoutExpired:
            return False
        finally:
            os.unlink(handle.name)

    def describe(self) -> str:
        return f"{self.script} exits with 0"


def detect(module: ModuleOp, pipeline: str, tolerance: float = 1e-4) -> Interestingness:
    """The bug the pipeline shows on `module`: a crash (kept to its message), an
    invalid module after a pass, or else changed numbers."""
    try:
        _run_verified(module.clone(), pipeline)
    except _InvalidAfter as invalid:
        return InvalidAfter(pipeline, invalid.pass_name, _first_line(invalid.error))
    except Exception as error:
        return Crashes(pipeline, _first_line(error), type(error).__name__)
    numbers = ChangesNumbers(pipeline, tolerance)
    if numbers(module.clone()):
        return numbers
    raise ValueError(
        f"'{pipeline}' neither fails nor changes the numbers of this module: "
        "nothing to reduce"
    )


def _first_line(error: BaseException) -> str:
    return one_line(error).removeprefix("error: ")


@dataclass
class Reduction:
    module: ModuleOp
    ops_before: int
    ops_after: int
    tests: int
    seconds: float
    log: list[str] = field(default_factory=list)


def count_ops(module: ModuleOp) -> int:
    """The ops of the entry function, its return excluded."""
    return len(_body_ops(entry_function(module)))


def _body_ops(function: func.FuncOp) -> list[Operation]:
    return [op for op in function.body.block.ops if not isinstance(op, func.ReturnOp)]


class Reducer:
    def __init__(
        self,
        interesting: Interestingness,
        progress: Callable[[str], None] | None = None,
    ):
        self.interesting = interesting
        self.tests = 0
        self.progress = progress

    def test(self, candidate: ModuleOp | None) -> bool:
        if candidate is None:
            return False
        try:
            candidate.verify()
        except Exception:
            return False
        self.tests += 1
        return self.interesting(candidate.clone())

    def reduce(self, module: ModuleOp) -> Reduction:
        started = time.perf_counter()
        before = count_ops(module)
        if not self.test(module.clone()):
            raise ValueError("the input does not show the bug: nothing to reduce")
        best = _strip_names(module)
        best = best if self.test(best) else module
        while True:
            size = count_ops(best)
            text = api.to_mlir(best)
            best = self._remove_ops(best)
            best = self._splat_constants(best)
            best = self._shrink_dims(best)
            best = self._drop_attributes(best)
            if count_ops(best) == size and api.to_mlir(best) == text:
                break
        return Reduction(
            best, before, count_ops(best), self.tests, time.perf_counter() - started
        )

    def _say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    def _remove_ops(self, best: ModuleOp) -> ModuleOp:
        """ddmin's complement step over the ops, in program order."""
        size = max(count_ops(best) // 2, 1)
        while True:
            progress = False
            start = 0
            while start < count_ops(best):
                candidate = without_ops(best, range(start, start + size))
                if self.test(candidate):
                    best = candidate
                    progress = True
                    self._say(f"{count_ops(best)} ops left")
                else:
                    start += size
            if not progress:
                if size == 1:
                    return best
                size = max(size // 2, 1)

    def _splat_constants(self, best: ModuleOp) -> ModuleOp:
        from graph_opt.dialects.nn.constant import ConstantOp

        index = 0
        while True:
            constants = [
                op
                for op in _body_ops(entry_function(best))
                if isinstance(op, ConstantOp)
            ]
            if index >= len(constants):
                return best
            value = constants[index].to_array()
            if value.size > 1 and not (value == value.flat[0]).all():
                for fill in (1, value.flat[0]):
                    candidate = with_constant(best, index, np.full_like(value, fill))
                    if self.test(candidate):
                        best = candidate
                        break
            index += 1

    def _shrink_dims(self, best: ModuleOp) -> ModuleOp:
        for size in sorted(_dim_sizes(best), reverse=True):
            for smaller in (1, 2):
                if smaller >= size:
                    continue
                candidate = with_dim_size(best, size, smaller)
                if self.test(candidate):
                    best = candidate
                    break
        return best

    def _drop_attributes(self, best: ModuleOp) -> ModuleOp:
        position = 0
        while True:
            found = _discardable(best)
            if position >= len(found):
                return best
            op_index, name = found[position]
            candidate = best.clone()
            del _body_ops(entry_function(candidate))[op_index].attributes[name]
            if self.test(candidate):
                best = candidate
            else:
                position += 1


def _discardable(module: ModuleOp) -> list[tuple[int, str]]:
    return [
        (index, name)
        for index, op in enumerate(_body_ops(entry_function(module)))
        for name in op.attributes
    ]


def without_ops(module: ModuleOp, indices: Sequence[int] | range) -> ModuleOp | None:
    """The module without the entry function's ops at `indices`: where kept ops
    read a removed op's results, they read new arguments; the function returns
    its old results still computed and the results nothing reads."""
    candidate = module.clone()
    function = entry_function(candidate)
    ops = _body_ops(function)
    doomed = [ops[i] for i in indices if 0 <= i < len(ops)]
    if not doomed or len(doomed) == len(ops):
        return None
    block = function.body.block
    doomed_set = set(doomed)
    for op in reversed(doomed):
        for result in op.results:
            for use in list(result.uses):
                if use.operation in doomed_set:
                    continue
                if isinstance(use.operation, func.ReturnOp):
                    continue
                argument = block.insert_arg(result.type, len(block.args))
                use.operation.operands[use.index] = argument
    returned = function.get_return_op()
    assert returned is not None
    kept_returns = [v for v in returned.operands if v.owner not in doomed_set]
    _erase(returned)
    for op in reversed(doomed):
        _erase(op)
    _finish_function(function, kept_returns)
    return candidate


def _finish_function(function: func.FuncOp, returns: list) -> None:
    """Return `returns` and every result nothing reads; drop unused arguments."""
    block = function.body.block
    values = list(dict.fromkeys(v for v in returns if v.owner is not block))
    for op in _body_ops(function):
        for result in op.results:
            if not result.uses and result not in values:
                values.append(result)
    existing = function.get_return_op()
    if existing is not None:
        _erase(existing)
    block.add_op(func.ReturnOp(*values))
    for argument in reversed(list(block.args)):
        if not argument.uses:
            block.erase_arg(argument)
    function.arg_attrs = None
    function.res_attrs = None
    function.update_function_type()


def _erase(op: Operation) -> None:
    """Erase an op whose results nothing that stays reads."""
    op.detach()
    op.erase(safe_erase=False)


def _strip_names(module: ModuleOp) -> ModuleOp:
    """The module without its attributes and the argument and result attributes
    (names) of its entry function."""
    candidate = module.clone()
    candidate.attributes.clear()
    function = entry_function(candidate)
    function.arg_attrs = None
    function.res_attrs = None
    return candidate


def with_constant(module: ModuleOp, index: int, value: np.ndarray) -> ModuleOp:
    """The module with its `index`-th constant holding `value` (same type)."""
    from graph_opt.dialects.nn.constant import ConstantOp

    candidate = module.clone()
    constants = [
        op for op in _body_ops(entry_function(candidate)) if isinstance(op, ConstantOp)
    ]
    old = constants[index]
    new = ConstantOp.from_array(value, old.output.type.element_type)
    new.output.name_hint = old.output.name_hint
    old.parent.insert_op_before(new, old)
    old.output.replace_all_uses_with(new.output)
    _erase(old)
    return candidate


def _dim_sizes(module: ModuleOp) -> set[int]:
    from graph_opt.dialects.nn.shapes import ranked

    sizes: set[int] = set()
    for op in _body_ops(entry_function(module)):
        for value in (*op.operands, *op.results):
            shaped = ranked(value.type)
            if shaped is not None:
                sizes.update(d for d in shaped.get_shape() if d > 2)
    return sizes


def with_dim_size(module: ModuleOp, size: int, smaller: int) -> ModuleOp | None:
    """Every dim of `size` in the arguments and constants made `smaller`, the
    other result types inferred again; None when an op cannot infer its types."""
    from graph_opt.dialects.nn.base import NNOperation
    from graph_opt.dialects.nn.constant import ConstantOp
    from graph_opt.dialects.nn.shapes import ranked, tensor_type

    def shrunk(value_type):
        shaped = ranked(value_type)
        if shaped is None:
            return value_type
        shape = [smaller if d == size else d for d in shaped.get_shape()]
        return tensor_type(shaped.element_type, shape)

    candidate = module.clone()
    function = entry_function(candidate)
    for argument in function.body.block.args:
        set_value_type(argument, shrunk(argument.type))
    try:
        for op in _body_ops(function):
            if isinstance(op, ConstantOp):
                new_type = shrunk(op.output.type)
                if new_type != op.output.type:
                    value = op.to_array()
                    shape = new_type.get_shape()
                    replacement = ConstantOp.from_array(
                        np.resize(value, shape), new_type.element_type
                    )
                    replacement.output.name_hint = op.output.name_hint
                    op.parent.insert_op_before(replacement, op)
                    op.output.replace_all_uses_with(replacement.output)
                    _erase(op)
                continue
            if not isinstance(op, NNOperation):
                return None
            types = type(op).infer_result_types(list(op.operands), op.properties)
            if types is None or len(types) != len(op.results):
                return None
            for result, new_type in zip(op.results, types):
                set_value_type(result, new_type)
    except Exception:
        return None
    function.update_function_type()
    return candidate
