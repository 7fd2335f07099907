"""TF1 TensorArrays (TensorArrayV3 and the ops on it) of a known size, as
dense tensors whose first axis indexes the array, as TensorLists are (see
`tensor_list`).

Every op that changes an array takes and returns its *flow* value, which a v1
or functional loop carries; here the flow is the array's tensor, so a write
returns the new tensor and a read indexes the flow it is given. The handle
(output 0 of TensorArrayV3) is a scalar placeholder no op reads.

An element shape that is unknown (tf.TensorArray's default in graph mode: the
rank too) is sized as TensorList's unknown dims are: the first write, scatter
or split gives the tensor its shape, and a loop that writes items of a static
shape gives the array that shape from the start. Refused, by name: dynamic_size=True (no known bound)
and identical_element_shapes=False with an element shape not fully known
(items of several shapes) before import (`attr_support`); a read of an array
still of unknown element shape, ops on non-constant indices or lengths
where a constant is needed, and (TensorFlow raises) items that do not fit the
array's known element shape (`check_item_shape`).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import BlockArgument, SSAValue

from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.compare import SelectOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.tensor_ops import GatherOp
from graph_opt.formats.tensorflow.mappings.index_ops import static_shape
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.mappings.tensor_list import (
    check_item_shape,
    joined_items,
    set_item,
    with_item_rank,
    zero_list,
)
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.tensors import numpy_dtype


@importer("TensorArrayV3")
def import_tensor_array(b, node, inputs):
    (size,) = int_constant(b, inputs[0], "the size")
    dtype = numpy_dtype(b.attr("dtype"))
    items = zero_list(b, size, b.attr("element_shape", None), dtype)
    return [b.constant(np.array(0, np.int32)), items]


def _read_items(b, items: SSAValue) -> SSAValue:
    unwritten = b.context.unsized_lists.get(items, False) is None
    if unwritten and not isinstance(items, BlockArgument):  # (a loop sizes its own)
        b.decline("a TensorArray of unknown element shape read before any write")
    return items


@importer("TensorArrayWriteV3")
def import_write(b, node, inputs):
    _, index, item, items = inputs
    return set_item(b, items, index, item)


@importer("TensorArrayScatterV3")
def import_scatter(b, node, inputs):
    """Item `indices[i]` becomes `value[i]` (the last one for a repeated index):
    the value's rows gathered into place, selected where an index lands."""
    _, indices, value, items = inputs
    targets = b.constant_input(indices, "the indices").reshape(-1)
    value_shape = static_shape(b, value, "the scattered value")
    if value_shape[0] != len(targets):
        raise b.error(f"{len(targets)} indices for {value_shape[0]} rows")
    check_item_shape(b, items, value_shape[1:])
    items = with_item_rank(b, items, len(value_shape) - 1)
    size = static_shape(b, items, "the TensorArray")[0]
    if ((targets < 0) | (targets >= size)).any():
        raise b.error(f"indices {targets.tolist()} outside the array's size {size}")
    source = np.zeros(size, np.int64)
    source[targets] = np.arange(len(targets))
    rows = b.create(GatherOp, [value, b.constant(source)], {"axis": i64_attr(0)})
    if len(set(targets.tolist())) == size:
        return rows
    written = np.isin(np.arange(size), targets)
    mask = b.constant(written.reshape([-1] + [1] * (len(value_shape) - 1)))
    return b.create(SelectOp, [mask, rows.results[0], items])


@importer("TensorArraySplitV3")
def import_split(b, node, inputs):
    """Rows of `value` in equal `lengths`, one item each."""
    _, value, lengths, items = inputs
    counts = set(int_constant(b, lengths, "the lengths"))
    shape = static_shape(b, value, "the split value")
    size = static_shape(b, items, "the TensorArray")[0]
    if len(counts) != 1 or counts.pop() * size != shape[0]:
        b.decline("a split needs equal lengths, one per item")
    check_item_shape(b, items, [shape[0] // size, *shape[1:]])
    new_shape = b.constant(np.array([size, shape[0] // size, *shape[1:]], np.int64))
    return b.create(ReshapeOp, [value, new_shape])


@importer("TensorArrayReadV3")
def import_read(b, node, inputs):
    _, index, items = inputs
    return b.create(GatherOp, [_read_items(b, items), index], {"axis": i64_attr(0)})


@importer("TensorArrayGatherV3")
def import_gather(b, node, inputs):
    _, indices, items = inputs
    return b.create(GatherOp, [_read_items(b, items), indices], {"axis": i64_attr(0)})


@importer("TensorArrayConcatV3")
def import_concat(b, node, inputs):
    """The items joined along their first axis, and each one's length."""
    return joined_items(b, _read_items(b, inputs[1]))


@importer("TensorArraySizeV3")
def import_size(b, node, inputs):
    (size, *_) = static_shape(b, inputs[1], "the TensorArray")
    return [b.constant(np.array(size, np.int32))]


@importer("TensorArrayCloseV3")
def import_close(b, node, inputs):
    return []
