"""Handing partitions to another compiler (TVM's "bring your own codegen").

`offload` partitions a module by a pattern and hands each outlined function
to a codegen callback. A function the callback takes (returns an artifact,
not None) stays in the module only as a declaration, `func.func private
@name(...)` marked `nn.external`, which the host's `func.call @name` names;
one it declines keeps its body and runs in the host.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.patterns.partition import partition
from graph_opt.patterns.pattern import DFPattern

EXTERNAL_ATTR = "nn.external"
"""On a function without a body: what holds the body (a file written, or the codegen's name)."""

Codegen = Callable[[func.FuncOp], Any]
"""Takes an outlined function (with its body); returns an artifact, or None to decline."""


def offload(
    module: ModuleOp,
    pattern: DFPattern,
    codegen: Codegen,
    attrs: Mapping[str, Attribute | str] | None = None,
    *,
    compiler: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Partition `module` by `pattern` (`attrs` and `options` as `partition`
    takes them) and hand each outlined function to `codegen`; the artifacts
    it returned, by function name. The declarations left are marked
    `nn.external = compiler` (default: the codegen's `__name__`)."""
    name = compiler or getattr(codegen, "__name__", "codegen")
    functions = partition(module, pattern, attrs, **options)
    return hand_over(functions, codegen, lambda _: name)


def hand_over(
    functions: Sequence[func.FuncOp],
    codegen: Codegen,
    label: Callable[[Any], str],
) -> dict[str, Any]:
    """Give each function to `codegen`; replace each it takes by a declaration
    marked `nn.external = label(artifact)`. The artifacts, by function name."""
    artifacts = {}
    for function in functions:
        artifact = codegen(function)
        if artifact is None:
            continue
        artifacts[function.sym_name.data] = artifact
        _declare(function, label(artifact))
    return artifacts


def standalone_module(function: func.FuncOp) -> ModuleOp:
    """A copy of `function`, public, alone in a module: what another compiler takes."""
    copy = function.clone()
    copy.sym_visibility = None
    return ModuleOp([copy])


def _declare(function: func.FuncOp, where: str) -> None:
    """Replace `function` by a declaration of it, with its attributes and `nn.external = where`."""
    kind = function.function_type
    declaration = func.FuncOp.external(
        function.sym_name.data, kind.inputs.data, kind.outputs.data
    )
    declaration.attributes.update(function.attributes)
    declaration.attributes[EXTERNAL_ATTR] = StringAttr(where)
    Rewriter.insert_op(declaration, InsertPoint.after(function))
    Rewriter.erase_op(function)
