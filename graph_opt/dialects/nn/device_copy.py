"""nn.swap_out / nn.swap_in: Grappler's swap pair, a tensor copied to host
memory after its producer and back to its device before a late reader.

Placement is the `tf.device` attribute, as on every imported TensorFlow op:
swap_out's result lives on the host device it names, swap_in's on the device
it names (none: the default device). swap_in's optional `after` operand is a
control dependency (TensorFlow's `^trigger` input): the copy back waits for
that value's producer and reads no data from it. Both return their input, so
they export as Identity (to TensorFlow with their device and control input).
They are not Pure: where they stand in the block is the memory schedule, so no
pass merges, folds or erases them.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, result_def

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation


class DeviceCopyOp(NNOperation, ABC):
    """A copy of its input into another device's memory."""

    RESULT_TYPES_FROM_SIGNATURE: ClassVar[bool] = True

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [operands[0].type]


@irdl_op_definition
class SwapOutOp(DeviceCopyOp):
    """Copies a device tensor to host memory (placed by `tf.device`)."""

    name = "nn.swap_out"
    input = operand_def()
    output = result_def()
    assembly_format = GENERIC_FORMAT


@irdl_op_definition
class SwapInOp(DeviceCopyOp):
    """Copies a swapped-out tensor back to device memory, after `after`'s producer ran."""

    name = "nn.swap_in"
    input = operand_def()
    after = opt_operand_def()
    output = result_def()
    assembly_format = (
        "$input (`after` $after^)? attr-dict `:` functional-type(operands, results)"
    )


DEVICE_COPY_OPS = [SwapOutOp, SwapInOp]
