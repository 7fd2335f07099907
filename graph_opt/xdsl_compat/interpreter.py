"""What an xDSL 0.74 interpreter function table implements.

`@register_impls` stores a table's `@impl` methods where only the private
classmethod `InterpreterFunctions._impls` reads them; `implemented_op_types`
exposes the op classes (tests/xdsl_compat/test_interpreter.py checks it against
an `Interpreter` running the table).
"""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Operation


def implemented_op_types(table: InterpreterFunctions) -> frozenset[type[Operation]]:
    """The op classes `table` (a `@register_impls` class) has an `@impl` for."""
    return frozenset(op_type for op_type, _ in type(table)._impls())
