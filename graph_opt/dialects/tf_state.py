"""tf_state: the state of TensorFlow training graphs (variables, queues and the
optimizer updates that write them), as ops with memory effects.

A variable or queue op allocates a named resource (MemoryAllocEffect); reads,
writes and queue operations carry MemoryReadEffect / MemoryWriteEffect, so
that no pass removes, merges or reorders them. They run in block order, which
the importer makes TensorFlow's data and control order. Resources of one name
are one resource: the interpreter (`graph_opt.interpreter.tf_state`) keeps
them in a session, across steps. Each update returns the variable's new value
(TensorFlow's ref output), unused for resource variables.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type, types_compatible


@irdl_attr_definition
class VariableType(ParametrizedAttribute, TypeAttribute):
    """A handle to a variable holding a tensor: `!tf_state.variable<tensor<3xf32>>`."""

    name = "tf_state.variable"
    value_type: TensorType


@irdl_attr_definition
class QueueType(ParametrizedAttribute, TypeAttribute):
    """A handle to a queue of tuples of tensors (one type per component)."""

    name = "tf_state.queue"
    component_types: ArrayAttr[TensorType]


def _variable(value) -> VariableType:
    if not isinstance(value.type, VariableType):
        raise VerifyException(f"expected a !tf_state.variable, got {value.type}")
    return value.type


def _check_like(what: str, value, expected: TensorType) -> None:
    if not types_compatible(value.type, expected):
        raise VerifyException(f"{what} has type {value.type}, expected {expected}")


def _check_scalar(what: str, value) -> None:
    t = ranked(value)
    if t is not None and t.get_shape() not in ((), (1,)):
        raise VerifyException(f"{what} must be a scalar, got {list(t.get_shape())}")


@irdl_op_definition
class VariableOp(NNOperation):
    """The variable named `var_name` (VariableV2; VarHandleOp with `resource`),
    set to `initial_value` (what the graph's initializer assigns) the first
    time a session meets it."""

    name = "tf_state.variable"
    handle = result_def(VariableType)
    var_name = prop_def(StringAttr)
    initial_value = opt_prop_def(DenseIntOrFPElementsAttr)
    resource = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($handle)"

    def verify_properties(self) -> None:
        initial = self.initial_value
        if initial is not None and not types_compatible(
            initial.type, self.handle.type.value_type
        ):
            raise VerifyException(
                f"initial value of type {initial.type} does not fit {self.handle.type}"
            )


@irdl_op_definition
class ReadOp(NNOperation):
    """The variable's current value (ReadVariableOp, or a ref variable's read)."""

    name = "tf_state.read"
    variable = operand_def(VariableType)
    output = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        return [_variable(operands[0]).value_type]


class UpdateOp(NNOperation, ABC):
    """A write of a variable from its value and inputs; returns the new value.

    The first operand is the variable; `TENSOR_OPERANDS` (after it) have its
    type, the others are scalars."""

    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = ()
    output = result_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        value_type = _variable(operands[0]).value_type
        for index, operand in enumerate(operands[1:], 1):
            if isinstance(operand.type, VariableType):
                _check_like(f"operand {index}", operand, VariableType(value_type))
            elif index in cls.TENSOR_OPERANDS:
                _check_like(f"operand {index}", operand, value_type)
            else:
                _check_scalar(f"operand {index}", operand)
        return [value_type]


@irdl_op_definition
class AssignOp(UpdateOp):
    """variable = value"""

    name = "tf_state.assign"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (1,)
    variable = operand_def(VariableType)
    value = operand_def()


@irdl_op_definition
class AssignAddOp(UpdateOp):
    """variable += value"""

    name = "tf_state.assign_add"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (1,)
    variable = operand_def(VariableType)
    value = operand_def()


@irdl_op_definition
class AssignSubOp(UpdateOp):
    """variable -= value"""

    name = "tf_state.assign_sub"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (1,)
    variable = operand_def(VariableType)
    value = operand_def()


@irdl_op_definition
class ApplyGradientDescentOp(UpdateOp):
    """variable -= alpha * delta"""

    name = "tf_state.apply_gradient_descent"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (2,)
    variable = operand_def(VariableType)
    alpha = operand_def()
    delta = operand_def()


@irdl_op_definition
class ApplyMomentumOp(UpdateOp):
    """accum = accum * momentum + grad; variable -= lr * accum (with
    `use_nesterov`: variable -= lr * grad + lr * momentum * accum)."""

    name = "tf_state.apply_momentum"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (3,)
    variable = operand_def(VariableType)
    accum = operand_def(VariableType)
    lr = operand_def()
    grad = operand_def()
    momentum = operand_def()
    use_nesterov = opt_prop_def(UnitAttr)


@irdl_op_definition
class ApplyAdamOp(UpdateOp):
    """lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
    m = beta1 * m + (1 - beta1) * grad; v = beta2 * v + (1 - beta2) * grad^2;
    variable -= lr_t * m / (sqrt(v) + epsilon) (with `use_nesterov`, m is
    replaced by beta1 * m + (1 - beta1) * grad in the last step)."""

    name = "tf_state.apply_adam"
    TENSOR_OPERANDS: ClassVar[tuple[int, ...]] = (9,)
    variable = operand_def(VariableType)
    m = operand_def(VariableType)
    v = operand_def(VariableType)
    beta1_power = operand_def()
    beta2_power = operand_def()
    lr = operand_def()
    beta1 = operand_def()
    beta2 = operand_def()
    epsilon = operand_def()
    grad = operand_def()
    use_nesterov = opt_prop_def(UnitAttr)


@irdl_op_definition
class FifoQueueOp(NNOperation):
    """The first-in first-out queue named `queue_name` (FIFOQueueV2), holding up
    to `capacity` elements of the handle type's components."""

    name = "tf_state.fifo_queue"
    handle = result_def(QueueType)
    queue_name = prop_def(StringAttr)
    capacity = opt_prop_def(IntegerAttr)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($handle)"


def _components(queue) -> list[TensorType]:
    if not isinstance(queue.type, QueueType):
        raise VerifyException(f"expected a !tf_state.queue, got {queue.type}")
    return list(queue.type.component_types.data)


@irdl_op_definition
class EnqueueOp(NNOperation):
    """Append one element (QueueEnqueueV2), or with `many` the elements along
    the components' first axis (QueueEnqueueManyV2)."""

    name = "tf_state.enqueue"
    queue = operand_def(QueueType)
    components = var_operand_def()
    many = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "operands attr-dict `:` type(operands)"

    def verify_properties(self) -> None:
        expected = _components(self.queue)
        if len(expected) != len(self.components):
            raise VerifyException(
                f"the queue has {len(expected)} components, given {len(self.components)}"
            )
        for index, (value, element) in enumerate(zip(self.components, expected)):
            shape = element.get_shape()
            want = (
                tensor_type(element.element_type, (DYN, *shape))
                if self.many
                else element
            )
            _check_like(f"component {index}", value, want)


@irdl_op_definition
class DequeueOp(NNOperation):
    """Remove the oldest element (QueueDequeueV2), or with `count` that many
    stacked along a new first axis (QueueDequeueManyV2)."""

    name = "tf_state.dequeue"
    queue = operand_def(QueueType)
    count = opt_operand_def()
    components = var_result_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        components = _components(operands[0])
        if len(operands) == 1:
            return components
        from graph_opt.dialects.nn.constant import constant_value

        _check_scalar("count", operands[1])
        count = constant_value(operands[1])
        rows = DYN if count is None else int(count.reshape(-1)[0])
        return [tensor_type(c.element_type, (rows, *c.get_shape())) for c in components]


@irdl_op_definition
class GroupOp(NNOperation):
    """A point that runs after the effects its `tf.control_inputs` names (a NoOp
    that groups updates, such as a training step's `train`)."""

    name = "tf_state.group"
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"


UPDATE_OPS = [
    AssignOp,
    AssignAddOp,
    AssignSubOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    ApplyAdamOp,
]

TF_STATE = Dialect(
    "tf_state",
    [VariableOp, ReadOp, *UPDATE_OPS, FifoQueueOp, EnqueueOp, DequeueOp, GroupOp],
    [VariableType, QueueType],
)
