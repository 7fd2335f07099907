"""Outlining pattern matches into private functions (TVM's `partition`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike

from graph_opt.dialects.effects import CONTROL_INPUTS_ATTR
from graph_opt.patterns.matcher import Match, match_op
from graph_opt.patterns.pattern import DFPattern
from graph_opt.rewriting.placement import carry_placement

PARTITIONED_FROM = "PartitionedFromPattern"
"""The attribute marking an outlined function (TVM's name), with its op names."""

SKIP, DUPLICATE = "skip", "duplicate"
"""What partition does with a match whose interior values are used outside it."""


def partition(
    module: ModuleOp,
    pattern: DFPattern,
    attrs: Mapping[str, Attribute | str] | None = None,
    check: Callable[[Match], bool] | None = None,
    *,
    skip_identity: bool = False,
    embed_constants: bool = False,
    escaping: str = SKIP,
) -> list[func.FuncOp]:
    """Outline each match into a private `func.func`, called where the match was.

    The functions carry `attrs` (strings become StringAttr) and are named
    after `attrs["composite"]` and numbered in program order. Matches are
    taken from the last op up and never overlap. Constants become arguments
    of the outlined function, or, with `embed_constants` (as TVM does), are
    copied into it (the caller's copy goes once nothing else reads it).

    A match whose interior values have users outside it is, with `escaping`:
    SKIP (the default) left in place, so that no op is computed twice; or,
    with DUPLICATE (TVM's behaviour), outlined all the same while the
    interior ops those users need stay in the caller too, computed twice.
    Either way only the root leaves a partition and, every partition op
    feeding the root, outlining cannot create a cycle.

    Each outlined function also carries TVM's `PartitionedFromPattern` (the
    names of its ops, each followed by "_", e.g. "nn.conv_nn.add_"), and
    functions carrying it are never searched: partitioning again, with the
    same pattern or another, leaves earlier partitions whole.
    """
    if escaping not in (SKIP, DUPLICATE):
        raise ValueError(
            f"escaping must be '{SKIP}' or '{DUPLICATE}', not '{escaping}'"
        )
    attributes = {
        k: StringAttr(v) if isinstance(v, str) else v for k, v in (attrs or {}).items()
    }
    composite = attributes.get("composite")
    prefix = (
        composite.data.replace("-", "_")
        if isinstance(composite, StringAttr)
        else "partition"
    )
    names = _symbol_names(module)
    counter = itertools.count()
    outlined = []
    functions = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and PARTITIONED_FROM not in op.attributes
    ]
    for function in functions:
        for block in function.body.blocks:
            positions = {op: i for i, op in enumerate(block.ops)}
            matches = disjoint_matches(
                block, pattern, check, skip_identity, escaping == DUPLICATE
            )
            for match in matches:
                name = _fresh_name(prefix, names, counter)
                outlined.append(
                    _outline(
                        module, match, positions, name, attributes, embed_constants
                    )
                )
    return outlined


def disjoint_matches(
    block: Block,
    pattern: DFPattern,
    check: Callable[[Match], bool] | None = None,
    skip_identity: bool = False,
    allow_escaping: bool = False,
) -> list[Match]:
    """The matches in `block` that partition would outline, in program order:
    taken from the last op up, never overlapping, none with an interior value
    used outside it unless `allow_escaping`."""
    positions = {op: i for i, op in enumerate(block.ops)}
    claimed: set[Operation] = set()
    memo: dict[DFPattern, dict] = {}  # the block does not change until all are found
    found = []
    for op in reversed(list(block.ops)):
        if op in claimed:
            continue
        match = match_op(pattern, op, skip_identity=skip_identity, memo=memo)
        if (
            match is None
            or match.root.owner not in match.region
            or any(o in claimed or o not in positions for o in match.region)
            or (not allow_escaping and match.escaping_values())
            or (check is not None and not check(match))
        ):
            continue
        claimed.update(match.region)
        found.append(match)
    return found[::-1]


def _outline(
    module: ModuleOp,
    match: Match,
    positions: dict[Operation, int],
    name: str,
    attributes: dict[str, Attribute],
    embed_constants: bool,
) -> func.FuncOp:
    ops = sorted(match.region, key=positions.__getitem__)
    inputs: dict[SSAValue, None] = {}
    embedded: dict[Operation, None] = {}
    for op in ops:
        for operand in op.operands:
            if isinstance(operand, OpResult) and operand.op in match.region:
                continue
            if embed_constants and _is_constant(operand):
                embedded.setdefault(operand.op, None)  # type: ignore[union-attr]
            else:
                inputs.setdefault(operand, None)
    root = match.root
    function = func.FuncOp(
        name, ([v.type for v in inputs], [root.type]), visibility="private"
    )
    function.attributes.update(attributes)
    function.attributes[PARTITIONED_FROM] = StringAttr(
        "".join(f"{op.name}_" for op in ops)
    )
    body = function.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for op in [*embedded, *ops]:
        clone = op.clone(value_mapper=mapping)
        clone.attributes.pop(CONTROL_INPUTS_ATTR, None)  # the call waits instead
        mapping.update(zip(op.results, clone.results))
        body.add_op(clone)
    body.add_op(func.ReturnOp(mapping[root]))
    module.body.block.add_op(function)

    call = func.CallOp(name, list(inputs), [root.type])
    assert isinstance(root, OpResult)
    Rewriter.insert_op(call, InsertPoint.before(root.op))
    carry_placement(call, [root.op, *ops])
    call.res[0].name_hint = root.name_hint
    root.replace_all_uses_with(call.res[0])
    for op in [*reversed(ops), *embedded]:
        if not any(result.uses for result in op.results):
            Rewriter.erase_op(op)  # (ops still used outside stay: DUPLICATE)
    return function


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and value.op.has_trait(ConstantLike)


def _symbol_names(module: ModuleOp) -> set[str]:
    return {
        op.sym_name.data
        for op in module.ops
        if isinstance(getattr(op, "sym_name", None), StringAttr)
    }


def _fresh_name(prefix: str, taken: set[str], counter: Iterator[int]) -> str:
    name = f"{prefix}_{next(counter)}"
    while name in taken:
        name = f"{prefix}_{next(counter)}"
    taken.add(name)
    return name
