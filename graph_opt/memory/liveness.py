"""Tensor liveness for a schedule: the ops of a block in order are its steps.

A tensor (a block argument or an op result) is live from the step that makes
it (arguments: step 0) to the last step that reads it; a result nothing reads
is live at its own step. A read inside a nested region counts at the step of
the op holding the region, and the values a region defines are taken as all
live at that step (conservative: the region's own schedule is not modelled).
Constants are persistent memory, counted apart, not scheduled. A tensor's
device is its producer's `tf.device` (unplaced ops: the default device, "";
arguments: their readers' device where all agree), or with a cluster the
listed device it names (an unplaced op's: the cluster's default device).
swap_in's `after` operand orders, it reads no data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import ConstantLike

from graph_opt.dialects.effects import DEVICE_ATTR
from graph_opt.dialects.nn.device_copy import DeviceCopyOp, SwapInOp
from graph_opt.memory.tensor_bytes import tensor_size

if TYPE_CHECKING:
    from graph_opt.memory.cluster import Cluster

DEFAULT_DEVICE = ""


@dataclass(eq=False)
class Tensor:
    value: SSAValue
    device: str
    bytes: int
    start: int
    end: int
    uses: list[int]
    """Steps reading the tensor, in order (one entry per step)."""
    in_region: bool = False

    def live_at(self, step: int) -> bool:
        return self.start <= step <= self.end


@dataclass
class Liveness:
    """The tensors of one block for the order of its ops."""

    block: Block
    steps: list[Operation]
    tensors: list[Tensor]
    constant_bytes: dict[str, int] = field(default_factory=dict)
    dynamic_tensors: int = 0
    """Tensors with an unknown dim, sized with the assumed dim."""
    unsized_tensors: int = 0
    """Tensors of types without a byte size (strings, sequences), counted as 0."""

    def devices(self) -> list[str]:
        found = {t.device for t in self.tensors} | set(self.constant_bytes)
        return sorted(found)

    def step_bytes(self, device: str) -> list[int]:
        """Bytes of `device`'s tensors live at each step."""
        delta = [0] * (len(self.steps) + 1)
        for t in self.tensors:
            if t.device == device:
                delta[t.start] += t.bytes
                delta[t.end + 1] -= t.bytes
        profile, running = [], 0
        for d in delta[:-1]:
            running += d
            profile.append(running)
        return profile

    def live_at(self, step: int, device: str) -> list[Tensor]:
        return [t for t in self.tensors if t.device == device and t.live_at(step)]


_DEVICE_NAME = re.compile(r"(?:^|/)(?:device:)?([a-z]+):(\d+)$", re.IGNORECASE)


def same_device(a: str, b: str) -> bool:
    """Whether two TensorFlow device names name one device (`/device:CPU:0`,
    `/job:localhost/replica:0/task:0/device:CPU:0` and `/cpu:0` do)."""
    found_a, found_b = _DEVICE_NAME.search(a), _DEVICE_NAME.search(b)
    if found_a is None or found_b is None:
        return a == b
    return (found_a[1].lower(), found_a[2]) == (found_b[1].lower(), found_b[2])


def device_of(op: Operation) -> str:
    device = op.attributes.get(DEVICE_ATTR)
    return device.data if isinstance(device, StringAttr) else DEFAULT_DEVICE


def _readers_device(argument: SSAValue) -> str:
    """Where an argument is fed: the device of the ops reading it, if they agree
    (a copy reads from another device than its own)."""
    devices = {
        device_of(use.operation)
        for use in argument.uses
        if not isinstance(use.operation, DeviceCopyOp)
    }
    return devices.pop() if len(devices) == 1 else DEFAULT_DEVICE


def is_control_use(operation: Operation, index: int) -> bool:
    """The operand orders `operation` and carries no data (swap_in's `after`)."""
    return isinstance(operation, SwapInOp) and index == 1


def block_liveness(
    block: Block, dynamic_dim: int = 1, cluster: Cluster | None = None
) -> Liveness:
    steps = list(block.ops)
    step_of = {op: i for i, op in enumerate(steps)}
    liveness = Liveness(block, steps, [])
    placed = cluster.device_name if cluster is not None else lambda d: d

    def add(value: SSAValue, device: str, start: int, uses: list[int], nested: bool):
        device = placed(device)
        size = tensor_size(value.type, dynamic_dim)
        liveness.dynamic_tensors += size.dynamic
        liveness.unsized_tensors += not size.sized
        end = max(uses, default=start)
        liveness.tensors.append(
            Tensor(value, device, size.bytes, start, end, uses, nested)
        )

    def add_constant(op: Operation, device: str):
        device = placed(device)
        for result in op.results:
            size = tensor_size(result.type, dynamic_dim)
            liveness.constant_bytes[device] = (
                liveness.constant_bytes.get(device, 0) + size.bytes
            )

    def use_steps(value: SSAValue) -> list[int]:
        found = set()
        for use in value.uses:
            if is_control_use(use.operation, use.index):
                continue
            ancestor = block.find_ancestor_op_in_block(use.operation)
            if ancestor is not None:
                found.add(step_of[ancestor])
        return sorted(found)

    for argument in block.args:
        add(argument, _readers_device(argument), 0, use_steps(argument), False)
    for step, op in enumerate(steps):
        device = device_of(op)
        if op.has_trait(ConstantLike):
            add_constant(op, device)
            continue
        for result in op.results:
            add(result, device, step, use_steps(result), False)
        for inner_block in _nested_blocks(op):
            for value in inner_block.args:
                add(value, device, step, [], True)
            for inner in inner_block.ops:
                if inner.has_trait(ConstantLike):
                    add_constant(inner, device)
                    continue
                for value in inner.results:
                    add(value, device, step, [], True)
    return liveness


def _nested_blocks(op: Operation) -> list[Block]:
    """Every block inside `op`'s regions, at any depth (no recursion)."""
    found: list[Block] = []
    pending = [op]
    while pending:
        for region in pending.pop().regions:
            for block in region.blocks:
                found.append(block)
                pending.extend(inner for inner in block.ops if inner.regions)
    return found
