"""Fake quantization with ranges from the graph (quantization-aware training):
TensorFlow's FakeQuantWithMinMaxVars with min and max as tensors, and its
straight-through gradient."""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IntegerAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    check_flag,
    int_value,
)
from graph_opt.dialects.nn.quant import MAX_BITS, MIN_BITS
from graph_opt.dialects.nn.shapes import ranked


class _RangeOperands(NNOperation):
    """A per-tensor range read from two scalar operands, `num_bits` levels; the
    result is typed like the first operand."""

    num_bits = prop_def(IntegerAttr)
    narrow_range = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [operands[0].type]

    @property
    def bits(self) -> int:
        return int_value(self.properties, "num_bits", 8)

    @property
    def is_narrow(self) -> bool:
        return check_flag(self.properties, "narrow_range")

    def verify_properties(self) -> None:
        bits = self.bits
        if not MIN_BITS <= bits <= MAX_BITS:
            raise VerifyException(
                f"num_bits must be in [{MIN_BITS}, {MAX_BITS}], got {bits}"
            )
        check_flag(self.properties, "narrow_range")
        for what in ("min", "max"):
            t = ranked(getattr(self, what))
            if t is not None and t.get_shape() not in ((), (1,)):
                raise VerifyException(
                    f"{what} must be a scalar, got {list(t.get_shape())}"
                )
        element = getattr(self.input.type, "element_type", None)
        if element is not None and not isinstance(element, AnyFloat):
            raise VerifyException(
                f"{self.name} needs a float tensor, got {self.input.type}"
            )


@irdl_op_definition
class FakeQuantVarsOp(_RangeOperands):
    """FakeQuantWithMinMaxVars with `min` and `max` computed by the graph (the
    range variables of quantization-aware training): nn.fake_quant's
    arithmetic, the range nudged so that 0.0 is exact."""

    name = "nn.fake_quant_vars"
    input = operand_def()
    min = operand_def()
    max = operand_def()
    output = result_def()


@irdl_op_definition
class FakeQuantVarsGradOp(_RangeOperands):
    """The gradient of nn.fake_quant_vars for its input (the first result of
    FakeQuantWithMinMaxVarsGradient): `gradient` where `input` lies in the
    nudged [min, max], bounds included, zero elsewhere (straight through)."""

    name = "nn.fake_quant_vars_grad"
    gradient = operand_def()
    input = operand_def()
    min = operand_def()
    max = operand_def()
    output = result_def()


QUANT_TRAINING_OPS = [FakeQuantVarsOp, FakeQuantVarsGradOp]
