"""scf control flow -> TensorFlow's functional control flow, for `graph_export`,
as TF2 writes it (the reverse of `control_flow`): `scf.while` becomes a
StatelessWhile (While if a function holds a stateful op) whose `cond` and
`body` are functions of the GraphDef's library made of the before and after
regions, and `scf.if` a StatelessIf (If) with `then_branch` and `else_branch`.
Values a region reads from outside become extra function arguments (extra
loop values, passed on unchanged, for a loop), as TensorFlow captures them.
The i1 a predicate is (`tensor.extract` of a one-element bool tensor) is that
tensor, which TensorFlow's ops take as their predicate.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import IntegerType, TensorType, UnrankedTensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.export.exporter import (
    Function,
    GraphExporter,
    drop_unread_nodes,
    dtype_of,
    export_ops,
    exporter,
    input_node,
    no_form,
    set_shape,
    shape_of,
)
from graph_opt.formats.tensorflow.op_defs import op_defs, output_args, source
from graph_opt.formats.tensorflow.schema import FunctionDef, NodeDef

PARALLEL_ITERATIONS = 10
"""While's default, which `tf.while_loop` writes."""


def _defined_inside(op: Operation, value: SSAValue) -> bool:
    owner = value.owner
    parent = owner.parent_op() if isinstance(owner, Block) else owner
    while parent is not None:
        if parent is op:
            return True
        parent = parent.parent_op()
    return False


def captured(op: Operation) -> list[SSAValue]:
    """The values the op's regions read but do not define, in order of first use."""
    found: dict[SSAValue, None] = {}
    for inner in op.walk():
        if inner is not op:
            for value in inner.operands:
                if not _defined_inside(op, value):
                    found.setdefault(value)
    for value in found:
        if not isinstance(value.type, TensorType | UnrankedTensorType | IntegerType):
            raise no_form(op, f"a region reads a {value.type}, which is no tensor")
    return list(found)


def _region_ops(region: Region) -> tuple[list[Operation], Operation | None]:
    """A single-block region's ops and its terminator (none for no block)."""
    if not region.blocks:
        return [], None
    ops = list(region.block.ops)
    return ops[:-1], ops[-1]


def function(
    e: GraphExporter,
    base: str,
    inputs: Sequence[SSAValue],
    ops: Sequence[Operation],
    results: Sequence[SSAValue],
) -> tuple[str, bool]:
    """A function of the library taking `inputs`, made of `ops`, returning
    `results`: its name, and whether it holds a stateful op."""
    body = GraphExporter(parent=e)
    definition = FunctionDef()
    definition.signature.name = e.function_name(base)
    for position, value in enumerate(inputs):
        arg = body.unique(f"arg_{position}")
        body.tensors[value] = arg
        definition.signature.input_arg.add(name=arg, type=dtype_of(value))
        shapes = definition.arg_attr[position].attr["_output_shapes"].list
        set_shape(shapes.shape.add(), shape_of(value)[1])
    export_ops(body, ops)
    if body.initializers:  # a function's nodes cannot be run by the graph's init
        raise no_form(ops[0].parent_op(), "a variable is declared in a region")
    args = {arg.name for arg in definition.signature.input_arg}
    returned = {}
    for position, value in enumerate(results):
        name = f"output_{position}"
        returned[name] = body.tensor(value)
        if returned[name] in args:  # a ret names a node's output, not an argument
            node = body.add("Identity", [returned[name]], name, T=dtype_of(value))
            returned[name] = node.name
        definition.signature.output_arg.add(name=name, type=dtype_of(value))
    nodes = {node.name: node for node in body.graph.node}
    for node in body.graph.node:
        node.input[:] = [_function_input(nodes, args, text) for text in node.input]
    for name, tensor_name in returned.items():
        definition.ret[name] = _function_input(nodes, args, tensor_name)
    drop_unread_nodes(body.graph.node, set(map(input_node, definition.ret.values())))
    definition.node_def.extend(body.graph.node)
    e.library.function.append(definition)
    stateful = any(
        (op_def := op_defs().get(node.op)) is not None and op_def.is_stateful
        for node in body.graph.node
    )
    return definition.signature.name, stateful


def _function_input(nodes: dict[str, NodeDef], args: set[str], text: str) -> str:
    """A GraphDef input (`node:k`, `^node`, an argument) as a FunctionDef writes
    it: `node:out_arg:index`."""
    if text.startswith("^") or text in args:
        return text
    name, index = source(text)
    sizes = output_args(nodes[name])
    if sizes is None:
        raise FrontendError(
            f"no output arguments known of '{name}' ({nodes[name].op}) in a function"
        )
    for out_arg, size in sizes:
        if index < size:
            return f"{name}:{out_arg}:{index}"
        index -= size
    raise FrontendError(f"'{name}' ({nodes[name].op}) has no output {text}")


@exporter(scf.WhileOp)
def export_while(e: GraphExporter, op: scf.WhileOp):
    before_ops, condition = _region_ops(op.before_region)
    after_ops, yielded = _region_ops(op.after_region)
    before_args = list(op.before_region.block.args)
    if list(condition.operands[1:]) != before_args:
        raise no_form(op, "the condition passes on other values than the loop's")
    if [a.type for a in op.after_region.block.args] != [a.type for a in before_args]:
        raise no_form(op, "the body's values differ in type from the loop's")
    outer = captured(op)
    name = e.node_name(op)
    cond, cond_stateful = function(
        e, f"{name}_cond", [*before_args, *outer], before_ops, [condition.operands[0]]
    )
    after_args = list(op.after_region.block.args)
    body, body_stateful = function(
        e, f"{name}_body", [*after_args, *outer], after_ops,
        [*yielded.operands, *outer],
    )  # fmt: skip
    inputs = [*op.arguments, *outer]
    node = e.add(
        "While" if cond_stateful or body_stateful else "StatelessWhile",
        inputs,
        T=[dtype_of(v) for v in inputs],
        cond=Function(cond),
        body=Function(body),
        output_shapes=[shape_of(v) for v in [*before_args, *outer]],
        parallel_iterations=PARALLEL_ITERATIONS,
        _lower_using_switch_merge=True,
        _num_original_outputs=len(inputs),
        _read_only_resource_inputs=[],
    )
    return e.outputs(node, len(op.results))


@exporter(scf.IfOp)
def export_if(e: GraphExporter, op: scf.IfOp):
    outer = captured(op)
    name = e.node_name(op)
    branches, stateful = [], False
    for region, side in ((op.true_region, "then"), (op.false_region, "else")):
        ops, yielded = _region_ops(region)
        results = list(yielded.operands) if yielded is not None else []
        branch, branch_stateful = function(e, f"{name}_{side}", outer, ops, results)
        branches.append(Function(branch))
        stateful |= branch_stateful
    node = e.add(
        "If" if stateful else "StatelessIf",
        [op.cond, *outer],
        Tcond=dtype_of(op.cond),
        Tin=[dtype_of(v) for v in outer],
        Tout=[dtype_of(v) for v in op.results],
        then_branch=branches[0],
        else_branch=branches[1],
        output_shapes=[shape_of(v) for v in op.results],
        _lower_using_switch_merge=True,
        _read_only_resource_inputs=[],
    )
    return e.outputs(node, len(op.results))


@exporter(tensor.ExtractOp)
def export_predicate(e: GraphExporter, op: tensor.ExtractOp):
    """The i1 of a one-element bool tensor, read as a predicate, is the tensor."""
    if op.indices or op.result.type != IntegerType(1):
        raise no_form(op, "only the i1 of a 0-d bool tensor, as a predicate")
    for use in op.result.uses:
        user = use.operation
        is_predicate = (isinstance(user, scf.IfOp) and use.index == 0) or (
            isinstance(user, scf.ConditionOp) and use.index == 0
        )
        if not is_predicate:
            raise no_form(op, f"the i1 is read by {user.name}, not as a predicate")
    return [e.tensor(op.tensor)]


@exporter(tensor.CastOp)
def export_cast(e: GraphExporter, op: tensor.CastOp):
    """A cast between static and dynamic shapes: TensorFlow's types carry none."""
    node = e.add("Identity", [op.source], T=dtype_of(op.source))
    return e.outputs(node, 1)
