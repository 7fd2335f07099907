"""A memory-aware order of a block's ops: greedy list scheduling by bytes.

Among the ops whose inputs are ready, the one that adds the fewest bytes
(its results' bytes minus the bytes of the inputs it reads last) runs next;
ties keep the original order. Ops that may have side effects keep their
relative order; the terminator stays last; a constant is placed right before
its first reader. Tensors on `host_device` do not count.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import ConstantLike, IsTerminator

from graph_opt.memory.liveness import device_of, is_control_use, same_device
from graph_opt.memory.tensor_bytes import tensor_size
from graph_opt.rewriting.purity import is_pure


def memory_order(
    block: Block, host_device: str, dynamic_dim: int = 1
) -> list[Operation]:
    ops = list(block.ops)
    terminator = ops.pop() if ops and ops[-1].has_trait(IsTerminator) else None
    constants = [op for op in ops if op.has_trait(ConstantLike) and not op.operands]
    is_constant = set(constants)
    scheduled_ops = [op for op in ops if op not in is_constant]
    position = {op: i for i, op in enumerate(scheduled_ops)}

    def bytes_of(value: SSAValue) -> int:
        owner = value.owner
        if isinstance(owner, Operation):
            if owner.has_trait(ConstantLike) or same_device(
                device_of(owner), host_device
            ):
                return 0
        return tensor_size(value.type, dynamic_dim).bytes

    waiting_on: dict[Operation, set[Operation]] = {}
    readers_left: dict[SSAValue, int] = {}
    data_inputs: dict[Operation, set[SSAValue]] = {}
    previous_effect = None
    for op in scheduled_ops:
        inputs, producers = set(), set()
        for value, data in _reads(op):
            owner = value.owner
            producer = (
                block.find_ancestor_op_in_block(owner)
                if isinstance(owner, Operation)
                else None
            )
            if producer in position and producer is not op:
                producers.add(producer)
            if data and producer is not op:
                inputs.add(value)
        if not is_pure(op):
            if previous_effect is not None:
                producers.add(previous_effect)
            previous_effect = op
        waiting_on[op] = producers
        data_inputs[op] = inputs
        for value in inputs:
            readers_left[value] = readers_left.get(value, 0) + 1
    if terminator is not None:
        for value, _ in _reads(terminator):
            readers_left[value] = readers_left.get(value, 0) + 1

    users: dict[Operation, list[Operation]] = {op: [] for op in scheduled_ops}
    for op, producers in waiting_on.items():
        for producer in producers:
            users[producer].append(op)
    unmet = {op: len(p) for op, p in waiting_on.items()}
    ready = {op for op, n in unmet.items() if n == 0}
    order: list[Operation] = []
    while ready:
        best = min(
            ready,
            key=lambda op: (
                _added_bytes(op, data_inputs, readers_left, bytes_of),
                position[op],
            ),
        )
        ready.remove(best)
        order.append(best)
        for value in data_inputs[best]:
            readers_left[value] -= 1
        for user in users[best]:
            unmet[user] -= 1
            if unmet[user] == 0:
                ready.add(user)
    order = _with_constants(order, constants)
    return order + ([terminator] if terminator is not None else [])


def reorder(block: Block, order: list[Operation]) -> int:
    """Put the block's ops in `order`; how many ops changed place."""
    moved = sum(a is not b for a, b in zip(block.ops, order))
    for op in order:
        block.detach_op(op)
        block.add_op(op)
    return moved


def _added_bytes(op, data_inputs, readers_left, bytes_of) -> int:
    made = sum(bytes_of(r) for r in op.results)
    freed = sum(bytes_of(v) for v in data_inputs[op] if readers_left[v] == 1)
    return made - freed


def _reads(op: Operation) -> Iterator[tuple[SSAValue, bool]]:
    """The values `op` and the ops nested in it read, each with whether it is
    read as data (not a control operand)."""
    pending = [op]
    while pending:
        current = pending.pop()
        for index, value in enumerate(current.operands):
            yield value, not is_control_use(current, index)
        for region in current.regions:
            for block in region.blocks:
                pending.extend(block.ops)


def _with_constants(
    order: list[Operation], constants: list[Operation]
) -> list[Operation]:
    """Each constant right before the first op that reads it (unread ones first)."""
    placed: set[Operation] = set()
    is_constant = set(constants)
    first_reader: dict[Operation, Operation] = {}
    for op in order:
        for value, _ in _reads(op):
            owner = value.owner
            if owner in is_constant and owner not in first_reader:
                first_reader[owner] = op
    by_reader: dict[Operation, list[Operation]] = {}
    unread = []
    for constant in constants:
        reader = first_reader.get(constant)
        if reader is None:
            unread.append(constant)
        else:
            by_reader.setdefault(reader, []).append(constant)
    result = list(unread)
    for op in order:
        for constant in by_reader.get(op, []):
            if constant not in placed:
                placed.add(constant)
                result.append(constant)
        result.append(op)
    return result
