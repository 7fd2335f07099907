"""TensorList ops (what tf.TensorArray becomes in TF2 graphs, e.g. Keras' LSTM
loop) on lists of a static length and element shape, as dense tensors whose
first axis indexes the list."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.compare import EqualOp, SelectOp
from graph_opt.dialects.nn.dtypes import numpy_dtype as element_dtype
from graph_opt.dialects.nn.elementwise import IdentityOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp, UnsqueezeOp
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
    shape = b.constant_input(element_shape, "the element shape")
    (length,) = int_constant(b, count, "the number of elements")
    if length < 0:
        b.decline("a TensorList needs a known length")
    dtype = numpy_dtype(b.attr("element_dtype"))
    dims = None if shape.ndim == 0 else [int(d) for d in shape]  # -1: unknown rank
    return [zero_list(b, length, dims, dtype)]


def zero_list(b, length: int, dims: list[int] | None, dtype) -> SSAValue:
    """A list of `length` zero items of shape `dims` (-1 where unknown, None
    when the rank is unknown too), registered as unsized when it is not known."""
    known = [] if dims is None else [max(d, 1) for d in dims]
    items = b.constant(np.zeros([length, *known], dtype))
    if dims is None:
        b.context.unsized_lists[items] = None
    elif any(d < 0 for d in dims):
        b.context.unsized_lists[items] = np.array([False, *(d < 0 for d in dims)])
    return items


def sized_list(b, items: SSAValue, written: Attribute) -> SSAValue | None:
    """The zero list `items` at the static shape `written` its loop gives it,
    if `items` is a list reserved with unknown dims (or rank) and `written`
    differs only in those."""
    written_type = ranked(written)
    if items not in b.context.unsized_lists or written_type is None:
        return None
    unknown = b.context.unsized_lists[items]
    shape = np.array(written_type.get_shape())
    reserved = np.array(ranked(items).get_shape())
    if (shape == DYN).any() or shape[0] != reserved[0]:
        return None
    if unknown is not None and (
        len(shape) != len(reserved) or (shape[~unknown] != reserved[~unknown]).any()
    ):
        return None
    dtype = element_dtype(written_type.element_type)
    return b.constant(np.zeros(shape, dtype))


@importer("TensorListFromTensor", "TensorListStack")
def import_as_tensor(b, node, inputs):
    return [inputs[0]]


@importer("TensorListConcatV2")
def import_concat(b, node, inputs):
    return joined_items(b, inputs[0])


def joined_items(b, items: SSAValue) -> list[SSAValue]:
    """The items of a list joined along their first axis, and each one's length."""
    size, first, *rest = static_shape(b, items, "the list")
    new_shape = b.constant(np.array([size * first, *rest], np.int64))
    joined = b.create(ReshapeOp, [items, new_shape]).results[0]
    return [joined, b.constant(np.full(size, first, np.int64))]


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
    items, index, item = inputs
    return set_item(b, items, index, item)


def set_item(b, items: SSAValue, index: SSAValue, item: SSAValue) -> Operation:
    """The list with item `index` replaced: a select on `range(length) == index`."""
    item_rank = _rank(b, item, "the item")
    check_item_shape(b, items, ranked(item).get_shape())
    items = with_item_rank(b, items, item_rank)
    length = ranked(items).get_shape()[0]
    if length == DYN:
        b.decline("setting an item needs a list of a known length")
    positions = np.arange(length).reshape([-1] + [1] * item_rank)
    index_dtype = element_dtype(index.type.element_type)
    mask = b.create(EqualOp, [b.constant(positions.astype(index_dtype)), index])
    row = b.create(UnsqueezeOp, [item], {"axes": i64_array([0])})
    return b.create(SelectOp, [mask.results[0], row.results[0], items])


def check_item_shape(b, items: SSAValue, item_shape: Sequence[int]) -> None:
    """Refuse items whose static dims differ from the list's known element
    dims, as TensorFlow does (the select that writes them would broadcast)."""
    list_type = ranked(items)
    while isinstance(items, OpResult) and isinstance(items.op, IdentityOp):
        items = items.op.operands[0]  # (a v1 loop's flow passes Identity nodes)
    unknown = b.context.unsized_lists.get(items, False)
    if unknown is None or list_type is None:
        return  # the rank is not known yet: the first write gives the shape
    element = list(list_type.get_shape()[1:])
    if unknown is not False:
        element = [DYN if u else d for u, d in zip(unknown[1:], element)]
    if len(element) == len(item_shape) and all(
        DYN in (e, i) or e == i for e, i in zip(element, item_shape)
    ):
        return
    raise b.error(
        f"an item of shape {_shape_text(item_shape)} does not fit the element "
        f"shape {_shape_text(element)}"
    )


def _shape_text(dims: Sequence[int]) -> str:
    return "[" + ",".join("?" if d == DYN else str(d) for d in dims) + "]"


def with_item_rank(b, items: SSAValue, item_rank: int) -> SSAValue:
    """`items`, given unit dims up to rank 1 + `item_rank` when it is a list
    whose item rank is not known yet (1-D zeros, see `zero_list`)."""
    rank = _rank(b, items, "the list")
    if rank == 1 + item_rank:
        return items
    if rank != 1:
        b.decline(f"items of rank {item_rank} set in a list of rank {rank}")
    unit_dims = b.constant(np.array([-1] + [1] * item_rank, np.int64))
    return b.create(ReshapeOp, [items, unit_dims]).results[0]


def _rank(b, value: SSAValue, what: str) -> int:
    value_type = ranked(value)
    if value_type is None:
        b.decline(f"{what} needs a known rank")
    return value_type.get_num_dims()
