"""TensorList ops (what tf.TensorArray becomes in TF2 graphs, e.g. Keras' LSTM
loop) on lists of a static length and element shape, as dense tensors whose
first axis indexes the list."""

from __future__ import annotations

import numpy as np
from xdsl.ir import Attribute, SSAValue

from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.compare import EqualOp, SelectOp
from graph_opt.dialects.nn.dtypes import numpy_dtype as element_dtype
from graph_opt.dialects.nn.shape_ops import UnsqueezeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import GatherOp
from graph_opt.formats.tensorflow.mappings.index_ops import static_shape
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.tensors import numpy_dtype


@importer("TensorListReserve")
def import_reserve(b, node, inputs):
    """A list of `num_elements` zero tensors (reading an unset item gives zeros).

    An unknown element dim (a dynamic batch: Keras' LSTM on a SavedModel
    exported with a free batch) is 1 here: the first item written broadcasts
    the list to its size (TensorFlow refuses to read an unset item of an
    unknown shape, so no read sees the difference), and a loop that writes
    items of a static shape gives the list that size from the start
    (`sized_list`)."""
    element_shape, count = inputs
    shape = int_constant(b, element_shape, "the element shape")
    (length,) = int_constant(b, count, "the number of elements")
    if length < 0:
        b.decline("a TensorList needs a known length")
    dtype = numpy_dtype(b.attr("element_dtype"))
    items = b.constant(np.zeros([length, *(max(d, 1) for d in shape)], dtype))
    unknown = np.array([False, *(d < 0 for d in shape)])
    if unknown.any():
        b.context.unsized_lists[items] = unknown
    return [items]


def sized_list(b, items: SSAValue, written: Attribute) -> SSAValue | None:
    """The zero list `items` at the static shape `written` its loop gives it,
    if `items` is a list reserved with unknown dims and `written` differs only
    in those."""
    unknown = b.context.unsized_lists.get(items)
    written_type = ranked(written)
    if unknown is None or written_type is None:
        return None
    shape = np.array(written_type.get_shape())
    reserved = np.array(ranked(items).get_shape())
    if len(shape) != len(reserved) or (shape == DYN).any():
        return None
    if (shape[~unknown] != reserved[~unknown]).any():
        return None
    dtype = element_dtype(written_type.element_type)
    return b.constant(np.zeros(shape, dtype))


@importer("TensorListFromTensor", "TensorListStack")
def import_as_tensor(b, node, inputs):
    return [inputs[0]]


@importer("TensorListLength")
def import_length(b, node, inputs):
    (length, *_) = static_shape(b, inputs[0], "TensorListLength")
    return [b.constant(np.array(length, np.int32))]


@importer("TensorListGetItem")
def import_get_item(b, node, inputs):
    items, index = inputs[:2]
    return b.create(GatherOp, [items, index], {"axis": i64_attr(0)})


@importer("TensorListSetItem")
def import_set_item(b, node, inputs):
    """The list with item `index` replaced: a select on `range(length) == index`."""
    items, index, item = inputs
    items_type = ranked(items)
    if items_type is None or items_type.get_shape()[0] == DYN:
        b.decline("TensorListSetItem needs a list of a known length")
    shape = items_type.get_shape()
    positions = np.arange(shape[0]).reshape([-1] + [1] * (len(shape) - 1))
    index_dtype = element_dtype(index.type.element_type)
    mask = b.create(EqualOp, [b.constant(positions.astype(index_dtype)), index])
    row = b.create(UnsqueezeOp, [item], {"axes": i64_array([0])})
    return b.create(SelectOp, [mask.results[0], row.results[0], items])
