"""Which function of a module the interpreter runs and the exporter writes."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import InterpretationError


def entry_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The named function, or the module's only public function."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise InterpretationError(f"no function named @{name}")
    public = [
        f
        for f in funcs
        if f.sym_visibility is None or f.sym_visibility.data == "public"
    ]
    if len(public) != 1:
        raise InterpretationError("the module has several public functions: name one")
    return public[0]
