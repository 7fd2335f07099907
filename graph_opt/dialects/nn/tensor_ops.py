"""Ops that move, select or convert tensor elements: transpose, concat, split, slice, gather, pad, cast, dropout, tile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import (
    GENERIC_FORMAT,
    NNOperation,
    PropertyDefaults,
    check_flag,
    float_value,
    int_list,
    int_value,
    str_value,
)
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import ElementwiseUnaryOp
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked, tensor_type


@irdl_op_definition
class TransposeOp(NNOperation):
    """Permute dims: result dim i is input dim perm[i] (reversed when perm is absent)."""

    name = "nn.transpose"
    input = operand_def()
    output = result_def()
    perm = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @staticmethod
    def permutation(props, rank: int) -> tuple[int, ...]:
        perm = int_list(props, "perm")
        if perm is None:
            return tuple(reversed(range(rank)))
        if sorted(perm) != list(range(rank)):
            raise VerifyException(
                f"perm {list(perm)} is not a permutation of rank {rank}"
            )
        return perm

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        shape = x.get_shape()
        perm = cls.permutation(props, len(shape))
        return [tensor_type(x.element_type, [shape[p] for p in perm])]


@irdl_op_definition
class ConcatOp(NNOperation):
    """Join the inputs along `axis`; the other dims must agree."""

    name = "nn.concat"
    inputs = var_operand_def()
    output = result_def()
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        if not operands:
            raise VerifyException("nn.concat needs at least one input")
        types = [ranked(v) for v in operands]
        if any(t is None for t in types):
            return None
        first = types[0]
        rank = first.get_num_dims()
        axis = normalize_axis(int_value(props, "axis", 0), rank)
        out = list(first.get_shape())
        out[axis] = 0
        for t in types:
            shape = t.get_shape()
            if t.element_type != first.element_type or len(shape) != rank:
                raise VerifyException(f"cannot concatenate {first} and {t}")
            for i, d in enumerate(shape):
                if i == axis:
                    out[i] = DYN if DYN in (out[i], d) else out[i] + d
                elif d != out[i] and DYN not in (d, out[i]):
                    raise VerifyException(
                        f"cannot concatenate {first} and {t} along axis {axis}"
                    )
                elif out[i] == DYN:
                    out[i] = d
        return [tensor_type(first.element_type, out)]


@irdl_op_definition
class SplitOp(NNOperation):
    """Cut the input along `axis` into one result per entry of `split` (the sizes)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": 0}

    name = "nn.split"
    input = operand_def()
    outputs = var_result_def()
    axis = opt_prop_def(IntegerAttr)
    split = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        sizes = int_list(props, "split") or ()
        if not sizes or min(sizes) < 0:
            raise VerifyException(
                f"split sizes {list(sizes)} must be non-negative, at least one"
            )
        if x is None:
            return None
        shape = x.get_shape()
        axis = normalize_axis(int_value(props, "axis", 0), len(shape))
        if shape[axis] not in (DYN, sum(sizes)):
            raise VerifyException(
                f"split sizes {list(sizes)} do not add up to dim {axis} of size {shape[axis]}"
            )
        return [
            tensor_type(x.element_type, [*shape[:axis], size, *shape[axis + 1 :]])
            for size in sizes
        ]


def slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int, int]:
    """ONNX Slice's clamping along one axis: (start, end, length) with 0 <= start < dim."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return start, end, max(0, -(-(end - start) // step))


def slice_axes(rank: int, starts, ends, axes, steps) -> dict[int, tuple[int, int, int]]:
    """Per sliced (normalized) axis, its (start, end, step); checks the parameter lists."""
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise VerifyException("starts, ends, axes and steps must have the same length")
    out = {}
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = normalize_axis(int(axis), rank)
        if axis in out:
            raise VerifyException(f"axis {axis} is sliced twice")
        if step == 0:
            raise VerifyException("slice steps must not be 0")
        out[axis] = (int(start), int(end), int(step))
    return out


def _index_vector(value: SSAValue, what: str) -> None:
    t = ranked(value)
    if t is not None and (
        t.get_num_dims() != 1 or not isinstance(t.element_type, IntegerType)
    ):
        raise VerifyException(f"{what} must be a 1-D integer tensor, got {t}")


@irdl_op_definition
class SliceOp(NNOperation):
    """ONNX Slice: take starts[i]:ends[i]:steps[i] along axes[i], bounds clamped."""

    name = "nn.slice"
    data = operand_def()
    starts = operand_def()
    ends = operand_def()
    axes = operand_def()
    steps = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        data, *params = operands
        for value, what in zip(params, ("starts", "ends", "axes", "steps")):
            _index_vector(value, what)
        x = ranked(data)
        arrays = [constant_value(v) for v in params]
        if x is None or any(a is None for a in arrays):
            return None
        shape = list(x.get_shape())
        for axis, (start, end, step) in slice_axes(len(shape), *arrays).items():
            if shape[axis] != DYN:
                shape[axis] = slice_bounds(shape[axis], start, end, step)[2]
        return [tensor_type(x.element_type, shape)]


def data_and_indices(operands) -> tuple[TensorType, TensorType] | None:
    """The ranked types of a gather's data and integer indices (None if unranked)."""
    data, indices = ranked(operands[0]), ranked(operands[1])
    if data is None or indices is None:
        return None
    if not isinstance(indices.element_type, IntegerType):
        raise VerifyException(f"indices must be integers, got {indices}")
    return data, indices


def check_constant_indices(indices: SSAValue, size: int, axis: int) -> None:
    """Constant indices must lie in [-size, size) (unchecked for a dynamic size)."""
    known = constant_value(indices)
    if known is not None and size != DYN and known.size:
        if known.min() < -size or known.max() >= size:
            raise VerifyException(
                f"indices are out of range for dim {axis} of size {size}"
            )


@irdl_op_definition
class GatherOp(NNOperation):
    """Pick entries along `axis` at `indices` (negative ones count from the end)."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"axis": 0}

    name = "nn.gather"
    data = operand_def()
    indices = operand_def()
    output = result_def()
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        types = data_and_indices(operands)
        if types is None:
            return None
        x, indices = types
        shape = x.get_shape()
        axis = normalize_axis(int_value(props, "axis", 0), len(shape))
        check_constant_indices(operands[1], shape[axis], axis)
        out = [*shape[:axis], *indices.get_shape(), *shape[axis + 1 :]]
        return [tensor_type(x.element_type, out)]


PAD_MODES = ("constant", "reflect", "edge")


@irdl_op_definition
class PadOp(NNOperation):
    """Pad by `pads` = [begin..., end...] (negative values crop), filling per `mode`."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"mode": "constant", "value": 0.0}

    name = "nn.pad"
    input = operand_def()
    output = result_def()
    pads = prop_def(DenseArrayBase)
    mode = opt_prop_def(StringAttr)
    value = opt_prop_def(FloatAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @property
    def pad_mode(self) -> str:
        return str_value(self.properties, "mode", "constant")

    @property
    def fill(self) -> float:
        return float_value(self.properties, "value", 0.0)

    def verify_properties(self) -> None:
        if self.pad_mode not in PAD_MODES:
            raise VerifyException(
                f"mode must be one of {PAD_MODES}, got {self.pad_mode!r}"
            )

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        shape = x.get_shape()
        pads = int_list(props, "pads") or ()
        rank = len(shape)
        if len(pads) != 2 * rank:
            raise VerifyException(f"pads needs {2 * rank} values, got {len(pads)}")
        reflect = str_value(props, "mode", "constant") == "reflect"
        out = []
        for d, begin, end in zip(shape, pads[:rank], pads[rank:]):
            if d == DYN:
                out.append(DYN)
                continue
            if d + begin + end < 0:
                raise VerifyException(f"pads {list(pads)} crop more than dim size {d}")
            if reflect and max(begin, end) >= d:
                raise VerifyException(f"reflect pads must be smaller than dim size {d}")
            out.append(d + begin + end)
        return [tensor_type(x.element_type, out)]


@irdl_op_definition
class CastOp(NNOperation):
    """Convert elements to the element type `to`, e.g. `{to = f16}`.

    Out-of-range values cast to a float8 type saturate to its largest finite
    value unless `saturate = 0` (ONNX's Cast).

    A float cast to an integer type narrower than 32 bits wraps around
    (through int32, as onnxruntime and numpy do: 300.5 -> int8 44); with
    `clamp_narrow` it is clamped to the type instead (TensorFlow's Cast in a
    graph: 300.5 -> 127, NaN -> -128). NaN, infinities and values outside
    int32 are int32's minimum first, in both.
    """

    name = "nn.cast"
    input = operand_def()
    output = result_def()
    to = prop_def(TypeAttribute)
    saturate = opt_prop_def(IntegerAttr)
    clamp_narrow = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def verify_properties(self) -> None:
        try:
            numpy_dtype(self.to)
        except ValueError as e:
            raise VerifyException(
                f"cannot cast to {self.to}: not an element type"
            ) from e
        check_flag(self.properties, "saturate")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        x = ranked(operands[0])
        if x is None:
            return None
        return [tensor_type(props["to"], x.get_shape())]


@irdl_op_definition
class DropoutOp(ElementwiseUnaryOp):
    """Dropout at inference: the identity; `ratio` is kept for export."""

    PROPERTY_DEFAULTS: ClassVar[PropertyDefaults] = {"ratio": 0.5}

    name = "nn.dropout"
    ratio = opt_prop_def(FloatAttr)

    def verify_properties(self) -> None:
        ratio = float_value(self.properties, "ratio", 0.5)
        if not 0 <= ratio < 1:
            raise VerifyException(f"ratio must be in [0, 1), got {ratio}")


@irdl_op_definition
class TileOp(NNOperation):
    """Repeat the input `repeats[i]` times along dim i (`repeats`: 1-D integers, one per dim)."""

    name = "nn.tile"
    input = operand_def()
    repeats = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        _index_vector(operands[1], "repeats")
        x = ranked(operands[0])
        if x is None:
            return None
        shape = x.get_shape()
        repeats_type = ranked(operands[1])
        count = repeats_type.get_shape()[0] if repeats_type is not None else DYN
        if count not in (DYN, len(shape)):
            raise VerifyException(f"repeats has {count} values for rank {len(shape)}")
        repeats = constant_value(operands[1])
        if repeats is None:
            return [tensor_type(x.element_type, [DYN] * len(shape))]
        if (repeats < 0).any():
            raise VerifyException(f"repeats {repeats.tolist()} must not be negative")
        out = [DYN if d == DYN else d * int(r) for d, r in zip(shape, repeats)]
        return [tensor_type(x.element_type, out)]


@irdl_op_definition
class ExpandOp(NNOperation):
    """ONNX Expand: broadcast the input and `shape` (1-D integers) against each
    other, numpy's way; a 1 in `shape` keeps the input's dim."""

    name = "nn.expand"
    input = operand_def()
    shape = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        _index_vector(operands[1], "shape")
        x = ranked(operands[0])
        if x is None:
            return None
        shape = list(x.get_shape())
        target = constant_value(operands[1])
        if target is None:
            shape_type = ranked(operands[1])
            count = shape_type.get_shape()[0] if shape_type is not None else DYN
            if count == DYN:
                return None
            return [tensor_type(x.element_type, [DYN] * max(count, len(shape)))]
        dims = [int(d) for d in target.reshape(-1)]
        rank = max(len(dims), len(shape))
        shape = [1] * (rank - len(shape)) + shape
        dims = [1] * (rank - len(dims)) + dims
        return [
            tensor_type(x.element_type, [expanded(a, b) for a, b in zip(shape, dims)])
        ]


def expanded(dim: int, target: int) -> int:
    """One dim of Expand's result: the input's dim broadcast against the target's."""
    if target == 1:
        return dim
    if dim in (1, DYN) or dim == target:
        return target
    raise VerifyException(f"cannot expand a dim of size {dim} to {target}")


TENSOR_OPS: Sequence[type[NNOperation]] = [
    TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, PadOp, CastOp, DropoutOp,
    TileOp, ExpandOp,
]  # fmt: skip
