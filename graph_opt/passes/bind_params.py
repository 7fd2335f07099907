"""bind-params: bind arguments of a function to constants by name (TVM's bind_params_by_name).

Weights a model takes as inputs become nn.constant ops, so that patterns with
`is_constant()` (partition-pattern, fuse-ops, fold-bn) match them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, SymbolRefAttr, TensorType
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import InterpretationError, PassFailedException

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import argument_names, set_name_hint
from graph_opt.dialects.nn.shapes import dims_compatible
from graph_opt.entry import entry_function
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record


class BindError(ValueError):
    """A parameter that names no argument, or does not fit its argument's type."""


def bind_params_by_name(
    module: ModuleOp, params: Mapping[str, np.ndarray], function: str | None = None
) -> list[str]:
    """Replace the arguments of `function` (default: the module's only public
    function) named in `params` by nn.constant ops of those arrays, and drop
    them from its signature; the names bound, in argument order.

    Names are graph-opt's argument names (`nn.name`, else `input_<i>`; see
    `graph_opt.dialects.nn.names`). An unknown name, an array whose dtype or
    shape does not fit its argument (a dynamic dim takes any size), or a
    function that is called in the module raises BindError, before anything
    changes.
    """
    try:
        target = entry_function(module, function)
    except InterpretationError as error:
        raise BindError(str(error)) from error
    symbol = target.sym_name.data
    names = argument_names(target)
    unknown = [n for n in params if n not in names]
    if unknown:
        raise BindError(
            f"@{symbol} has no argument named {', '.join(map(repr, unknown))} "
            f"(its arguments: {', '.join(names)})"
        )
    repeated = sorted({n for n in params if names.count(n) > 1})
    if repeated:
        raise BindError(
            f"@{symbol} has several arguments named {', '.join(map(repr, repeated))}"
        )
    callers = [
        op
        for op in module.walk()
        if isinstance(op, func.CallOp) and op.callee == SymbolRefAttr(symbol)
    ]
    if callers and params:
        raise BindError(
            f"@{symbol} is called in the module: binding would change its signature"
        )
    bound = [i for i, name in enumerate(names) if name in params]
    arrays = {
        i: _fitted(names[i], params[names[i]], target.args[i].type) for i in bound
    }
    _replace_arguments(target, arrays, names)
    return [names[i] for i in bound]


def _fitted(name: str, value: np.ndarray, arg_type) -> np.ndarray:
    """`value` as an array for argument `name`, or a BindError saying why it does not fit."""
    array = np.asarray(value)
    if not isinstance(arg_type, TensorType):
        raise BindError(f"argument {name!r} is {arg_type}, not a tensor")
    dtype = numpy_dtype(arg_type.element_type)
    if array.dtype != dtype:
        raise BindError(
            f"argument {name!r} is {arg_type}; the array is {array.dtype}, not {dtype}"
        )
    if not dims_compatible(arg_type.get_shape(), array.shape):
        raise BindError(
            f"argument {name!r} is {arg_type}; the array's shape is {list(array.shape)}"
        )
    return array


def _replace_arguments(
    target: func.FuncOp, arrays: dict[int, np.ndarray], names: list[str]
) -> None:
    block = target.body.block
    for index in sorted(arrays):
        arg = block.args[index]
        constant = ConstantOp.from_array(arrays[index], arg.type.element_type)  # type: ignore[attr-defined]
        set_name_hint(constant.results[0], names[index])
        Rewriter.insert_op(constant, InsertPoint.at_start(block))
        arg.replace_all_uses_with(constant.results[0])
    for index in sorted(arrays, reverse=True):
        block.erase_arg(block.args[index])
    if target.arg_attrs is not None:
        kept = [a for i, a in enumerate(target.arg_attrs.data) if i not in arrays]
        target.arg_attrs = ArrayAttr(kept)
    target.update_function_type()


@dataclass(frozen=True)
class BindParamsPass(ModulePass):
    """Bind function arguments to the arrays of an .npz, by argument name (TVM's bind_params_by_name).

    Each argument of the entry function (`function`, default the only public
    one) named by a key of `file` becomes an nn.constant of that array and
    leaves the signature, so that weights a model takes as inputs match
    `is_constant()` in partition-pattern and the fusions, and fold-constants
    can fold them. Names are those `graph-opt-run` takes inputs by (`nn.name`,
    else `input_<i>`); a dynamic dim takes the array's size (refine-shapes
    carries it on). A name that is no argument, an array of another dtype or
    shape, or a called function is a one-line error and nothing changes.
    Statistic: `arguments bound`.
    """

    name = "bind-params"

    statistics: ClassVar[Statistics] = {
        "arguments bound": "Function arguments replaced by constants of the given values",
    }

    file: str = field(
        default="", metadata={"help": "an .npz of the arrays, keyed by argument name"}
    )
    names: tuple[str, ...] = field(
        default=(),
        metadata={"help": "bind only these arrays of the file (default: all)"},
    )
    function: str = field(
        default="",
        metadata={
            "help": "the function whose arguments to bind (default: the only public one)"
        },
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.file:
            raise PassFailedException('bind-params needs file="weights.npz"')
        params = _load(self.file)
        missing = [n for n in self.names if n not in params]
        if missing:
            raise PassFailedException(
                f"bind-params: {self.file} has no array {', '.join(missing)} "
                f"(it has {', '.join(params) or 'none'})"
            )
        if self.names:
            params = {n: params[n] for n in self.names}
        try:
            bound = bind_params_by_name(op, params, self.function or None)
        except BindError as error:
            raise PassFailedException(f"bind-params: {error}") from error
        record("arguments bound", len(bound))
        if not bound:
            warn(f"bind-params: {self.file} holds no arrays; nothing bound")


def _load(path: str) -> dict[str, np.ndarray]:
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with archive:
            return {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise PassFailedException(
            f"bind-params: cannot read {path}: {error}"
        ) from error
