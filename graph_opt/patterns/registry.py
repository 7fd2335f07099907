"""Named patterns, for the CLI (`--explain-pattern=NAME`) and the partition pass."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO

from xdsl.dialects.builtin import ModuleOp

from graph_opt.patterns import library
from graph_opt.patterns.matcher import explain
from graph_opt.patterns.pattern import DFPattern

PATTERNS: dict[str, Callable[[], DFPattern]] = {
    "conv-bias-relu": library.conv_bias_relu,
    "conv-bn-relu": library.conv_bn_relu,
    "decomposed-batch-norm": lambda: library.FoldDecomposedBatchNorm().pattern,
    "double-relu": library.double_relu,
    "matmul-bias": lambda: library.MatMulBiasToGemm().pattern,
}


def get_pattern(name: str) -> DFPattern:
    if name not in PATTERNS:
        raise ValueError(
            f"unknown pattern '{name}'; known patterns: {', '.join(sorted(PATTERNS))}"
        )
    return PATTERNS[name]()


def print_explanations(module: ModuleOp, name: str, out: IO[str] = sys.stderr) -> None:
    """Explain the pattern at every op whose name can be the pattern's root."""
    pattern = get_pattern(name)
    roots = pattern.root_names
    for op in module.walk():
        if op.results and (roots is None or op.name in roots):
            print(explain(pattern, op), file=out)
