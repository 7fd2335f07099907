"""The `auto-parallel` pass: Grappler's AutoParallel on a training step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.effects import (
    CONTROL_INPUTS_ATTR,
    control_inputs_attr,
)
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import DivOp
from graph_opt.dialects.nn.names import (
    argument_names,
    name_attrs,
    name_location,
    result_names,
    set_name_hint,
)
from graph_opt.dialects.tf_state import (
    ApplyAdamOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    DequeueOp,
    FifoQueueOp,
    GroupOp,
    VariableOp,
)
from graph_opt.entry import entry_function
from graph_opt.passes.auto_parallel.batch_split import (
    BATCH_SPLIT_STATISTICS,
    PREFIX,
    name_replica,
    node_names,
    replica_name,
    split_batch,
)
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, count, record

GRADIENT_OPERAND = {ApplyGradientDescentOp: 2, ApplyMomentumOp: 3, ApplyAdamOp: 9}
"""The operand of each optimizer update that is the gradient."""


def node_name(op: Operation) -> str | None:
    names = node_names(op)
    return names[0].split(":")[0] if names else None


def control_names(op: Operation) -> list[str]:
    names = op.attributes.get(CONTROL_INPUTS_ATTR)
    return [a.data for a in names.data] if isinstance(names, ArrayAttr) else []  # type: ignore[attr-defined]


def fanin(roots: list[Operation], ops: list[Operation]) -> set[Operation]:
    """The ops the roots depend on (themselves included), through operands and
    the control inputs named in `tf.control_inputs`."""
    by_name = {node_name(op): op for op in ops}
    found, stack = set(roots), list(roots)
    while stack:
        op = stack.pop()
        sources = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        sources += [by_name[n] for n in control_names(op) if n in by_name]
        for source in sources:
            if source not in found:
                found.add(source)
                stack.append(source)
    return found


def fetched(function: func.FuncOp, ops: list[Operation]) -> list[Operation]:
    """What a run fetches: the producers of the results, and the groups (a
    training step's NoOp) that no other op waits on."""
    named = {n for op in ops for n in control_names(op)}
    producers = [
        v.owner
        for v in function.body.block.last_op.operands  # type: ignore[union-attr]
        if isinstance(v.owner, Operation)
    ]
    groups = [
        op for op in ops if isinstance(op, GroupOp) and node_name(op) not in named
    ]
    return list(dict.fromkeys(producers + groups))


@dataclass(frozen=True)
class AutoParallelPass(ModulePass):
    """Replicate the per-batch part of a training step, as Grappler's AutoParallel;
    split the batch of an inference graph.

    The ops the fetched results and training-step groups depend on are copied
    `replicas` times, named AutoParallel-Replica-i/<name>; variables, queues and
    what the first dequeue reads stay single and shared (so each replica
    dequeues its own batch); the gradient of each optimizer update (Apply*) is
    divided by `replicas` first (AutoParallel-Div-<update>, by a constant
    AutoParallel-Div-Const); a group AutoParallel-Control-Fetch waits on every
    replica's fetched ops, and each fetch becomes a group of its name waiting on
    it (the function returns only results of shared ops). Placeholders the
    replicas read are replicated too: one argument per replica.

    Replicas are synchronous: all compute their gradients (from the same
    variable values) before the first update of any replica runs, then each
    applies its share in replica order.

    On an inference graph (no variables, no Apply update) the batch is split
    instead: every argument's dim 0 (one static size, divisible by `replicas`)
    is cut into equal slices (nn.split), the ops are copied per slice as
    AutoParallel-Replica-i/<name> with constants shared, and each result is
    concatenated back along dim 0 (nn.concat); the signature is unchanged. Only
    ops known to keep samples apart along dim 0 are split (elementwise ops with
    non-batch-sized constants, convs, pools, batch norm, matmul/gemm with a
    constant rhs, reshapes and flattens keeping dim 0, softmax/reductions/
    transposes not across axis 0); otherwise nothing changes and a warning
    names the first op that mixes samples.
    """

    name = "auto-parallel"

    statistics: ClassVar[Statistics] = {
        **BATCH_SPLIT_STATISTICS,
        "shared-ops": "Ops left shared by the replicas (on parameters only)",
        "divided-updates": "Parameter updates divided by the number of replicas",
    }

    replicas: int = field(
        default=2, metadata={"help": "how many copies of the training step to make"}
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.replicas < 1:
            raise PassFailedException(f"replicas must be >= 1, got {self.replicas}")
        function = entry_function(op)
        ops = list(function.body.block.ops)[:-1]
        updates = [o for o in ops if type(o) in GRADIENT_OPERAND]
        if not updates and not any(isinstance(o, VariableOp) for o in ops):
            split_batch(function, self.replicas)
            return
        if not updates:
            warn(
                "auto-parallel: found no variable with an optimizer update (Apply*) to parallelize"
            )
            return
        roots = fetched(function, ops)
        train = fanin(roots, ops)
        dequeues = [o for o in ops if isinstance(o, DequeueOp) and o in train]
        inputs = fanin(dequeues[:1], ops) - set(dequeues[:1])
        shared = {
            o for o in ops
            if o not in train or o in inputs or isinstance(o, (VariableOp, FifoQueueOp))
        }  # fmt: skip
        _Replicator(function, ops, shared, roots, self.replicas).rewrite(updates)
        record("replicas", self.replicas)
        count("replicated-ops", len(ops) - len(shared))
        count("shared-ops", len(shared))
        count("divided-updates", len(updates))


def _clone(op: Operation, values: dict) -> Operation:
    """A copy of the op reading `values`, with its location (its names)."""
    copy = op.clone(value_mapper=values)
    copy.location = op.location
    return copy


class _Replicator:
    """Rebuilds the function's block: shared ops once, then each replica."""

    def __init__(self, function, ops, shared, roots, replicas):
        self.function, self.ops, self.shared = function, ops, shared
        self.roots, self.replicas = roots, replicas
        self.block = Block()
        self.args: list[tuple[SSAValue, str]] = []
        self.names = {node_name(o) for o in ops if o not in shared}

    def rewrite(self, updates: list[Operation]) -> None:
        old = self.function.body.block
        arg_names = argument_names(self.function)
        shared_args = {
            a for a in old.args if all(u.operation in self.shared for u in a.uses)
        }
        base: dict[SSAValue, SSAValue] = {}
        for arg, name in zip(old.args, arg_names):
            if arg in shared_args:
                base[arg] = self.argument(arg, name)
        late = self.after_replicas(shared_args)
        for op in self.ops:
            if op in self.shared and op not in late:
                self.block.add_op(_clone(op, base))
                base.update(zip(op.results, self.block.last_op.results))  # type: ignore[union-attr]
        replicas = [dict(base) for _ in range(self.replicas)]
        for replica, values in enumerate(replicas):
            for arg, name in zip(old.args, arg_names):
                if arg not in shared_args:
                    values[arg] = self.argument(arg, replica_name(name, replica))
        replicated = [o for o in self.ops if o not in self.shared]
        first_update = next(i for i, o in enumerate(replicated) if o in updates)
        # every replica computes its gradients before any replica updates
        for phase in (replicated[:first_update], replicated[first_update:]):
            for replica, values in enumerate(replicas):
                self.add_replica(phase, replica, values, set(updates))
        for op in self.ops:  # as Grappler, shared ops read replica 0's values
            if op in late:
                self.block.add_op(_clone(op, replicas[0]))
                replicas[0].update(zip(op.results, self.block.last_op.results))  # type: ignore[union-attr]
                base.update(zip(op.results, self.block.last_op.results))  # type: ignore[union-attr]
        self.add_control_fetch()
        returned = [
            (base[v], label)
            for v, label in zip(old.last_op.operands, result_names(self.function))  # type: ignore[union-attr]
            if v in base
        ]
        self.block.add_op(func.ReturnOp(*[v for v, _ in returned]))
        self.function.body.detach_block(old)
        self.function.body.add_block(self.block)
        self.function.function_type = FunctionType.from_lists(
            [a.type for a, _ in self.args], [v.type for v, _ in returned]
        )
        self.function.arg_attrs = name_attrs([n for _, n in self.args])
        self.function.res_attrs = name_attrs([n for _, n in returned])

    def after_replicas(self, shared_args: set[SSAValue]) -> set[Operation]:
        """The shared ops that read replicated values (ops outside the training
        step, such as unused ones): placed after the replicas."""
        late: set[Operation] = set()
        for op in self.ops:
            if op in self.shared and any(
                v not in shared_args
                if not isinstance(v.owner, Operation)
                else v.owner not in self.shared or v.owner in late
                for v in op.operands
            ):
                late.add(op)
        return late

    def argument(self, arg: SSAValue, name: str) -> SSAValue:
        new = self.block.insert_arg(arg.type, len(self.block.args))
        set_name_hint(new, name)
        self.args.append((new, name))
        return new

    def add_replica(self, ops, replica: int, values: dict, updates: set) -> None:
        divisor: SSAValue | None = None
        for op in ops:
            copy = _clone(op, values)
            self.rename(copy, replica)
            if op in updates:
                if divisor is None:
                    divisor = self.div_const(op, replica)
                self.divide_gradient(copy, op, divisor, replica)
            self.block.add_op(copy)
            values.update(zip(op.results, copy.results))

    def rename(self, op: Operation, replica: int) -> None:
        name_replica(op, node_names(op), replica)
        controls = control_names(op)
        if controls:
            op.attributes[CONTROL_INPUTS_ATTR] = control_inputs_attr(
                [replica_name(c, replica) if c in self.names else c for c in controls]
            )

    def div_const(self, update: Operation, replica: int) -> SSAValue:
        gradient = update.operands[GRADIENT_OPERAND[type(update)]]
        dtype = numpy_dtype(gradient.type.element_type)  # type: ignore[attr-defined]
        const = ConstantOp.from_array(np.array(self.replicas, dtype))
        label = replica_name(f"{PREFIX}-Div-Const", replica)
        const.location = name_location([label])
        set_name_hint(const.results[0], label)
        self.block.add_op(const)
        return const.results[0]

    def divide_gradient(self, copy, original, divisor, replica) -> None:
        index = GRADIENT_OPERAND[type(original)]
        div = DivOp.create_inferred([copy.operands[index], divisor])
        label = replica_name(f"{PREFIX}-Div-{node_name(original)}", replica)
        div.location = name_location([label])
        set_name_hint(div.results[0], label)
        self.block.add_op(div)
        copy.operands[index] = div.results[0]

    def add_control_fetch(self) -> None:
        fetches = [node_name(op) for op in self.roots if node_name(op)]
        control = GroupOp.create()
        control.location = name_location([f"{PREFIX}-Control-Fetch"])
        control.attributes[CONTROL_INPUTS_ATTR] = control_inputs_attr(
            [replica_name(f, r) for f in fetches for r in range(self.replicas)]
        )
        self.block.add_op(control)
        for fetch in fetches:
            group = GroupOp.create()
            group.location = name_location([fetch])
            group.attributes[CONTROL_INPUTS_ATTR] = control_inputs_attr(
                [f"{PREFIX}-Control-Fetch"]
            )
            self.block.add_op(group)
