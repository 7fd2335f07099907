"""Running a function of a module on numpy inputs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    impl_external,
    register_impls,
)
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.dtypes import is_float_dtype, numpy_dtype
from graph_opt.dialects.nn.types import OptionalType, SequenceType
from graph_opt.entry import entry_function
from graph_opt.interpreter.limits import ResultSizeGuard
from graph_opt.interpreter.registry import control_flow_functions, nn_functions


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter of single nn ops (`run_op`), as constant folding uses."""
    interpreter = Interpreter(module, listeners=(ResultSizeGuard(),))
    for functions in nn_functions():
        interpreter.register_implementations(functions)
    return interpreter


External = Callable[..., Sequence[np.ndarray]]
"""Runs a function declared without a body: its arguments in, its results out."""


def make_function_interpreter(
    module: ModuleOp,
    state: InterpreterFunctions | None = None,
    externals: Mapping[str, External] | None = None,
) -> Interpreter:
    """An interpreter that also runs functions and their control flow (`call_op`),
    with the tf_state ops' resources in `state` (a fresh set by default) and
    the functions declared without a body run by `externals`, by name."""
    from graph_opt.interpreter.tf_state import TfStateFunctions

    interpreter = make_interpreter(module)
    for functions in control_flow_functions():  # later tables replace xDSL's loops
        interpreter.register_implementations(functions, override=True)
    interpreter.register_implementations(state or TfStateFunctions())
    if externals:
        interpreter.register_implementations(external_functions(externals))
    return interpreter


def external_functions(externals: Mapping[str, External]) -> InterpreterFunctions:
    """An interpreter table running each declared function `name` by `externals[name]`."""

    def implementation(run: External):
        def call(self, interpreter, op, args):
            return tuple(run(*args))

        return call

    methods = {
        f"external_{i}": impl_external(name)(implementation(run))
        for i, (name, run) in enumerate(externals.items())
    }
    return register_impls(type("ExternalFunctions", (InterpreterFunctions,), methods))()


def run_function(
    module: ModuleOp,
    inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
    function: str | None = None,
    state: InterpreterFunctions | None = None,
    externals: Mapping[str, External] | None = None,
) -> list:
    """Evaluate a function on inputs (positional, or by argument name) and return
    its results: an array per tensor result, a list of arrays per
    `!nn.sequence` result, None or the value per `!nn.optional` result; `state` holds variables and queues (see `tf_state.Session`);
    `externals` runs the functions declared without a body (partitions another
    compiler took), by name."""
    target = entry_function(module, function)
    args = function_arguments(target, inputs)
    interpreter = make_function_interpreter(module, state, externals)
    results = interpreter.call_op(target, tuple(args))
    return [result_value(r, t) for r, t in zip(results, target.function_type.outputs)]


def result_value(value, value_type):
    """A result as its type says: an array, a list (sequence), None (an
    optional holding nothing)."""
    if isinstance(value_type, OptionalType):
        return None if value is None else result_value(value, value_type.value_type)
    if isinstance(value_type, SequenceType):
        return [result_value(v, value_type.item_type) for v in value]
    return np.asarray(value)


def function_arguments(
    target: func.FuncOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]
) -> list:
    """The inputs in argument order, as arrays of the argument types."""
    if isinstance(inputs, Mapping):
        from graph_opt.dialects.nn.names import argument_names

        names = argument_names(target)
        missing = [n for n in names if n not in inputs]
        if missing:
            raise InterpretationError(f"missing inputs: {', '.join(missing)}")
        inputs = [inputs[n] for n in names]
    arg_types = target.function_type.inputs.data
    if len(inputs) != len(arg_types):
        raise InterpretationError(
            f"expected {len(arg_types)} inputs, got {len(inputs)}"
        )
    check_no_float_codes(target, inputs)
    return [
        np.asarray(value, dtype=numpy_dtype(t.element_type))
        if hasattr(t, "element_type")
        else value
        for value, t in zip(inputs, arg_types)
    ]


def check_no_float_codes(target: func.FuncOp, inputs: Sequence) -> None:
    """Refuse floats for an integer argument carrying `nn.quantization`
    (convert-to-int{integer-io=true}): casting would truncate them."""
    from graph_opt.dialects.nn.names import argument_names
    from graph_opt.quantization.boundary import boundary_quantization

    for index, (value, name) in enumerate(zip(inputs, argument_names(target))):
        params = boundary_quantization(target.arg_attrs, index)
        if params is not None and is_float_dtype(np.asarray(value).dtype):
            raise InterpretationError(
                f"input {name} takes integer codes (scale {params[0]:.9g}, zero "
                f"point {params[1]}: q = round(x / scale) + zero point), not floats"
            )
