"""Graph patterns with several roots (Relax's DPL): nodes joined by use edges.

    with PatternContext() as ctx:
        q = is_op("matmul")(is_var("x"), wildcard())
        k = is_op("matmul")(is_var("x"), wildcard())
        is_var("x").fork_to(q, k)          # x ^ q and x ^ k
        match = ctx.match_dfb(block)       # {pattern: value} or None

`a.used_by(b)` / `a ^ b`: b's op reads a's value; `a.only_used_by(b)` /
`a >> b`: and nothing else does (an `index` names the operand). `>>` and `^`
chain into a PatternSeq (`seq[0]`, `seq.dup()`: a copy of the chain with
fresh patterns). Each node matches one value on its own; distinct nodes match
distinct values. `rewrite_bindings(ctx, rewriter, block)` replaces the values
of each match by what `rewriter(match)` builds with `nn.<op>(...)`.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from graph_opt.gc_pause import collector_paused
from graph_opt.patterns.builder import building
from graph_opt.patterns.matcher import Match, Matcher
from graph_opt.patterns.pattern import DFPattern


@dataclass(frozen=True)
class UseEdge:
    """`producer`'s value is read by `consumer`'s op (at operand `index` if not -1),
    and only by it when `only`."""

    producer: DFPattern
    consumer: DFPattern
    only: bool
    index: int


class PatternContext:
    """The node patterns and use edges declared while it is the current context.

    With `incremental`, it starts from the constraints of the enclosing context.
    """

    _stack: ClassVar[list[PatternContext]] = []

    def __init__(self, incremental: bool = False):
        self.edges: list[UseEdge] = []
        self.nodes: dict[DFPattern, None] = {}
        if incremental:
            parent = PatternContext.current()
            self.edges, self.nodes = list(parent.edges), dict(parent.nodes)

    def __enter__(self) -> PatternContext:
        PatternContext._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        PatternContext._stack.pop()

    @classmethod
    def current(cls) -> PatternContext:
        if not cls._stack:
            raise RuntimeError(
                "use edges (^, >>, used_by, fork_to) need a `with PatternContext():`"
            )
        return cls._stack[-1]

    def add_edge(self, edge: UseEdge) -> None:
        self.nodes.update(dict.fromkeys((edge.producer, edge.consumer)))
        self.edges.append(edge)

    def match_dfb(
        self,
        block: Block,
        start_hint: SSAValue | None = None,
        must_include_hint: bool = False,
    ) -> GraphMatch | None:
        """A match of every node in `block` (Relax's match_dfb), or None.

        With `start_hint`, matches where a node matches that value come first;
        with `must_include_hint`, only those count.
        """
        search = _Search(self, block)
        if start_hint is not None:
            found = search.first(start=start_hint)
            if found is not None or must_include_hint:
                return found
        return search.first()

    def match_all(self, block: Block) -> list[GraphMatch]:
        """Matches in `block` that share no value, in the order found."""
        search, found = _Search(self, block), []
        with (
            collector_paused()
        ):  # (the search's small dicts would set off full collections)
            while (match := search.first()) is not None:
                found.append(match)
                search.taken.update(match.values())
        return found


class GraphMatch(Mapping[DFPattern, SSAValue]):
    """The value of each node of a graph pattern (iterating gives the nodes);
    `m[p]` also reads the nodes' sub-patterns, and `m["label"]` labelled ones.
    A sub-pattern object shared by nodes matches one value in all of them."""

    def __init__(
        self, values: dict[DFPattern, SSAValue], bound: dict[DFPattern, SSAValue]
    ):
        self._values, self._bound = values, bound

    def __getitem__(self, key: DFPattern | str) -> SSAValue:
        if isinstance(key, str):
            found = {p: v for p, v in self._bound.items() if p.label == key}
            if len(found) != 1:
                raise KeyError(f"{key!r} labels {len(found)} patterns of the match")
            return next(iter(found.values()))
        return self._bound[key]

    def __iter__(self) -> Iterator[DFPattern]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class PatternSeq:
    """Patterns chained by `>>` / `^` (Relax's PatternSeq)."""

    def __init__(self, patterns: list[DFPattern], edges: list[UseEdge]):
        self.patterns, self.edges = patterns, edges

    def __getitem__(self, index: int) -> DFPattern:
        return self.patterns[index]

    def used_by(self, other: DFPattern | PatternSeq, index: int = -1) -> PatternSeq:
        return _link(self, other, only=False, index=index)

    def only_used_by(
        self, other: DFPattern | PatternSeq, index: int = -1
    ) -> PatternSeq:
        return _link(self, other, only=True, index=index)

    __xor__ = used_by
    __rshift__ = only_used_by

    def dup(self) -> PatternSeq:
        """The same chain over fresh copies of its patterns, in the current context."""
        copies = {p: copy.copy(p) for p in self.patterns}
        edges = [
            UseEdge(copies[e.producer], copies[e.consumer], e.only, e.index)
            for e in self.edges
        ]
        context = PatternContext.current()
        for edge in edges:
            context.add_edge(edge)
        return PatternSeq([copies[p] for p in self.patterns], edges)


def _link(
    producer: DFPattern | PatternSeq,
    consumer: DFPattern | PatternSeq,
    only: bool,
    index: int,
) -> PatternSeq:
    """The edge from the last of `producer` to the first of `consumer`, added to
    the current context; the chain of both."""
    left = producer if isinstance(producer, PatternSeq) else PatternSeq([producer], [])
    right = consumer if isinstance(consumer, PatternSeq) else PatternSeq([consumer], [])
    edge = UseEdge(left.patterns[-1], right.patterns[0], only, index)
    PatternContext.current().add_edge(edge)
    return PatternSeq(left.patterns + right.patterns, left.edges + [edge] + right.edges)


def fork_to(producer: DFPattern, *consumers: DFPattern | PatternSeq) -> DFPattern:
    for consumer in consumers:
        _link(producer, consumer, only=False, index=-1)
    return producer


class _Search:
    """Backtracking assignment of values to the nodes, node by node along edges."""

    def __init__(self, context: PatternContext, block: Block):
        self.nodes = list(context.nodes)
        self.edges = context.edges
        self.values = list(block.args) + [r for op in block.ops for r in op.results]
        self.taken: set[SSAValue] = set()
        """Values of earlier matches (match_all), which no node may take again."""
        self.resume = 0
        """Where the first node's candidates start: earlier ones failed, or were taken."""
        self.memo: dict = {}
        self.node_matches: dict[tuple[DFPattern, SSAValue], Match | None] = {}
        self.adjacent: dict[DFPattern, list[DFPattern]] = {n: [] for n in self.nodes}
        for edge in self.edges:
            self.adjacent[edge.producer].append(edge.consumer)
            self.adjacent[edge.consumer].append(edge.producer)

    def first(self, start: SSAValue | None = None) -> GraphMatch | None:
        if not self.nodes:
            return None
        for first_node in self.nodes if start is not None else self.nodes[:1]:
            order = self._order(first_node)
            found = self._assign(order, {}, {}, start)
            if found is not None:
                return GraphMatch(*found)
        return None

    def _order(self, first: DFPattern) -> list[DFPattern]:
        """Nodes in breadth-first order along edges from `first`, then the others'."""
        order: list[DFPattern] = []
        seen: set[DFPattern] = set()
        for root in [first, *self.nodes]:
            if root in seen:
                continue
            seen.add(root)
            order.append(root)
            position = len(order) - 1
            while position < len(order):
                for near in self.adjacent[order[position]]:
                    if near not in seen:
                        seen.add(near)
                        order.append(near)
                position += 1
        return order

    def _assign(self, order, assigned: dict, bound: dict, start: SSAValue | None):
        """Extend `assigned` (node -> value, with the values its sub-patterns bound
        in `bound`) to every node in `order`: (nodes, bindings), or None."""
        if len(assigned) == len(order):
            return dict(assigned), dict(bound)
        node = order[len(assigned)]
        first = not assigned and start is None
        offset = 0
        if start is not None:
            candidates = [start]
        elif first:  # (values before `resume` matched no more in an earlier search)
            candidates, offset = self.values, self.resume
        else:
            candidates = self._candidates(node, assigned)
        used = set(assigned.values())
        for position in range(offset, len(candidates)):
            value = candidates[position]
            if value in used or value in self.taken:
                continue
            match = self._match(node, value)
            if match is None or any(
                bound.get(p, v) is not v for p, v in match.values.items()
            ):
                continue  # no match, or a shared sub-pattern bound another value
            assigned[node] = value
            if self._edges_hold(assigned):
                found = self._assign(order, assigned, {**bound, **match.values}, None)
                if found is not None:
                    if first:
                        self.resume = position
                    return found
            del assigned[node]
        return None

    def _candidates(self, node: DFPattern, assigned: dict) -> list[SSAValue]:
        for edge in self.edges:
            if edge.consumer is node and edge.producer in assigned:
                users = {use.operation: None for use in assigned[edge.producer].uses}
                return [r for op in users for r in op.results]
            if edge.producer is node and edge.consumer in assigned:
                consumer = assigned[edge.consumer]
                return (
                    list(consumer.owner.operands)
                    if isinstance(consumer, OpResult)
                    else []
                )
        return self.values

    def _match(self, node: DFPattern, value: SSAValue) -> Match | None:
        key = (node, value)
        if key not in self.node_matches:
            matcher = Matcher(memo=self.memo, explain=False)
            found = matcher.match_value(node, value, skippable=False)
            self.node_matches[key] = matcher.finish(node, value) if found else None
        return self.node_matches[key]

    def _edges_hold(self, assigned: dict) -> bool:
        for edge in self.edges:
            if edge.producer in assigned and edge.consumer in assigned:
                if not _edge_holds(
                    edge, assigned[edge.producer], assigned[edge.consumer]
                ):
                    return False
        return True


def _edge_holds(edge: UseEdge, produced: SSAValue, consumed: SSAValue) -> bool:
    if not isinstance(consumed, OpResult):
        return False
    consumer = consumed.op
    operands = consumer.operands
    if edge.index >= 0:
        if edge.index >= len(operands) or operands[edge.index] is not produced:
            return False
    elif produced not in operands:
        return False
    return not edge.only or all(use.operation is consumer for use in produced.uses)


def rewrite_bindings(
    context: PatternContext,
    rewriter: Callable[[GraphMatch], Mapping[SSAValue, SSAValue] | None],
    block: Block,
) -> int:
    """Relax's rewrite_bindings, one sweep: for each match (sharing no value with
    another), `rewriter(match)` builds new values with `nn.<op>(...)` (inserted
    after the match's last op) and returns {matched value: replacement} (empty
    or None: leave it). Uses are redirected, matched ops left unused and free of
    side effects are erased, and the block is put back in dependency order if a
    replacement is now read before it is defined. Returns the matches rewritten."""
    rewritten = 0
    for match in context.match_all(block):
        ops = [v.op for v in match.values() if isinstance(v, OpResult)]
        if any(op.parent is not block for op in ops) or not ops:
            continue  # erased by an earlier rewrite
        last = max(ops, key=block.get_operation_index)
        assert last.next_op is not None  # (a block ends in its terminator)
        with building(InsertPoint.before(last.next_op)):
            replacements = rewriter(match) or {}
        for old, new in replacements.items():
            old.replace_all_uses_with(new)
        rewritten += bool(replacements)
        _erase_dead(ops)
    if rewritten:
        _sort_block(block)
    return rewritten


def _erase_dead(ops: list[Operation]) -> None:
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not is_side_effect_free(op):
            continue
        producers = [v.op for v in op.operands if isinstance(v, OpResult)]
        Rewriter.erase_op(op)
        stack.extend(producers)


def _sort_block(block: Block) -> None:
    """Reorder `block` so every value is defined before it is read (stable: ops
    keep their order where dependencies allow)."""
    ops = list(block.ops)
    index = {op: i for i, op in enumerate(ops)}
    needs: dict[Operation, set[Operation]] = {op: set() for op in ops}
    for op in ops:
        for nested in op.walk():
            for operand in nested.operands:
                owner = operand.owner
                if isinstance(owner, Operation) and owner in index and owner is not op:
                    needs[op].add(owner)
    if all(index[d] < index[op] for op in ops for d in needs[op]):
        return
    users: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op, deps in needs.items():
        for dep in deps:
            users[dep].append(op)
    waiting = {op: len(deps) for op, deps in needs.items()}
    ready = [(index[op], op) for op in ops if not waiting[op]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, op = heapq.heappop(ready)
        order.append(op)
        for user in users[op]:
            waiting[user] -= 1
            if not waiting[user]:
                heapq.heappush(ready, (index[user], user))
    for op in order:
        op.detach()
    block.add_ops(order)
