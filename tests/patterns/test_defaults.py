"""Implicit property defaults, read from the ops' own `str_value(props, name, default)` calls."""

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr

from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import LeakyReluOp
from graph_opt.dialects.nn.fused import FusedConvOp
from graph_opt.dialects.nn.shape_ops import ShapeOp
from graph_opt.patterns.defaults import property_defaults


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
