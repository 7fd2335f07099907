"""freeze-variables: a trained graph's variables as constants (its eval graph)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.compare import SelectOp
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.dialects.nn.quant_training import FakeQuantVarsOp
from graph_opt.dialects.tf_state import UPDATE_OPS, ReadOp, VariableOp
from graph_opt.passes.common.constant_eval import computed_constant
from graph_opt.remarks import warn
from graph_opt.rewriting.placement import carry_placement
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class FreezeVariablesPass(ModulePass):
    """Replace variable reads and the values updates return by constants of
    the variables' trained values, and drop the updates: the eval graph of a
    trained graph (TF's create_eval_graph reads the range variables).

    `values` is an .npz keyed by variable name (what `graph-opt-run --variables`
    writes after training). A `fake_quant_vars` whose bounds become constants
    turns into `nn.fake_quant` with those ranges, and a select on a condition
    that becomes constant (quantize{training}'s quant_delay) into its branch,
    so that the inference quantize / convert-to-int pipeline takes the graph.
    Variables the graph uses and the file lacks are one error naming them.
    """

    name = "freeze-variables"

    statistics: ClassVar[Statistics] = {
        "variables frozen": "Variables replaced by constants of their values",
        "fake quantizations fixed": "Fake quantizations whose range became constant",
        "selects decided": "Selects on a now-constant condition replaced by one side",
    }

    values: str = field(
        default="", metadata={"help": "the .npz of trained variable values"}
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.values:
            raise PassFailedException('freeze-variables needs values="variables.npz"')
        arrays = _load(self.values)
        state = [o for o in op.walk() if isinstance(o, (ReadOp, *UPDATE_OPS))]
        missing = sorted({_name(o) for o in state} - set(arrays))
        if missing:
            raise PassFailedException(
                f"{self.values} lacks variable(s) {', '.join(missing)}"
            )
        for state_op in state:
            _replace_by_value(state_op, arrays[_name(state_op)])
        for state_op in reversed(state):
            Rewriter.erase_op(state_op, safe_erase=False)
        for variable in [o for o in op.walk() if isinstance(o, VariableOp)]:
            if not variable.handle.uses:
                Rewriter.erase_op(variable)
        record("variables frozen", len({_name(o) for o in state}))
        record("fake quantizations fixed", _fix_fake_quantizations(op))
        record("selects decided", _decide_selects(op))
        if not state:
            warn("freeze-variables: the graph reads no variables")


def _load(path: str) -> dict[str, np.ndarray]:
    try:
        with np.load(path) as archive:
            return {name: archive[name] for name in archive.files}
    except (OSError, ValueError) as e:
        raise PassFailedException(f"cannot read variable values {path}: {e}") from e


def _name(op: Operation) -> str:
    return op.operands[0].owner.var_name.data  # type: ignore[union-attr]


def _replace_by_value(op: Operation, value: np.ndarray) -> None:
    result = op.results[0]
    if not result.uses:
        return
    element = result.type.element_type  # type: ignore[attr-defined]
    array = np.asarray(value, numpy_dtype(element)).reshape(
        result.type.get_shape()  # type: ignore[attr-defined]
    )
    constant = ConstantOp.from_array(array, element)
    Rewriter.insert_op(constant, InsertPoint.before(op))
    carry_placement(constant, [op])
    constant.location = op.location
    result.replace_all_uses_with(constant.output)


def _fix_fake_quantizations(module: ModuleOp) -> int:
    count = 0
    for op in [o for o in module.walk() if isinstance(o, FakeQuantVarsOp)]:
        low, high = computed_constant(op.min), computed_constant(op.max)
        if low is None or high is None:
            continue
        props = fake_quant_props(
            [float(low.reshape(-1)[0])], [float(high.reshape(-1)[0])], op.bits,
            op.is_narrow,
        )  # fmt: skip
        fixed = FakeQuantOp.create_inferred([op.input], props)
        fixed.location = op.location
        carry_placement(fixed, [op])
        Rewriter.replace_op(op, fixed)
        count += 1
    return count


def _decide_selects(module: ModuleOp) -> int:
    count = 0
    for op in [o for o in module.walk() if isinstance(o, SelectOp)]:
        condition = computed_constant(op.condition)
        if condition is None or condition.size != 1:
            continue
        branch = op.on_true if bool(condition.reshape(-1)[0]) else op.on_false
        if branch.type != op.output.type:
            continue
        op.output.replace_all_uses_with(branch)
        Rewriter.erase_op(op)
        count += 1
    return count
