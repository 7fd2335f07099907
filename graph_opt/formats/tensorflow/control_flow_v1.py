"""v1 control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond) -> functional If/While.

Like TensorFlow's functionalize_control_flow, this rewrites NodeDefs before the
import: each outermost loop frame becomes a While node whose cond and body are
new library functions, then each outermost cond (the Merges that join the two
sides of one predicate's Switches) becomes an If node. Nested constructs stay
in the new bodies and are rewritten when those are imported. A construct that
is not well nested is a FrontendError naming its nodes.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from graph_opt.dialects.nn.names import unused_name
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.functions import ARG_OP, Body
from graph_opt.formats.tensorflow.schema import NodeDef

_ALIASES = {
    f"Ref{op}": op for op in ("Switch", "Merge", "Enter", "Exit", "NextIteration")
}
V1_OPS = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}

Tag = tuple[tuple[str, bool], ...]
"""The cond branches a value lies in, outermost first: (predicate, side)."""


def _op(node: NodeDef) -> str:
    return _ALIASES.get(node.op, node.op)


def _split(text: str) -> tuple[str, int, bool]:
    """`node[:index]` or `^node` as (node, index, is_control)."""
    if text.startswith("^"):
        return text[1:], 0, True
    name, _, index = text.rpartition(":")
    if name and index.isdigit():
        return name, int(index), False
    return text, 0, False


def _ref(name: str, index: int) -> str:
    return name if index == 0 else f"{name}:{index}"


def functionalize(nodes: Sequence[NodeDef], library: dict[str, Body]) -> list[NodeDef]:
    """The nodes with outermost v1 loops and conds replaced by While and If nodes
    (whose functions are added to `library`)."""
    if not any(_op(n) in V1_OPS for n in nodes):
        return list(nodes)
    nodes = [_copy(n) for n in nodes]  # rewritten in place below
    nodes = _functionalize_loops(nodes, library)
    while (rewritten := _functionalize_one_cond(nodes, library)) is not None:
        nodes = rewritten
    leftover = [f"{n.op} '{n.name}'" for n in nodes if _op(n) in V1_OPS]
    if leftover:
        raise FrontendError(
            f"v1 control flow that is not a well-nested cond or loop: {', '.join(leftover[:4])}"
        )
    return nodes


def _copy(node: NodeDef) -> NodeDef:
    copy = NodeDef()
    copy.CopyFrom(node)
    return copy


def _users(nodes: Sequence[NodeDef]) -> dict[str, list[tuple[NodeDef, int]]]:
    """For each `node[:index]` ref, the nodes reading it (data edges)."""
    users: dict[str, list[tuple[NodeDef, int]]] = {}
    for node in nodes:
        for position, text in enumerate(node.input):
            name, index, control = _split(text)
            if not control:
                users.setdefault(_ref(name, index), []).append((node, position))
    return users


def _body(name: str, args: list[str], members: list[NodeDef], renames, outputs) -> Body:
    """A body of `members` whose refs in `renames` read arguments instead; control
    inputs stay between members only (they may order side effects)."""
    copies = [NodeDef(name=arg, op=ARG_OP) for arg in args]
    inside = {node.name for node in members}
    for node in members:
        copy = _copy(node)
        data, controls = [], []
        for text in node.input:
            source, index, control = _split(text)
            if not control:
                data.append(renames.get(_ref(source, index), text))
            elif source in inside:
                controls.append(text)
        copy.input[:] = data + controls
        copies.append(copy)
    return Body(name, copies, args, [renames.get(o, o) for o in outputs])


def _replace(
    nodes: list[NodeDef], removed: set[str], added: list[NodeDef], what: str
) -> list[NodeDef]:
    """Drop the removed nodes (control inputs on them too) and append the added ones."""
    gone = removed - {n.name for n in added}
    read_before = {_split(t)[0] for n in nodes for t in n.input}
    kept = []
    for node in nodes:
        if node.name in removed:
            continue
        inputs = []
        for text in node.input:
            source, _, control = _split(text)
            if source in gone:
                if control:
                    continue
                raise FrontendError(
                    f"node '{node.name}' ({node.op}) reads '{text}' from inside {what}"
                )
            inputs.append(text)
        node.input[:] = inputs
        kept.append(node)
    return _drop_orphans(kept + added, read_before)


@dataclass
class _Loop:
    frame: str
    variables: list[NodeDef] = field(default_factory=list)
    """The Enters of loop values; the others are invariants."""
    invariants: list[NodeDef] = field(default_factory=list)
    merges: list[NodeDef] = field(default_factory=list)
    switches: list[NodeDef] = field(default_factory=list)
    exits: list[NodeDef | None] = field(default_factory=list)
    next_iterations: list[NodeDef] = field(default_factory=list)
    loop_cond: NodeDef | None = None


def _loop_error(loop: _Loop, message: str) -> FrontendError:
    return FrontendError(f"v1 loop '{loop.frame}': {message}")


def _only_user(users, ref: str, op: str) -> NodeDef | None:
    found = [user for user, _ in users.get(ref, []) if _op(user) == op]
    return found[0] if len(found) == 1 else None


def _find_loop(frame: str, enters: list[NodeDef], nodes, users) -> _Loop:
    by_name = {n.name: n for n in nodes}
    loop = _Loop(frame)
    for enter in enters:
        if enter.attr["is_constant"].b:
            loop.invariants.append(enter)
            continue
        merge = _only_user(users, enter.name, "Merge")
        switch = merge and _only_user(users, merge.name, "Switch")
        if switch is None or len(merge.input) != 2:
            raise _loop_error(
                loop, f"Enter '{enter.name}' does not feed a Merge and a Switch"
            )
        back = by_name.get(_split(merge.input[1])[0])
        if back is None or _op(back) != "NextIteration":
            raise _loop_error(loop, f"Merge '{merge.name}' has no NextIteration input")
        loop_cond = by_name.get(_split(switch.input[1])[0])
        if loop_cond is None or _op(loop_cond) != "LoopCond":
            raise _loop_error(loop, f"Switch '{switch.name}' is not on a LoopCond")
        if loop.loop_cond not in (None, loop_cond):
            raise _loop_error(loop, "its Switches use different LoopConds")
        loop.loop_cond = loop_cond
        loop.variables.append(enter)
        loop.merges.append(merge)
        loop.switches.append(switch)
        loop.next_iterations.append(back)
        loop.exits.append(_only_user(users, switch.name, "Exit"))
    if loop.loop_cond is None:
        raise _loop_error(loop, "it has no loop values")
    return loop


def _collect(
    loop: _Loop, start: list[str], stops: dict[str, str], nodes
) -> list[NodeDef]:
    """The nodes the refs in `start` compute from, back to the `stops` refs."""
    by_name = {n.name: n for n in nodes}
    boundary = {n.name for n in loop.merges + loop.switches + loop.variables}
    boundary |= {n.name for n in loop.invariants + loop.next_iterations}
    boundary |= {e.name for e in loop.exits if e is not None}
    boundary.add(loop.loop_cond.name)
    found: set[str] = set()
    stack = [r for r in start if r not in stops]
    while stack:
        name, index, _ = _split(stack.pop())
        if name in found:
            continue
        node = by_name[name]
        if name in boundary or node.op in ("Placeholder", ARG_OP):
            raise _loop_error(
                loop,
                f"reads {node.op} '{_ref(name, index)}' where a structured loop cannot",
            )
        found.add(name)
        for text in node.input:
            source, source_index, control = _split(text)
            ref = _ref(source, source_index)
            if not control and ref not in stops and source not in found:
                stack.append(ref)
    _add_readers(found, boundary, nodes)
    return [n for n in nodes if n.name in found]


def _add_readers(found: set[str], boundary: set[str], nodes) -> None:
    """Add the nodes that read found ones (e.g. a cond's pivots, read only through
    control edges), up to the loop's boundary."""
    grown = True
    while grown:
        grown = False
        for node in nodes:
            if node.name in found or node.name in boundary:
                continue
            if any(_split(t)[0] in found for t in node.input):
                found.add(node.name)
                grown = True


def _loop_functions(loop: _Loop, nodes, args: list[str]):
    """The cond and body of the loop as (members, renames, outputs) each."""
    count = len(loop.variables)
    invariants = {e.name: a for e, a in zip(loop.invariants, args[count:])}
    cond_renames = {m.name: a for m, a in zip(loop.merges, args)} | invariants
    body_renames = {f"{s.name}:1": a for s, a in zip(loop.switches, args)}
    body_renames |= invariants
    predicate = [loop.loop_cond.input[0]]
    results = [n.input[0] for n in loop.next_iterations]
    return (
        (_collect(loop, predicate, cond_renames, nodes), cond_renames, predicate),
        (
            _collect(loop, results, body_renames, nodes),
            body_renames,
            results + args[count:],
        ),
    )


def _functionalize_loop(loop: _Loop, nodes, library, taken) -> list[NodeDef]:
    while_name = unused_name(loop.frame, taken)
    values = len(loop.variables) + len(loop.invariants)
    args = [unused_name(f"{while_name}/arg{i}", taken) for i in range(values)]
    functional = NodeDef(name=while_name, op="While")
    functional.input.extend(e.input[0] for e in loop.variables + loop.invariants)
    removed = {n.name for n in loop.variables + loop.invariants + loop.merges}
    removed |= {n.name for n in loop.switches + loop.next_iterations}
    removed |= {e.name for e in loop.exits if e is not None} | {loop.loop_cond.name}
    for attr, (members, renames, outputs) in zip(
        ("cond", "body"), _loop_functions(loop, nodes, args)
    ):
        name = f"{while_name}/{attr}"
        library[name] = _body(name, args, members, renames, outputs)
        functional.attr[attr].func.name = name
        removed |= {n.name for n in members}
    removed |= _bookkeeping(loop, nodes, removed)
    added = [functional] + [
        _identity(exit_node, _ref(while_name, i))
        for i, exit_node in enumerate(loop.exits)
        if exit_node is not None
    ]
    return _replace(nodes, removed, added, f"v1 loop '{loop.frame}'")


BOOKKEEPING_OPS = frozenset({"Identity", "NoOp"})


def _bookkeeping(loop: _Loop, nodes, removed: set[str]) -> set[str]:
    """Nodes inside the loop's frame that neither its cond nor its body computes
    from: TF2's lowering adds `loop_body_control` (an Identity of a Switch, read
    only by control edges that pin the body's constants to the iteration). They
    order nothing observable once the loop is functional, so they go with it."""
    readers: dict[str, list[str]] = {}
    for node in nodes:
        for text in node.input:
            readers.setdefault(_split(text)[0], []).append(node.name)
    exits = {e.name for e in loop.exits if e is not None}
    inside = {n.name for n in loop.switches + loop.merges} | {loop.loop_cond.name}
    stack = list(inside)
    while stack:
        for reader in readers.get(stack.pop(), ()):
            if reader not in inside and reader not in exits:
                inside.add(reader)
                stack.append(reader)
    return {
        n.name
        for n in nodes
        if n.name in inside and n.name not in removed and n.op in BOOKKEEPING_OPS
    }


def _identity(replaced: NodeDef, source: str) -> NodeDef:
    """An Identity that keeps a replaced node's name, reading `source`."""
    node = NodeDef(name=replaced.name, op="Identity", input=[source])
    if "T" in replaced.attr:
        node.attr["T"].CopyFrom(replaced.attr["T"])
    return node


def _functionalize_loops(nodes: list[NodeDef], library) -> list[NodeDef]:
    frames: dict[str, list[NodeDef]] = {}
    for node in nodes:
        if _op(node) == "Enter":
            frames.setdefault(node.attr["frame_name"].s.decode(), []).append(node)
    if not frames:
        return nodes
    users = _users(nodes)
    loops = [
        _find_loop(frame, enters, nodes, users) for frame, enters in frames.items()
    ]
    inner: set[str] = set()
    for loop in loops:
        args = [""] * (len(loop.variables) + len(loop.invariants))
        for members, _, _ in _loop_functions(loop, nodes, args):
            inner |= {n.name for n in members}
    taken = {n.name for n in nodes} | set(library)
    for loop in loops:
        if loop.variables[0].name not in inner:
            nodes = _functionalize_loop(loop, nodes, library, taken)
    return nodes


def _order(nodes: list[NodeDef]) -> list[NodeDef] | None:
    """Producers first (data and control edges), or None on a cycle."""
    index = {n.name: i for i, n in enumerate(nodes)}
    waiting = [0] * len(nodes)
    users: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        for source in {_split(t)[0] for t in node.input} & index.keys():
            waiting[i] += 1
            users.setdefault(index[source], []).append(i)
    ready = [i for i, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(nodes[i])
        for user in users.get(i, []):
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, user)
    return order if len(order) == len(nodes) else None


def _predicate(nodes_by_name: dict[str, NodeDef], text: str) -> str:
    """The tensor a predicate input names, through Identity nodes."""
    name, index, _ = _split(text)
    while (node := nodes_by_name.get(name)) is not None and node.op == "Identity":
        name, index, _ = _split(node.input[0])
    return _ref(name, index)


def _branch_tags(nodes: list[NodeDef]) -> dict[str, Tag] | None:
    """The tag of every node's outputs (a Switch's per output: `name:index`)."""
    order = _order(nodes)
    if order is None:
        return None
    by_name = {n.name: n for n in nodes}
    tags: dict[str, Tag] = {}

    def tag_of(text: str) -> Tag:
        name, index, control = _split(text)
        if _op(by_name[name]) == "Switch" and not control:
            return tags[f"{name}:{index}"]
        return tags.get(name, ())

    for node in order:
        inputs = [t for t in node.input if _split(t)[0] in by_name]
        if _op(node) == "Merge":
            tags[node.name] = _merge_tag(node, inputs, tag_of, by_name)
            continue
        tag: Tag = ()
        for text in inputs:
            other = tag_of(text)
            if other[: len(tag)] == tag:
                tag = other
            elif tag[: len(other)] != other:
                raise FrontendError(
                    f"v1 control flow that is not well nested: node '{node.name}' ({node.op}) "
                    f"reads '{text}' from another branch than its other inputs"
                )
        tags[node.name] = tag
        if _op(node) == "Switch":
            predicate = _predicate(by_name, node.input[1])
            for side in (False, True):
                tags[f"{node.name}:{int(side)}"] = tag + ((predicate, side),)
    return tags


def _merge_tag(node: NodeDef, inputs, tag_of, by_name) -> Tag:
    data = [t for t in inputs if not t.startswith("^")]
    tags = [tag_of(t) for t in data]
    if (
        len(data) == 2
        and tags[0]
        and tags[0][:-1] == tags[1][:-1]
        and tags[0][-1][0] == tags[1][-1][0]
        and tags[0][-1][1] != tags[1][-1][1]
    ):
        return tags[0][:-1]
    sides = ", ".join(f"'{t}' ({_describe(tag)})" for t, tag in zip(data, tags))
    raise FrontendError(
        f"v1 control flow that is not well nested: Merge '{node.name}' does not join "
        f"the two sides of one predicate: {sides}"
    )


def _describe(tag: Tag) -> str:
    if not tag:
        return "outside any branch"
    predicate, side = tag[-1]
    return f"{'true' if side else 'false'} side of '{predicate}'"


def _functionalize_one_cond(nodes: list[NodeDef], library) -> list[NodeDef] | None:
    """The nodes with one outermost cond replaced by an If node, or None if none is left."""
    tags = _branch_tags(nodes)
    if tags is None:
        return None
    by_name = {n.name: n for n in nodes}
    merges = [n for n in nodes if _op(n) == "Merge" and tags[n.name] == ()]
    if not merges:
        return None
    predicate = _side_tag(merges[0], tags, by_name)[0][0]
    group = [m for m in merges if _side_tag(m, tags, by_name)[0][0] == predicate]
    taken = {n.name for n in nodes} | set(library)
    if_name = unused_name(f"{group[0].name}/If", taken)
    sides = {
        side: [
            n
            for n in nodes
            if n.name in tags and tags[n.name][:1] == ((predicate, side),)
        ]
        for side in (True, False)
    }
    members = {n.name for side in sides.values() for n in side}
    captures: dict[str, str] = {}  # outer ref -> argument
    renames: dict[str, str] = {}  # ref read in a branch -> argument
    for node in [n for side in sides.values() for n in side] + group:
        for text in node.input:
            name, index, control = _split(text)
            ref = _ref(name, index)
            if control or name in members or name not in by_name:
                continue
            source = by_name[name]
            outer = ref
            if _op(source) == "Switch" and tags.get(f"{name}:{index}", ())[:1] == (
                (predicate, bool(index)),
            ):
                outer = source.input[0]
            elif node in group:
                continue
            if outer not in captures:
                captures[outer] = unused_name(f"{if_name}/arg{len(captures)}", taken)
            renames[ref] = captures[outer]
    args = list(captures.values())
    for side, label in ((True, "then"), (False, "else")):
        outputs = [_side_input(m, tags, by_name, side) for m in group]
        name = f"{if_name}/{label}"
        library[name] = _body(name, args, sides[side], renames, outputs)
    functional = NodeDef(name=if_name, op="If", input=[predicate, *captures])
    functional.attr["then_branch"].func.name = f"{if_name}/then"
    functional.attr["else_branch"].func.name = f"{if_name}/else"
    added = [functional] + [_identity(m, _ref(if_name, i)) for i, m in enumerate(group)]
    removed = members | {m.name for m in group}
    return _replace(nodes, removed, added, f"the cond on '{predicate}'")


def _side_tag(merge: NodeDef, tags, by_name) -> Tag:
    return tags[_output_key(merge.input[0], by_name)][-1:]


def _side_input(merge: NodeDef, tags, by_name, side: bool) -> str:
    """The input of a (checked) Merge that comes from one side."""
    return next(
        text
        for text in merge.input
        if not text.startswith("^") and tags[_output_key(text, by_name)][-1][1] == side
    )


def _output_key(text: str, by_name) -> str:
    """The key of a ref's tag: a Switch's output, or the node."""
    name, index, _ = _split(text)
    return f"{name}:{index}" if _op(by_name[name]) == "Switch" else name


def _drop_orphans(nodes: list[NodeDef], read_before: set[str]) -> list[NodeDef]:
    """Drop the nodes only replaced ones read (e.g. Switches, a predicate's Identity)."""
    while True:
        read = {_split(t)[0] for n in nodes for t in n.input}
        orphans = {n.name for n in nodes if n.name in read_before - read}
        if not orphans:
            return nodes
        nodes = [n for n in nodes if n.name not in orphans]
