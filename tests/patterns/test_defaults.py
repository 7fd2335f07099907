"""Implicit property defaults: IRDL's `default_value`, then the op classes'
PROPERTY_DEFAULTS, checked against what the ops compute without the property."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Region
from xdsl.irdl import OptionalDef

from graph_opt.api import parse
from graph_opt.dialects.nn import NN
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import LeakyReluOp
from graph_opt.dialects.nn.fused import FusedConvOp
from graph_opt.dialects.nn.shape_ops import ShapeOp
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.interpreter import run_function
from graph_opt.patterns.defaults import property_defaults

CORPUS = Path(__file__).parents[1] / "filecheck"
MAX_INPUT_VALUES = 1 << 16
"""Larger instances are compared on their types only."""
EXTRA = """
func.func @extra(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  %0 = nn.gather_elements %x, %i : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %1 = nn.pad %x {pads = array<i64: 0, 1, 1, 0>} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  %2 = nn.dropout %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
  %4:2 = nn.split %x {split = array<i64: 1, 1>} : (tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
  func.return
}
"""
"""Ops with a default that the FileCheck files never leave implicit."""


def test_defaults_from_the_class_and_its_bases():
    conv = property_defaults(ConvOp)
    assert conv["data_layout"] == StringAttr("NCHW")
    assert conv["group"] == IntegerAttr(1, 64)
    assert property_defaults(FusedConvOp)["activation"] == StringAttr("none")
    assert property_defaults(FusedConvOp)["data_layout"] == StringAttr("NCHW")


def test_no_default_when_computed_or_irdl_declared_wins():
    shape = property_defaults(ShapeOp)
    assert shape["start"] == IntegerAttr(0, 64)
    assert "end" not in shape, "end defaults to the rank, not to a constant"
    assert "strides" not in property_defaults(ConvOp)
    assert isinstance(property_defaults(LeakyReluOp)["alpha"], FloatAttr)


def test_declared_defaults_name_optional_properties():
    """Each PROPERTY_DEFAULTS entry names an optional property of an op that
    inherits it (a required one has no absent value; anything else is a typo)."""
    declared, matched = {}, set()
    for op_class in NN.operations:
        props = op_class.get_irdl_definition().properties
        for klass in op_class.__mro__:
            for name in vars(klass).get("PROPERTY_DEFAULTS", {}):
                declared[klass, name] = op_class.name
                if name in props:
                    assert isinstance(props[name], OptionalDef), (op_class.name, name)
                    matched.add((klass, name))
    assert set(declared) == matched


@cache
def examples() -> dict[str, list]:
    """Op name -> instances from the nn dialect's FileCheck files (and EXTRA)."""
    found: dict[str, list] = {}
    texts = [
        chunk
        for path in sorted(CORPUS.rglob("*.mlir"))
        if not path.name.startswith("invalid") and "inputs" not in path.parts
        for chunk in path.read_text().split("// -----")
    ]
    for text in [*texts, EXTRA]:
        try:
            module = parse(text)
        except Exception:
            continue  # a chunk written to fail
        for op in module.walk():
            found.setdefault(op.name, []).append(op)
    return found


DEFAULTS = [
    (op_class, name, value)
    for op_class in NN.operations
    for name, value in property_defaults(op_class).items()
]


@pytest.mark.parametrize(
    "op_class, name, value",
    DEFAULTS,
    ids=[f"{c.name}-{n}" for c, n, _ in DEFAULTS],
)
def test_absent_property_computes_what_its_default_does(op_class, name, value):
    """The op with the property left out and the op with it set to the default
    (built from an instance in the FileCheck files) infer the same result types
    and compute the same values on the same random inputs."""
    valid = 0
    for op in examples().get(op_class.name, []):
        absent = {k: v for k, v in op.properties.items() if k != name}
        outcome = _outcome(op, absent)
        assert outcome == _outcome(op, {**absent, name: value}), op
        valid += outcome[0] != "invalid"
    assert valid, f"no {op_class.name} in the corpus is valid without {name}"


def _outcome(op, props):
    """Result types and values of `op` rebuilt with `props`, or the error."""
    try:
        module = _one_op_module(op, props)
        module.verify()
    except Exception as error:
        return ("invalid", type(error).__name__, str(error))
    function = module.body.block.first_op
    types = [str(t) for t in function.function_type.outputs]
    if not all(hasattr(a.type, "get_shape") for a in function.args):
        return types, "unranked inputs: compared on types only"
    shapes = [_static(a.type.get_shape()) for a in function.args]
    if sum(math.prod(s) for s in shapes) > MAX_INPUT_VALUES:
        return types, "too large to run"
    try:
        values = run_function(module, _random_inputs(function, shapes))
    except Exception as error:
        values = ("not run", type(error).__name__)
    else:
        values = [(v.dtype, v.shape, v.tobytes()) for v in values]
    return types, values


def _one_op_module(op, props) -> ModuleOp:
    """A function of `op` alone: its constant operands copied, the others arguments."""
    block = Block()
    operands = []
    for value in op.operands:
        if isinstance(value.owner, ConstantOp):
            constant = value.owner.clone()
            block.add_op(constant)
            operands.append(constant.results[0])
        else:
            operands.append(block.insert_arg(value.type, len(block.args)))
    result_types = type(op).rule_result_types(operands, props)
    if result_types is None:
        result_types = [r.type for r in op.results]
    new = type(op).create(
        operands=operands,
        result_types=result_types,
        properties=dict(props),
        attributes=dict(op.attributes),
        regions=[r.clone() for r in op.regions],
    )
    block.add_op(new)
    block.add_op(func.ReturnOp(*new.results))
    function = func.FuncOp(
        "f",
        ([a.type for a in block.args], [r.type for r in new.results]),
        Region(block),
    )
    return ModuleOp([function])


def _static(shape) -> list[int]:
    return [2 if d == DYN else d for d in shape]


def _random_inputs(function, shapes) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    inputs = []
    for arg, shape in zip(function.args, shapes):
        dtype = numpy_dtype(arg.type.element_type)
        if np.issubdtype(dtype, np.floating):
            inputs.append(rng.standard_normal(shape).astype(dtype))
        else:
            inputs.append(rng.integers(0, 2, shape).astype(dtype))
    return inputs
