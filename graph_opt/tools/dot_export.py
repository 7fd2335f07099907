"""Pictures of a module: Graphviz DOT text (`-t dot`) and SVG rendered by
Graphviz's `dot` (`-t svg`).

Ops are boxes labelled with their kind and short attributes; the constants an
op reads are lines of its label (`W: 16x3x3x3 f32`) rather than nodes of their
own; values are edges labelled with their type; function arguments and results
are ellipses; functions and regions (scf.if / scf.while bodies) are clusters.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import IO

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.shapes import DYN

LABEL_LIMIT = 40
"""Longest attribute text shown; longer ones (weights, long lists) are left out."""


def type_label(t: Attribute) -> str:
    if isinstance(t, TensorType):
        dims = "x".join("?" if d == DYN else str(d) for d in t.get_shape())
        return f"{dims or 'scalar'} {t.element_type}"
    if isinstance(t, UnrankedTensorType):
        return f"* {t.element_type}"
    return str(t)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


class _DotWriter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ids: dict[SSAValue, str] = {}
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"n{self.count}"

    def node(self, label_lines: list[str], shape: str, indent: str) -> str:
        name = self.fresh()
        label = "\\n".join(_escape(line) for line in label_lines)
        self.lines.append(f'{indent}{name} [label="{label}", shape={shape}];')
        return name

    def edge(self, value: SSAValue, target: str, indent: str) -> None:
        source = self.ids.get(value)
        if source is not None:
            label = _escape(type_label(value.type))
            self.lines.append(f'{indent}{source} -> {target} [label="{label}"];')

    def region(self, region: Region, title: str, indent: str) -> None:
        self.count += 1
        self.lines.append(f"{indent}subgraph cluster_{self.count} {{")
        self.lines.append(f'{indent}  label="{_escape(title)}";')
        for index, block in enumerate(region.blocks):
            self.block(block, indent + "  ", f"{title} block {index}")
        self.lines.append(f"{indent}}}")

    def block(self, block: Block, indent: str, title: str) -> None:
        for arg in block.args:
            name = arg.name_hint or f"arg{arg.index}"
            self.ids[arg] = self.node(
                [f"%{name}", type_label(arg.type)], "ellipse", indent
            )
        for op in block.ops:
            if isinstance(op, ConstantOp):
                continue  # shown in its users' labels
            self.op(op, indent)

    def op(self, op: Operation, indent: str) -> None:
        lines = [op.name]
        if isinstance(op, func.ReturnOp):
            lines = ["return"]
        lines += _attribute_lines(op)
        for index, operand in enumerate(op.operands):
            if isinstance(operand.owner, ConstantOp):
                hint = operand.name_hint or f"operand {index}"
                lines.append(f"{hint[-24:]}: {type_label(operand.type)}")
        shape = "ellipse" if isinstance(op, func.ReturnOp) else "box"
        name = self.node(lines, shape, indent)
        for operand in op.operands:
            self.edge(operand, name, indent)
        for result in op.results:
            self.ids[result] = name
        for index, region in enumerate(op.regions):
            self.region(region, f"{op.name} region {index}", indent)


def _attribute_lines(op: Operation) -> list[str]:
    lines = []
    for key, value in op.properties.items():
        text = _short(value)
        if len(text) <= LABEL_LIMIT:
            lines.append(f"{key} = {text}")
    return lines


def _short(value: Attribute) -> str:
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, IntegerAttr | FloatAttr):
        return f"{value.value.data:g}"
    return str(value).removeprefix("array<i64: ").removesuffix(">")


def write_dot(module: ModuleOp, out: IO[str]) -> None:
    """The module's functions as one DOT digraph."""
    writer = _DotWriter()
    writer.lines += ["digraph graph_opt {", "  rankdir=TB;", "  node [fontsize=10];"]
    writer.lines.append("  edge [fontsize=8];")
    for op in module.ops:
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            writer.region(op.body, f"func @{op.sym_name.data}", "  ")
    writer.lines.append("}")
    out.write("\n".join(writer.lines) + "\n")


def write_svg(module: ModuleOp, out: IO[str]) -> None:
    """The DOT picture rendered by Graphviz's `dot`."""
    dot = shutil.which("dot")
    if dot is None:
        raise ValueError(
            "-t svg needs Graphviz's `dot` on PATH (e.g. apt-get install graphviz); "
            "-t dot writes the graph without it"
        )
    from io import StringIO

    text = StringIO()
    write_dot(module, text)
    rendered = subprocess.run(
        [dot, "-Tsvg"], input=text.getvalue(), capture_output=True, text=True
    )
    if rendered.returncode != 0:
        raise ValueError(f"Graphviz's dot failed: {rendered.stderr.strip()}")
    out.write(rendered.stdout)
