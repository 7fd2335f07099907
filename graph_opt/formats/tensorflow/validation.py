"""What TensorFlow's importer checks of a GraphDef, against its op registry
(`op_defs`). A node of a registered op must
carry only the op's attributes (besides `_`-prefixed ones), every attribute
without a default, values of the declared kind within the allowed values and
minimums, as many data inputs as its arguments ask, and inputs of the types
its type attributes name (ValidateNodeDef and the importer's type check).
Unregistered ops are left to the importer, which lists them all.
"""

from __future__ import annotations

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.op_defs import (
    REF,
    TYPE_NAMES,
    arg_types,
    op_defs,
    output_types,
    source,
)
from graph_opt.formats.tensorflow.schema import GraphDef, NodeDef

_VALUE_FIELDS = {
    "string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
    "shape": "shape", "tensor": "tensor", "func": "func",
}  # fmt: skip
_KIND_NAMES = {field: kind for kind, field in _VALUE_FIELDS.items()}


def validate_graph_def(graph: GraphDef) -> None:
    """Raise a one-line FrontendError naming the first node TensorFlow would
    refuse, in the graph or in a function of its library."""
    functions = {f.signature.name for f in graph.library.function}
    _validate_nodes(graph, functions)
    _validate_functions(graph, functions)


def _validate_nodes(graph: GraphDef, functions: set[str]) -> None:
    defs = op_defs()
    for node in graph.node:
        if node.op in defs:
            _refuse(node, _attr_problem(node, defs[node.op], functions))
    types = output_types(graph)
    for node in graph.node:
        if node.op in defs:
            _refuse(node, _input_problem(node, defs[node.op], types))


def _validate_functions(graph: GraphDef, functions: set[str]) -> None:
    """The nodes of each library function (its arguments as Placeholders of
    their types), and each return's type against the function's signature."""
    from graph_opt.formats.tensorflow.functions import function_body

    for function in graph.library.function:
        body = function_body(function)
        nodes = GraphDef()
        nodes.node.extend(body.nodes)
        for node, arg in zip(nodes.node, function.signature.input_arg):
            node.op = "Placeholder"
            node.attr["dtype"].type = arg.type
        try:
            _validate_nodes(nodes, functions)
            _check_returns(nodes, body.outputs, function.signature.output_arg)
        except FrontendError as e:
            raise FrontendError(f"function '{body.name}': {e}") from None


def _check_returns(nodes: GraphDef, outputs: list[str], output_args) -> None:
    types = output_types(nodes)
    for text, arg in zip(outputs, output_args):
        name, index = source(text)
        found = types.get(name)
        if found is not None and index < len(found) and found[index] != arg.type:
            raise FrontendError(
                f"output '{arg.name}' is {TYPE_NAMES.get(found[index])} from '{text}', "
                f"declared {TYPE_NAMES.get(arg.type)}"
            )


def _refuse(node: NodeDef, problem: str | None) -> None:
    if problem:
        raise FrontendError(f"node '{node.name}' ({node.op}): {problem}")


def _attr_problem(node: NodeDef, op_def, functions: set[str]) -> str | None:
    declared = {attr.name: attr for attr in op_def.attr}
    for name in node.attr:
        if name not in declared and not name.startswith("_"):
            return f"attr '{name}' is not an attribute of {node.op}"
    for name, attr_def in declared.items():
        if name not in node.attr:
            if not attr_def.HasField("default_value"):
                return f"missing attr '{name}' ({attr_def.type})"
            continue
        problem = _value_problem(node.attr[name], attr_def) or _function_problem(
            node.attr[name], attr_def, functions
        )
        if problem:
            return f"attr '{name}': {problem}"
    return None


def _value_problem(value, attr_def) -> str | None:
    kind = value.WhichOneof("value")
    if kind is None or kind == "placeholder" or attr_def.type == "any":
        return None
    is_list = attr_def.type.startswith("list(")
    expected = "list" if is_list else _VALUE_FIELDS.get(attr_def.type)
    if expected is not None and kind != expected:
        return (
            f"a {_KIND_NAMES.get(kind, kind)} value where {attr_def.type} is expected"
        )
    element = attr_def.type[5:-1] if is_list else attr_def.type
    items = (
        list(getattr(value.list, _VALUE_FIELDS.get(element, "s"))) if is_list else None
    )
    if attr_def.has_minimum:
        size = len(items) if is_list else value.i
        if size < attr_def.minimum:
            what = "length" if is_list else "value"
            return f"{what} {size} is below the minimum {attr_def.minimum}"
    allowed = (
        attr_def.allowed_values.list if attr_def.HasField("allowed_values") else None
    )
    if allowed is None or element not in ("type", "string"):
        return None
    permitted = list(allowed.type if element == "type" else allowed.s)
    for item in items if is_list else [getattr(value, expected)]:
        if item not in permitted:
            shown = TYPE_NAMES.get(item) if element == "type" else item.decode()
            return f"'{shown}' is not an allowed value"
    return None


def _function_problem(value, attr_def, functions: set[str]) -> str | None:
    """A function attribute must name a function of the library (or an op)."""
    if attr_def.type == "func":
        names = [value.func.name]
    elif attr_def.type == "list(func)":
        names = [f.name for f in value.list.func]
    else:
        return None
    for name in names:
        if name not in functions and name not in op_defs():
            return f"no function '{name}' in the graph's library"
    return None


def _input_problem(node: NodeDef, op_def, output_types) -> str | None:
    expected = arg_types(node, op_def.input_arg)
    data = [text for text in node.input if not text.startswith("^")]
    if expected is None or list(node.input[: len(data)]) != data:
        return None  # a data input after a control one: the importer says so
    if len(data) != len(expected):
        names = ", ".join(TYPE_NAMES.get(t, str(t)) for t in expected)
        return f"expects {len(expected)} inputs ({names}), has {len(data)}"
    for position, (text, want) in enumerate(zip(data, expected)):
        name, index = source(text)
        types = output_types.get(name)
        if types is None or index >= len(types):
            continue
        got = types[index]
        if got % REF != want % REF or (want >= REF and got < REF):
            return (
                f"input {position} is {TYPE_NAMES.get(got, got)} from '{text}', "
                f"expected {TYPE_NAMES.get(want, want)}"
            )
    return None
