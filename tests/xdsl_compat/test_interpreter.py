"""xdsl_compat.interpreter against xDSL's own interpreter."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.xdsl_compat.interpreter import implemented_op_types


@register_impls
class AddOnly(InterpreterFunctions):
    @impl(arith.AddiOp)
    def run_addi(self, interpreter, op, args):
        return (args[0] + args[1],)


def test_implemented_op_types_are_what_the_interpreter_runs():
    assert implemented_op_types(AddOnly()) == {arith.AddiOp}
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AddOnly())
    a, b = (
        arith.ConstantOp.from_int_and_width(2, i32),
        arith.ConstantOp.from_int_and_width(3, i32),
    )
    assert interpreter.run_op(arith.AddiOp(a, b), (2, 3)) == (5,)
    with pytest.raises(Exception, match="Could not find"):
        interpreter.run_op(arith.SubiOp(a, b), (2, 3))
