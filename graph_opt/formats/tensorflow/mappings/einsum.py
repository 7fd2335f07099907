"""Einsum in its matmul-like forms, as transposes, reshapes and one nn.matmul.

Two operands whose labels are each batch (in both operands and the output),
contracted (in both, not in the output) or free (in one operand and the
output): "bij,bjk->bik", "abc,cd->abd", "ij,kj->ik", "bqhd,bkhd->bhqk"; one
operand whose output permutes its labels ("ijk->kij"). Other equations
(ellipses, repeated labels, sums over one operand's axis) decline with the reason.
"""

from __future__ import annotations

import math

from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.formats.tensorflow.mappings.layouts import reshaped, transposed
from graph_opt.formats.tensorflow.op_table import importer


def parse_equation(b, equation: str) -> tuple[list[str], str]:
    """(input label strings, output labels); implicit output: labels seen once, sorted."""
    equation = equation.replace(" ", "")
    if "." in equation:
        b.decline(f"einsum '{equation}': ellipses are not supported")
    inputs, arrow, output = equation.partition("->")
    operands = inputs.split(",")
    if not arrow:
        letters = "".join(operands)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for labels in [*operands, output]:
        if len(set(labels)) != len(labels):
            b.decline(
                f"einsum '{equation}': a repeated label (a diagonal) is not supported"
            )
    return operands, output


def reshaped_to(b, value, shape: list[int], current: list[int]):
    if shape == current:
        return value
    if shape.count(DYN) > 1:
        b.decline("einsum: reshaping with more than one dim of unknown size")
    return reshaped(b, value, [-1 if d == DYN else d for d in shape])


def _matmul_einsum(b, equation, lhs_labels, rhs_labels, output, lhs, rhs):
    sizes: dict[str, int] = {}
    for labels, value in ((lhs_labels, lhs), (rhs_labels, rhs)):
        value_type = ranked(value)
        if value_type is None or value_type.get_num_dims() != len(labels):
            b.decline(
                f"einsum '{equation}': labels '{labels}' need an operand of that rank"
            )
        for label, size in zip(labels, value_type.get_shape()):
            known = sizes.setdefault(label, size)
            if DYN not in (known, size) and known != size:
                b.decline(
                    f"einsum '{equation}': label '{label}' has sizes {known} and {size}"
                )
            if known == DYN:
                sizes[label] = size
    if set(output) - set(lhs_labels) - set(rhs_labels):
        b.decline(f"einsum '{equation}': an output label is in no operand")
    batch = [c for c in lhs_labels if c in rhs_labels and c in output]
    contract = [c for c in lhs_labels if c in rhs_labels and c not in output]
    left = [c for c in lhs_labels if c not in rhs_labels]
    right = [c for c in rhs_labels if c not in lhs_labels]
    if any(c not in output for c in left + right):
        b.decline(
            f"einsum '{equation}': a sum over an axis of one operand is not supported"
        )

    def operand(value, labels, order, rows, cols):
        value = transposed(b, value, [labels.index(c) for c in order])
        current = [sizes[c] for c in order]
        shape = [sizes[c] for c in batch] + [rows, cols]
        return reshaped_to(b, value, shape, current)

    def product(labels):
        dims = [sizes[c] for c in labels]
        return DYN if DYN in dims else math.prod(dims)

    labels = batch + left + right
    if not batch and len(contract) == len(right) == 1:
        # [..left, c] @ [c, r]: nn.matmul broadcasts, no reshape needed
        lhs = transposed(b, lhs, [lhs_labels.index(c) for c in left + contract])
        rhs = transposed(b, rhs, [rhs_labels.index(c) for c in contract + right])
        result = b.create(MatMulOp, [lhs, rhs]).results[0]
        return [transposed(b, result, [labels.index(c) for c in output])]
    lhs = operand(
        lhs, lhs_labels, batch + left + contract, product(left), product(contract)
    )
    rhs = operand(
        rhs, rhs_labels, batch + contract + right, product(contract), product(right)
    )
    result = b.create(MatMulOp, [lhs, rhs]).results[0]
    current = [sizes[c] for c in batch] + [product(left), product(right)]
    result = reshaped_to(b, result, [sizes[c] for c in labels], current)
    return [transposed(b, result, [labels.index(c) for c in output])]


@importer("Einsum")
def import_einsum(b, node, inputs):
    equation = b.attr("equation")
    operands, output = parse_equation(b, equation)
    if len(operands) != len(inputs):
        b.decline(
            f"einsum '{equation}' names {len(operands)} operands, the node has {len(inputs)}"
        )
    if len(operands) == 1:
        (labels,) = operands
        if sorted(labels) != sorted(output):
            b.decline(
                f"einsum '{equation}': only a permutation of one operand is supported"
            )
        return [transposed(b, inputs[0], [labels.index(c) for c in output])]
    if len(operands) != 2:
        b.decline(f"einsum '{equation}': only one or two operands are supported")
    return _matmul_einsum(b, equation, *operands, output, *inputs)
