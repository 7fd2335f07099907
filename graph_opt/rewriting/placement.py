"""Keeping TensorFlow's placement and ordering through rewrites, as Grappler
does: the ops a rewrite builds take the `tf.device` of the op it rewrote (or of
the ops it removed) and the `tf.control_inputs` of the ops it removed or left
unread; passes that add ops outside a rewriter call `carry_placement`.

A `PlacementKeeper` listens to a walker's rewriter; whoever applies a pattern
calls `end(op)` after a rewrite rooted at `op` (OpTypeDispatch does, and
`keeping_placement` wraps any other pattern).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

from graph_opt.dialects.effects import (
    CONTROL_INPUTS_ATTR,
    DEVICE_ATTR,
    control_inputs_attr,
)
from graph_opt.remarks import warn

TERMINATORS = (func.ReturnOp, scf.YieldOp, scf.ConditionOp)
"""Ops that hand values out of a region: no place for a control input."""


def control_inputs(op: Operation) -> list[str]:
    """The names of the nodes `op` waits on (its `tf.control_inputs`)."""
    names = op.attributes.get(CONTROL_INPUTS_ATTR)
    if not isinstance(names, ArrayAttr):
        return []
    return [n.data for n in names.data if isinstance(n, StringAttr)]


def add_control_inputs(op: Operation, names: Sequence[str]) -> None:
    """Make `op` wait on `names` too."""
    kept = control_inputs(op)
    added = [n for n in names if n not in kept]
    if added:
        op.attributes[CONTROL_INPUTS_ATTR] = control_inputs_attr(kept + added)


def place_like(op: Operation, anchor: Operation | None) -> None:
    """Put `op`, which a pass adds for `anchor`, on the anchor's device."""
    if anchor is not None and DEVICE_ATTR in anchor.attributes:
        op.attributes.setdefault(DEVICE_ATTR, anchor.attributes[DEVICE_ATTR])


def carry_placement(new: Operation, old: Sequence[Operation]) -> None:
    """`new`, which stands for the `old` ops (outside a rewriter), takes the
    first device among them and waits on all they waited on."""
    for op in old:
        place_like(new, op)
        add_control_inputs(new, control_inputs(op))


def waits_not_implied(op: Operation, names: Sequence[str]) -> list[str]:
    """`names` that `op` does not already wait on through an operand's producer."""
    implied = {
        n
        for value in op.operands
        if isinstance(value.owner, Operation)
        for n in control_inputs(value.owner)
    }
    return [n for n in names if n not in implied]


def can_hand_over_control_inputs(op: Operation) -> bool:
    """Whether replacing `op` by an existing value keeps what it waits on: it
    waits on nothing, or every user of its results can wait instead (not a
    terminator: a graph output or a region's result keeps its op, as Grappler
    keeps a fetched node)."""
    if CONTROL_INPUTS_ATTR not in op.attributes:
        return True
    return not any(
        isinstance(use.operation, TERMINATORS) for r in op.results for use in r.uses
    )


def has_placement(ops: Iterable[Operation]) -> bool:
    """Whether any of `ops` has a device or control inputs: only then can a
    rewrite among them have any to carry (rewrites copy them, never make them)."""
    return any(
        DEVICE_ATTR in op.attributes or CONTROL_INPUTS_ATTR in op.attributes
        for op in ops
    )


@dataclass(eq=False)
class PlacementKeeper:
    """What one rewrite inserted, modified and removed (recorded through
    `listener()`), and, at `end`, the device and control inputs carried over:
    the inserted ops take the device of the rewritten op (else of a removed
    one); the control inputs of the removed ops go to the inserted ops, or,
    if the rewrite inserted none (an op forwarded, or folded into its
    producer), to the ops it modified (the users of the forwarded value, the
    producer). Neither can create a cycle: those ops came after the effects."""

    inserted: list[Operation] = field(default_factory=list)
    modified: list[Operation] = field(default_factory=list)
    removed: list[Operation] = field(default_factory=list)
    feeding: list[Operation] = field(default_factory=list)
    """Producers of removed ops' operands: those the rewrite leaves unread
    (with what only they read) are replaced too (a conv and its bias
    constant, now an int8 conv's)."""
    active: bool = True
    """False while rewriting ops none of which has placement (see
    `has_placement`): there is nothing to carry, and nothing is recorded."""

    def listener(self) -> PatternRewriterListener:
        return PatternRewriterListener(
            operation_insertion_handler=[self.inserted.append],
            operation_modification_handler=[self.modified.append],
            operation_removal_handler=[self._removed],
        )

    def _removed(self, op: Operation) -> None:
        if not self.active:
            return
        if DEVICE_ATTR in op.attributes or CONTROL_INPUTS_ATTR in op.attributes:
            self.removed.append(op)
        for value in op.operands:
            if isinstance(value.owner, Operation):
                self.feeding.append(value.owner)

    def clear(self) -> None:
        if self.inserted or self.modified or self.removed or self.feeding:
            self.inserted.clear()
            self.modified.clear()
            self.removed.clear()
            self.feeding.clear()

    def end(self, root: Operation) -> None:
        """The rewrite rooted at `root` is done: carry over, then forget it."""
        if self.active and (
            self.removed or self.feeding or DEVICE_ATTR in root.attributes
        ):
            self._carry(root)
        self.clear()

    def _left_unread(self) -> list[Operation]:
        """The side-effect-free ops the rewrite left without readers (through
        ops it left without readers): dead code that a later sweep erases."""
        unread: dict[Operation, None] = {}
        stack = list(self.feeding)
        while stack:
            op = stack.pop()
            if (
                op in unread
                or op.parent is None
                or any(
                    use.operation not in unread for r in op.results for use in r.uses
                )
                or not would_be_trivially_dead(op)
            ):
                continue
            unread[op] = None
            stack.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
        return list(unread)

    def _carry(self, root: Operation) -> None:
        built = [op for op in self.inserted if op.parent is not None]
        sources = ([root] if root.parent is not None else []) + self.removed
        device = next(
            (
                op.attributes[DEVICE_ATTR]
                for op in sources
                if DEVICE_ATTR in op.attributes
            ),
            None,
        )
        if device is not None:
            for op in built:
                if DEVICE_ATTR not in op.attributes:
                    op.attributes[DEVICE_ATTR] = device
        waits = list(
            dict.fromkeys(
                n
                for op in self.removed + self._left_unread()
                for n in control_inputs(op)
            )
        )
        if not waits:
            return
        targets = built or [
            op
            for op in dict.fromkeys(self.modified)
            if op.parent is not None and not isinstance(op, TERMINATORS)
        ]
        if not targets and any(isinstance(op, TERMINATORS) for op in self.modified):
            warn(
                f"control inputs {waits} are lost: the rewrite of {root.name} "
                "replaced what waited on them by a value that is returned"
            )
        added = [(op, waits_not_implied(op, waits)) for op in targets]
        for op, names in added:
            add_control_inputs(op, names)


@dataclass(eq=False, repr=False)
class KeepingPlacement(RewritePattern):
    """`pattern`, with each of its rewrites carrying device and control inputs."""

    pattern: RewritePattern
    keeper: PlacementKeeper

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        self.keeper.clear()
        self.pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            self.keeper.end(op)


def keeping_placement(pattern: RewritePattern, **options) -> PatternRewriteWalker:
    """A PatternRewriteWalker (with `options`) over `pattern` whose rewrites
    keep device and control inputs."""
    keeper = PlacementKeeper()
    return PatternRewriteWalker(
        KeepingPlacement(pattern, keeper), listener=keeper.listener(), **options
    )
