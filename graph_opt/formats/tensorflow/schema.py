"""TensorFlow's GraphDef messages, built in code from the public .proto field numbers.

TensorFlow is not a dependency and no protoc runs at build time, so the few
messages a frozen graph needs (tensorflow/core/framework/{graph,node_def,
attr_value,tensor,tensor_shape,types,versions,function,op_def}.proto) are
declared below in proto syntax, turned into a FileDescriptorProto and given
message classes by the protobuf runtime. Fields we do not declare (debug info,
full types, resource handles) survive binary parsing as unknown fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "tensorflow"

_BASE_TYPES = [
    "DT_INVALID", "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16",
    "DT_INT8", "DT_STRING", "DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_QINT8",
    "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16", "DT_QINT16", "DT_QUINT16",
    "DT_UINT16", "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE", "DT_VARIANT",
    "DT_UINT32", "DT_UINT64", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN",
    "DT_FLOAT8_E4M3FNUZ", "DT_FLOAT8_E4M3B11FNUZ", "DT_FLOAT8_E5M2FNUZ",
    "DT_INT4", "DT_UINT4",
]  # fmt: skip
DATA_TYPES = {name: number for number, name in enumerate(_BASE_TYPES)} | {
    f"{name}_REF": number + 100 for number, name in enumerate(_BASE_TYPES) if number
}
"""types.proto's DataType: each type, and its reference type at +100."""


@dataclass
class Message:
    """A message in proto syntax: field lines `[repeated] type name = number`,
    `map<key, value> name = number`, or `oneof <group> type name = number`."""

    name: str
    fields: list[str]
    nested: list[Message] = field(default_factory=list)


_MESSAGES = [
    Message("TensorShapeProto", ["repeated Dim dim = 2", "bool unknown_rank = 3"], [
        Message("Dim", ["int64 size = 1", "string name = 2"]),
    ]),
    Message("TensorProto", [
        "DataType dtype = 1", "TensorShapeProto tensor_shape = 2",
        "int32 version_number = 3", "bytes tensor_content = 4",
        "repeated int32 half_val = 13", "repeated float float_val = 5",
        "repeated double double_val = 6", "repeated int32 int_val = 7",
        "repeated bytes string_val = 8", "repeated float scomplex_val = 9",
        "repeated int64 int64_val = 10", "repeated bool bool_val = 11",
        "repeated double dcomplex_val = 12", "repeated uint32 uint32_val = 16",
        "repeated uint64 uint64_val = 17", "bytes float8_val = 18",
    ]),
    Message("AttrValue", [
        "oneof value ListValue list = 1", "oneof value bytes s = 2",
        "oneof value int64 i = 3", "oneof value float f = 4",
        "oneof value bool b = 5", "oneof value DataType type = 6",
        "oneof value TensorShapeProto shape = 7",
        "oneof value TensorProto tensor = 8",
        "oneof value string placeholder = 9",
        "oneof value NameAttrList func = 10",
    ], [
        Message("ListValue", [
            "repeated bytes s = 2", "repeated int64 i = 3", "repeated float f = 4",
            "repeated bool b = 5", "repeated DataType type = 6",
            "repeated TensorShapeProto shape = 7", "repeated TensorProto tensor = 8",
            "repeated NameAttrList func = 9",
        ]),
    ]),
    Message("NameAttrList", ["string name = 1", "map<string, AttrValue> attr = 2"]),
    Message("NodeDef", [
        "string name = 1", "string op = 2", "repeated string input = 3",
        "string device = 4", "map<string, AttrValue> attr = 5",
        "ExperimentalDebugInfo experimental_debug_info = 6",
    ], [
        Message("ExperimentalDebugInfo", [
            "repeated string original_node_names = 1",
            "repeated string original_func_names = 2",
        ]),
    ]),
    Message("VersionDef", [
        "int32 producer = 1", "int32 min_consumer = 2",
        "repeated int32 bad_consumers = 3",
    ]),
    Message("OpDef", [
        "string name = 1", "repeated ArgDef input_arg = 2",
        "repeated ArgDef output_arg = 3", "repeated string control_output = 20",
        "repeated AttrDef attr = 4", "OpDeprecation deprecation = 8",
        "string summary = 5", "string description = 6",
        "bool is_commutative = 18", "bool is_aggregate = 16",
        "bool is_stateful = 17", "bool allows_uninitialized_input = 19",
        "bool is_distributed_communication = 21",
    ], [
        Message("ArgDef", [
            "string name = 1", "string description = 2", "DataType type = 3",
            "string type_attr = 4", "string number_attr = 5",
            "string type_list_attr = 6", "bool is_ref = 16",
        ]),
        Message("AttrDef", [
            "string name = 1", "string type = 2", "AttrValue default_value = 3",
            "string description = 4", "bool has_minimum = 5", "int64 minimum = 6",
            "AttrValue allowed_values = 7",
        ]),
    ]),
    Message("OpDeprecation", ["int32 version = 1", "string explanation = 2"]),
    Message("OpList", ["repeated OpDef op = 1"]),
    Message("FunctionDef", [
        "OpDef signature = 1", "map<string, AttrValue> attr = 5",
        "map<uint32, ArgAttrs> arg_attr = 7",
        "map<uint32, uint32> resource_arg_unique_id = 8",
        "repeated NodeDef node_def = 3", "map<string, string> ret = 4",
        "map<string, string> control_ret = 6",
    ], [
        Message("ArgAttrs", ["map<string, AttrValue> attr = 1"]),
    ]),
    Message("GradientDef", ["string function_name = 1", "string gradient_func = 2"]),
    Message("RegisteredGradient", [
        "string gradient_func = 1", "string registered_op_type = 2",
    ]),
    Message("FunctionDefLibrary", [
        "repeated FunctionDef function = 1", "repeated GradientDef gradient = 2",
        "repeated RegisteredGradient registered_gradients = 3",
    ]),
    Message("GraphDef", [
        "repeated NodeDef node = 1", "VersionDef versions = 4",
        "int32 version = 3", "FunctionDefLibrary library = 2",
    ]),
    # SavedModel (tensorflow/core/protobuf/{saved_model,meta_graph,
    # saved_object_graph,trackable_object_graph}.proto) and the tensor bundle
    # of its checkpoint (tensorflow/core/protobuf/tensor_bundle.proto)
    Message("SavedModel", [
        "int64 saved_model_schema_version = 1",
        "repeated MetaGraphDef meta_graphs = 2",
    ]),
    Message("MetaGraphDef", [
        "GraphDef graph_def = 2", "map<string, SignatureDef> signature_def = 5",
        "SavedObjectGraph object_graph_def = 7",
    ]),
    Message("SignatureDef", [
        "map<string, TensorInfo> inputs = 1", "map<string, TensorInfo> outputs = 2",
        "string method_name = 3",
    ]),
    Message("TensorInfo", [
        "oneof encoding string name = 1", "DataType dtype = 2",
        "TensorShapeProto tensor_shape = 3",
    ]),
    Message("SavedObjectGraph", [
        "repeated SavedObject nodes = 1",
        "map<string, SavedConcreteFunction> concrete_functions = 2",
    ]),
    Message("SavedConcreteFunction", ["repeated int32 bound_inputs = 2"]),
    Message("SavedObject", ["oneof kind SavedVariable variable = 7"]),
    Message("SavedVariable", [
        "DataType dtype = 1", "TensorShapeProto shape = 2", "string name = 6",
    ]),
    Message("TrackableObjectGraph", ["repeated TrackableObject nodes = 1"], [
        Message("TrackableObject", ["repeated SerializedTensor attributes = 2"], [
            Message("SerializedTensor", [
                "string name = 1", "string full_name = 2", "string checkpoint_key = 3",
            ]),
        ]),
    ]),
    Message("BundleHeaderProto", [
        "int32 num_shards = 1", "int32 endianness = 2", "VersionDef version = 3",
    ]),
    Message("TensorSliceProto", ["repeated Extent extent = 1"], [
        Message("Extent", ["int64 start = 1", "oneof has_length int64 length = 2"]),
    ]),
    Message("BundleEntryProto", [
        "DataType dtype = 1", "TensorShapeProto shape = 2", "int32 shard_id = 3",
        "int64 offset = 4", "int64 size = 5", "fixed32 crc32c = 6",
        "repeated TensorSliceProto slices = 7",
    ]),
]  # fmt: skip

_Field = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _Field.TYPE_DOUBLE,
    "float": _Field.TYPE_FLOAT,
    "int64": _Field.TYPE_INT64,
    "uint64": _Field.TYPE_UINT64,
    "int32": _Field.TYPE_INT32,
    "uint32": _Field.TYPE_UINT32,
    "fixed32": _Field.TYPE_FIXED32,
    "bool": _Field.TYPE_BOOL,
    "string": _Field.TYPE_STRING,
    "bytes": _Field.TYPE_BYTES,
}
_FIELD_LINE = re.compile(
    r"(?:(?P<label>repeated|oneof (?P<oneof>\w+)) )?"
    r"(?:map<(?P<key>\w+), (?P<value>\w+)>|(?P<type>\w+)) (?P<name>\w+) = (?P<number>\d+)"
)


def _set_type(proto: _Field, type_name: str) -> None:
    if type_name in _SCALARS:
        proto.type = _SCALARS[type_name]
    else:
        proto.type = (
            _Field.TYPE_ENUM if type_name == "DataType" else _Field.TYPE_MESSAGE
        )
        proto.type_name = (
            type_name  # resolved in the scope of the message, as protoc does
        )


def _map_entry(name: str, key: str, value: str) -> descriptor_pb2.DescriptorProto:
    entry = descriptor_pb2.DescriptorProto(name=name)
    entry.options.map_entry = True
    for number, (field_name, type_name) in enumerate(
        [("key", key), ("value", value)], 1
    ):
        proto = entry.field.add(
            name=field_name, number=number, label=_Field.LABEL_OPTIONAL
        )
        _set_type(proto, type_name)
    return entry


def _message_proto(message: Message) -> descriptor_pb2.DescriptorProto:
    proto = descriptor_pb2.DescriptorProto(name=message.name)
    proto.nested_type.extend(_message_proto(m) for m in message.nested)
    oneofs: list[str] = []
    for line in message.fields:
        match = _FIELD_LINE.fullmatch(line)
        if match is None:
            raise ValueError(f"bad field line in {message.name}: {line}")
        name = match["name"]
        repeated = match["label"] == "repeated" or match["key"] is not None
        field_proto = proto.field.add(
            name=name,
            number=int(match["number"]),
            label=_Field.LABEL_REPEATED if repeated else _Field.LABEL_OPTIONAL,
        )
        if match["key"] is not None:
            entry_name = "".join(part.title() for part in name.split("_")) + "Entry"
            proto.nested_type.append(
                _map_entry(entry_name, match["key"], match["value"])
            )
            _set_type(field_proto, entry_name)
        else:
            _set_type(field_proto, match["type"])
        if match["oneof"]:
            if match["oneof"] not in oneofs:
                oneofs.append(match["oneof"])
                proto.oneof_decl.add(name=match["oneof"])
            field_proto.oneof_index = oneofs.index(match["oneof"])
    return proto


def _file_proto() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(
        name="graph_opt/tensorflow_graph.proto", package=PACKAGE, syntax="proto3"
    )
    enum = proto.enum_type.add(name="DataType")
    for name, number in DATA_TYPES.items():
        enum.value.add(name=name, number=number)
    proto.message_type.extend(_message_proto(m) for m in _MESSAGES)
    return proto


def _message_classes() -> dict[str, type]:
    pool = (
        descriptor_pool.DescriptorPool()
    )  # private: never clashes with TensorFlow's own
    proto = _file_proto()
    pool.Add(proto)  # returns the descriptor only from protobuf 4.22 on
    file_descriptor = pool.FindFileByName(proto.name)
    get_class = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    if get_class is None:
        get_class = message_factory.MessageFactory(pool).GetPrototype
    return {
        name: get_class(descriptor)
        for name, descriptor in file_descriptor.message_types_by_name.items()
    }


_CLASSES = _message_classes()
GraphDef = _CLASSES["GraphDef"]
NodeDef = _CLASSES["NodeDef"]
AttrValue = _CLASSES["AttrValue"]
NameAttrList = _CLASSES["NameAttrList"]
TensorProto = _CLASSES["TensorProto"]
TensorShapeProto = _CLASSES["TensorShapeProto"]
VersionDef = _CLASSES["VersionDef"]
FunctionDefLibrary = _CLASSES["FunctionDefLibrary"]
FunctionDef = _CLASSES["FunctionDef"]
OpDef = _CLASSES["OpDef"]
OpList = _CLASSES["OpList"]
SavedModel = _CLASSES["SavedModel"]
TrackableObjectGraph = _CLASSES["TrackableObjectGraph"]
BundleHeaderProto = _CLASSES["BundleHeaderProto"]
BundleEntryProto = _CLASSES["BundleEntryProto"]
