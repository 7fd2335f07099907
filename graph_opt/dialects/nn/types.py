"""Types for ONNX values that are not numeric tensors: strings, sequences, optionals."""

from __future__ import annotations

from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """The element type of string tensors: `tensor<2x!nn.string>`."""

    name = "nn.string"


@irdl_attr_definition
class SequenceType(ParametrizedAttribute, TypeAttribute):
    """An ONNX sequence of values of one type: `!nn.sequence<tensor<*xf32>>`."""

    name = "nn.sequence"
    item_type: Attribute


@irdl_attr_definition
class OptionalType(ParametrizedAttribute, TypeAttribute):
    """An ONNX optional (a value or none): `!nn.optional<tensor<2xf32>>`."""

    name = "nn.optional"
    value_type: Attribute


NN_TYPES = [StringType, SequenceType, OptionalType]
