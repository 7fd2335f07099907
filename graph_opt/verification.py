"""`module.verify()` at a fraction of its cost on large graphs, for the driver's checks after passes."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from sys import intern

from xdsl.ir import Block, ErasedSSAValue, Operation
from xdsl.irdl import AnyAttr, BaseAttr
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.xdsl_compat.ir import operand_values, successor_count
from graph_opt.xdsl_compat.rewriter import block_ops


@cache
def signature_verifiable(op_class: type[Operation]) -> bool:
    """Whether IRDL's checks of an op depend on its types and attributes only: an nn op
    (whose own checks are `NNOperation.verify_`) whose traits check nothing."""
    return issubclass(op_class, NNOperation) and all(
        type(trait).verify is OpTrait.verify
        for trait in op_class.get_irdl_definition().traits
    )


@cache
def _class_checked_properties(op_class: type[Operation]) -> frozenset[str]:
    """The properties whose IRDL constraint looks at the attribute's class only."""
    return frozenset(
        name
        for name, prop in op_class.get_irdl_definition().properties.items()  # type: ignore[attr-defined]
        if type(prop.constr) in (BaseAttr, AnyAttr)
    )


@dataclass
class SignatureVerifier:
    """Runs IRDL's checks of signature-verifiable ops once per distinct signature:
    op class, operand and result types, attributes, and properties (the class of
    those whose constraint checks no more, e.g. a constant's value)."""

    verified: set[tuple] = field(default_factory=set[tuple])
    by_identity: dict[tuple[int, ...], list] = field(default_factory=dict)
    """Signatures seen, keyed by the ids of their parts (which the value keeps
    alive): ops built with the same type objects skip hashing the types."""

    def verify_irdl(self, op: Operation) -> None:
        op_class = type(op)
        parts = [op_class, len(op.regions), successor_count(op)]
        parts += [value.type for value in operand_values(op)]
        parts.append(_RESULTS)
        parts += [result.type for result in op.results]
        if properties := op.properties:
            by_class = _class_checked_properties(op_class)
            for name, value in properties.items():  # names interned: ids compare them
                parts += (intern(name), type(value) if name in by_class else value)
        parts.append(_ATTRIBUTES)
        if attributes := op.attributes:
            for name, value in attributes.items():
                parts += (intern(name), value)
        key = tuple(map(id, parts))
        if key in self.by_identity:
            return
        signature = tuple(parts)
        if signature not in self.verified:
            op.get_irdl_definition().verify(op)  # type: ignore[attr-defined]
            self.verified.add(signature)
        self.by_identity[key] = parts


_RESULTS, _ATTRIBUTES = object(), object()


def verify_module(module: Operation) -> None:
    """Check `module` as `module.verify()` does, with the same errors; IRDL's checks of
    nn ops run once per signature (the type rule of each op still runs)."""
    _verify_op(module, SignatureVerifier())


def _verify_op(op: Operation, verifier: SignatureVerifier) -> None:
    if _plain_nn_op(op):
        try:
            verifier.verify_irdl(op)
            NNOperation.verify_(op)  # type: ignore[arg-type]
        except VerifyException as e:
            op.emit_error(f"Operation does not verify: {e}", e)
        return
    for region in op.regions:
        for block in region.blocks:
            _verify_block(block, verifier)
            if block.parent != region:
                raise ValueError(
                    "Parent pointer of block does not refer to containing region"
                )
    op.verify(verify_nested_ops=False)


def _verify_block(block: Block, verifier: SignatureVerifier) -> None:
    if block.first_op is None:
        block.verify()  # the check of empty blocks
    for op in block_ops(block):
        if op.parent != block:
            raise ValueError(
                "Parent pointer of operation does not refer to containing region"
            )
        _verify_op(op, verifier)


def _plain_nn_op(op: Operation) -> bool:
    """An nn op that `Operation.verify` checks only by its `verify_`: signature-verifiable,
    without regions or successors, not ending its block, using no erased value."""
    return (
        signature_verifiable(type(op))
        and not op.regions
        and not successor_count(op)
        and op.next_op is not None
        and ErasedSSAValue not in map(type, operand_values(op))
    )
