"""Every pattern construct: a module it matches and one it does not."""

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32, f64
from xdsl.dialects.func import FuncOp

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ReluOp
from graph_opt.patterns import (
    dominates,
    explain,
    has_attr,
    has_dtype,
    has_shape,
    has_type,
    is_constant,
    is_op,
    is_tuple_get_item,
    match_all,
    wildcard,
)

T = "tensor<1x4x6x6xf32>"
CONV = f"""
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<0.5> : tensor<4x1x1xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> {T}
  %bias = nn.add %conv, %b : ({T}, tensor<4x1x1xf32>) -> {T}
"""


def func(body: str, result: str, args: str = "%x: tensor<1x3x8x8xf32>") -> str:
    return f"""func.func @f({args}) -> {T} {{
{body}
  func.return %{result} : {T}
}}"""


def conv_bias_relu():
    conv = is_op("nn.conv")(wildcard(), wildcard())
    bias = conv + is_constant()
    return conv, bias, bias.optional(lambda x: is_op("relu")(x))


def test_match_op_binds_sub_patterns(parse, value):
    module = parse(func(CONV, "bias"))
    x, w = wildcard(), is_constant()
    conv = is_op("conv")(x, w)
    match = (conv + is_constant()).match(value(module, "bias"))
    assert match is not None
    assert match[conv] is value(module, "conv")
    assert match.op(conv).name == "nn.conv"
    assert match[x] is module.body.block.ops.first.body.block.args[0]


def test_no_match_op_name(parse, value):
    module = parse(func(CONV, "bias"))
    assert is_op("nn.mul")(wildcard(), wildcard()).match(value(module, "bias")) is None


def test_match_alternatives(parse, value):
    module = parse(func(CONV, "bias"))
    pattern = is_op("nn.mul")(wildcard(), wildcard()) | is_op("nn.add")(
        wildcard(), wildcard()
    )
    assert pattern.match(value(module, "bias")) is not None


def test_no_match_alternatives(parse, value):
    module = parse(func(CONV, "bias"))
    pattern = is_op("nn.mul")(wildcard(), wildcard()) | is_op("nn.sub")(
        wildcard(), wildcard()
    )
    assert pattern.match(value(module, "bias")) is None


def test_match_optional_relu_after_conv_bias(parse, value):
    body = CONV + f"  %relu = nn.relu %bias : ({T}) -> {T}"
    module = parse(func(body, "relu"))
    conv, bias, pattern = conv_bias_relu()
    with_relu = pattern.match(value(module, "relu"))
    assert with_relu is not None and with_relu[bias] is value(module, "bias")
    without_relu = pattern.match(value(module, "bias"))
    assert without_relu is not None and without_relu[conv] is value(module, "conv")


def test_no_match_optional_relu_after_other_op(parse, value):
    body = CONV + f"  %tanh = nn.tanh %bias : ({T}) -> {T}"
    module = parse(func(body, "tanh"))
    assert conv_bias_relu()[2].match(value(module, "tanh")) is None


def test_match_attribute_shape_dtype_type(parse, value):
    body = CONV.replace(
        "nn.conv %x, %w :",
        "nn.conv %x, %w {group = 1 : i64, strides = array<i64: 1, 1>} :",
    )
    body += f"  %leaky = nn.leaky_relu %bias : ({T}) -> {T}"
    module = parse(func(body, "leaky"))
    conv = value(module, "conv")
    assert (
        is_op("conv")(wildcard(), wildcard())
        .has_attr({"group": 1, "strides": [1, 1]})
        .match(conv)
    )
    assert has_attr({"alpha": 0.01}).match(value(module, "leaky")), (
        "a property default counts"
    )
    assert has_shape([1, 4, None, 6]).match(conv)
    assert is_op("conv").has_shape([1, 4, 6, 6]).has_dtype("float32").match(conv)
    assert has_dtype(f32).match(conv)
    assert has_type(TensorType(f32, [1, 4, 6, 6])).match(conv)


def test_no_match_attribute_shape_dtype_type(parse, value):
    module = parse(
        func(
            CONV.replace("nn.conv %x, %w :", "nn.conv %x, %w {group = 1 : i64} :"),
            "bias",
        )
    )
    conv = value(module, "conv")
    assert has_attr({"group": 2}).match(conv) is None
    assert has_attr({"no_such_attr": 1}).match(conv) is None
    assert has_shape([1, 4, 6]).match(conv) is None
    assert has_shape([1, 5, 6, 6]).match(conv) is None
    assert has_dtype("float16").match(conv) is None
    assert has_type(TensorType(f64, [1, 4, 6, 6])).match(conv) is None


def test_match_constant_with_value(parse, value):
    body = f"""  %zero = nn.constant dense<0.0> : tensor<1xf32>
  %sum = nn.add %x, %zero : ({T}, tensor<1xf32>) -> {T}"""
    module = parse(func(body, "sum", f"%x: {T}"))
    x = wildcard()
    match = (x + is_constant(0.0)).match(value(module, "sum"))
    assert match is not None and match[x] is value(module, "sum").op.operands[0]
    assert (
        is_constant(np.zeros((1, 1, 1, 1), np.float32)).match(value(module, "zero"))
        is None
    )
    assert is_constant(np.zeros((1,), np.float32)).match(value(module, "zero"))


def test_no_match_constant_with_value(parse, value):
    body = f"""  %half = nn.constant dense<0.5> : tensor<1xf32>
  %sum = nn.add %x, %half : ({T}, tensor<1xf32>) -> {T}"""
    module = parse(func(body, "sum", f"%x: {T}"))
    assert (wildcard() + is_constant(0.0)).match(value(module, "sum")) is None
    assert is_constant().match(module.body.block.ops.first.body.block.args[0]) is None


OPAQUE = f"""
  %a, %b = nn.opaque %x {{op_type = "Split"}} : ({T}) -> ({T}, {T})
  %r = nn.relu %b : ({T}) -> {T}
"""


def test_match_result_index(parse, value):
    module = parse(func(OPAQUE, "r", f"%x: {T}"))
    split = is_op("nn.opaque")(wildcard()).has_attr({"op_type": "Split"})
    second = is_op("relu")(is_tuple_get_item(is_op("nn.opaque")(wildcard()), 1))
    assert second.match(value(module, "r")) is not None
    assert is_op("relu")(split.result(1)).match(value(module, "r")) is not None


def test_no_match_result_index(parse, value):
    module = parse(func(OPAQUE, "r", f"%x: {T}"))
    opaque = is_op("nn.opaque")(wildcard())
    assert is_op("relu")(is_tuple_get_item(opaque, 0)).match(value(module, "r")) is None
    assert is_op("relu")(opaque).match(value(module, "r")) is None, (
        "result #1 is not the op's value"
    )


DIAMOND = (
    CONV
    + f"""  %relu = nn.relu %bias : ({T}) -> {T}
  %tanh = nn.tanh %relu : ({T}) -> {T}
  %sum = nn.add %bias, %tanh : ({T}, {T}) -> {T}
"""
)
UNARY = is_op("relu", "tanh", "sigmoid")(wildcard())


def diamond_pattern():
    parent = is_op("nn.add")(is_op("conv")(wildcard(), wildcard()), is_constant())
    return parent, dominates(parent, UNARY, is_op("nn.add")(wildcard(), wildcard()))


def test_match_diamond_dominates(parse, value):
    module = parse(func(DIAMOND, "sum"))
    parent, pattern = diamond_pattern()
    match = pattern.match(value(module, "sum"))
    assert match is not None and match[parent] is value(module, "bias")
    assert {op.name for op in match.paths[pattern]} == {"nn.relu", "nn.tanh"}


def test_no_match_diamond_dominates(parse, value):
    module = parse(func(DIAMOND.replace("nn.tanh", "nn.exp"), "sum"))
    assert diamond_pattern()[1].match(value(module, "sum")) is None


def test_match_dominates_long_chain():
    """10,000 relus after a conv: the dominator walk iterates, it does not recurse."""
    data = TensorType(f32, [1, 3, 8, 8])
    function = FuncOp("f", ([data], [data]))
    weights = ConstantOp.from_array(np.ones((3, 3, 1, 1), np.float32))
    ops = [weights, ConvOp.create_inferred([function.body.block.args[0], weights])]
    for _ in range(10_000):
        ops.append(ReluOp.create_inferred([ops[-1]]))
    function.body.block.add_ops(ops)
    pattern = dominates(is_op("conv")(wildcard(), wildcard()), UNARY, UNARY)
    match = pattern.match(ops[-1].results[0])
    assert match is not None and len(match.paths[pattern]) == 9_999
    assert pattern.match(ops[1].results[0]) is None


def test_match_commutative(parse, value):
    body = CONV.replace(
        f"nn.add %conv, %b : ({T}, tensor<4x1x1xf32>)",
        f"nn.add %b, %conv : (tensor<4x1x1xf32>, {T})",
    )
    module = parse(func(body, "bias"))
    conv = is_op("conv")(wildcard(), wildcard())
    assert (conv + is_constant()).match(value(module, "bias")) is not None


def test_no_match_commutative_turned_off_or_not_commutative(parse, value):
    body = CONV.replace(
        f"nn.add %conv, %b : ({T}, tensor<4x1x1xf32>)",
        f"nn.add %b, %conv : (tensor<4x1x1xf32>, {T})",
    )
    body += f"  %diff = nn.sub %b, %conv : (tensor<4x1x1xf32>, {T}) -> {T}"
    module = parse(func(body, "diff"))
    conv = is_op("conv")(wildcard(), wildcard())
    add = is_op("nn.add", commutative=False)(conv, is_constant())
    assert add.match(value(module, "bias")) is None
    assert (conv - is_constant()).match(value(module, "diff")) is None


VARIADIC = f"""
  %c = nn.opaque %x, %y, %z {{op_type = "Concat"}} : ({T}, {T}, {T}) -> tensor<3x4x6x6xf32>
"""


def test_match_variadic_inputs(parse, value):
    module = parse(f"""func.func @f(%x: {T}, %y: {T}, %z: {T}) -> tensor<3x4x6x6xf32> {{
{VARIADIC}
  func.return %c : tensor<3x4x6x6xf32>
}}""")
    c = value(module, "c")
    assert is_op("nn.opaque")(None).match(c) is not None
    assert is_op("nn.opaque").match(c) is not None
    assert is_op("nn.opaque")(wildcard(), None).match(c) is not None
    assert is_op("nn.opaque")(wildcard(), wildcard(), wildcard()).match(c) is not None


def test_no_match_variadic_inputs(parse, value):
    module = parse(f"""func.func @f(%x: {T}, %y: {T}, %z: {T}) -> tensor<3x4x6x6xf32> {{
{VARIADIC}
  func.return %c : tensor<3x4x6x6xf32>
}}""")
    c = value(module, "c")
    assert is_op("nn.opaque")(wildcard(), wildcard()).match(c) is None
    assert (
        is_op("nn.opaque")(wildcard(), wildcard(), wildcard(), wildcard(), None).match(
            c
        )
        is None
    )
    x = wildcard()
    assert is_op("nn.opaque")(x, x, None).match(c) is None, "x cannot bind two values"


def test_match_use_counts(parse, value):
    module = parse(func(CONV, "bias"))
    conv = is_op("conv")(wildcard(), wildcard())
    assert (conv.has_uses(1) + is_constant()).match(value(module, "bias"))
    assert (conv.only_used_by_pattern() + is_constant()).match(value(module, "bias"))


def test_no_match_use_counts(parse, value):
    body = CONV + f"  %twice = nn.add %bias, %conv : ({T}, {T}) -> {T}"
    module = parse(func(body, "twice"))
    conv = is_op("conv")(wildcard(), wildcard())
    assert (conv.has_uses(1) + is_constant()).match(value(module, "bias")) is None
    assert (conv.only_used_by_pattern() + is_constant()).match(
        value(module, "bias")
    ) is None


IDENTITY = f"""
  %w = nn.constant dense<1.0> : tensor<4x3x3x3xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> {T}
  %id = nn.identity %conv : ({T}) -> {T}
  %sg = nn.stop_gradient %id : ({T}) -> {T}
  %relu = nn.relu %sg : ({T}) -> {T}
"""


def test_match_skip_identity(parse, value):
    module = parse(func(IDENTITY, "relu"))
    conv = is_op("conv")(wildcard(), wildcard())
    match = is_op("relu")(conv).match(value(module, "relu"), skip_identity=True)
    assert match is not None and match[conv] is value(module, "conv")
    assert {op.name for op in match.region} >= {"nn.identity", "nn.stop_gradient"}


def test_no_match_skip_identity_off(parse, value):
    module = parse(func(IDENTITY, "relu"))
    pattern = is_op("relu")(is_op("conv")(wildcard(), wildcard()))
    assert pattern.match(value(module, "relu")) is None


def test_match_all_finds_every_root(parse):
    body = (
        CONV
        + f"  %relu = nn.relu %bias : ({T}) -> {T}\n  %r2 = nn.relu %relu : ({T}) -> {T}"
    )
    module = parse(func(body, "r2"))
    roots = [m.root.name_hint for m in match_all(is_op("relu")(wildcard()), module)]
    assert roots == ["relu", "r2"]


def test_explain_names_failing_sub_pattern(parse, value):
    body = CONV + f"  %relu = nn.relu %bias : ({T}) -> {T}"
    module = parse(func(body, "relu"))
    pattern = is_op("relu")(is_op("conv")(wildcard(), wildcard()))
    text = explain(pattern, value(module, "relu").op)
    assert "operand #0 does not match" in text
    assert "op is nn.add, expected nn.conv" in text
    assert "matches" in explain(is_op("relu")(wildcard()), value(module, "relu").op)


def test_is_op_rejects_misplaced_variadic_marker():
    with pytest.raises(ValueError, match="only the last"):
        is_op("nn.add")(None, wildcard())


CAST = f"""
  %h = nn.cast %x {{to = f16}} : ({T}) -> tensor<1x4x6x6xf16>
  %m = nn.max_pool %x {{kernel_shape = array<i64: 1, 1>}} : ({T}) -> {T}
"""


def test_match_attribute_implicit_default(parse, value):
    """An absent property means what the op reads it as: a conv without data_layout is NCHW."""
    module = parse(func(CONV, "bias"))
    conv = value(module, "conv")
    assert has_attr({"data_layout": "NCHW"}).match(conv)
    assert has_attr({"group": 1, "auto_pad": "NOTSET"}).match(conv)
    module = parse(func(CAST, "m", f"%x: {T}"))
    assert has_attr({"data_layout": "NCHW"}).match(value(module, "m"))


def test_no_match_attribute_implicit_default(parse, value):
    module = parse(func(CONV, "bias"))
    conv = value(module, "conv")
    assert has_attr({"data_layout": "NHWC"}).match(conv) is None
    assert has_attr({"group": 2}).match(conv) is None
    assert has_attr({"strides": [1, 1]}).match(conv) is None, (
        "strides has no single default (it depends on the rank)"
    )


def test_match_attribute_dtype_string(parse, value):
    """TVM writes dtypes as strings: {"to": "float16"} compares with an MLIR type."""
    module = parse(func(CAST, "m", f"%x: {T}"))
    assert (
        is_op("cast")(wildcard()).has_attr({"to": "float16"}).match(value(module, "h"))
    )
    assert has_attr({"to": np.float16}).match(value(module, "h"))


def test_no_match_attribute_dtype_string(parse, value):
    module = parse(func(CAST, "m", f"%x: {T}"))
    h = value(module, "h")
    assert has_attr({"to": "float32"}).match(h) is None
    assert has_attr({"to": "not_a_dtype"}).match(h) is None
    assert has_attr({"to": 16}).match(h) is None


def add_ladder(length: int, rungs_to_conv: bool = True):
    """conv, then `length` adds, each of the previous add and (the conv or the add before)."""
    data = TensorType(f32, [1, 3, 8, 8])
    function = FuncOp("f", ([data], [data]))
    weights = ConstantOp.from_array(np.ones((3, 3, 1, 1), np.float32))
    conv = ConvOp.create_inferred([function.body.block.args[0], weights])
    ops, before, last = [weights, conv], conv, conv
    for _ in range(length):
        add = AddOp.create_inferred([last, conv if rungs_to_conv else before])
        ops.append(add)
        before, last = last, add
    function.body.block.add_ops(ops)
    return function, ops


def test_match_all_dominates_ladder_visits_each_op_once():
    """Every add of the ladder matches; each value's dominator is found once, not once per root."""
    function, ops = add_ladder(300, rungs_to_conv=False)
    visits = []
    path = is_op("add")(wildcard(), wildcard()).where(
        lambda v: visits.append(v) or True, "counted"
    )
    pattern = dominates(is_op("conv")(wildcard(), wildcard()), path, path)
    matches = match_all(pattern, function)
    assert len(matches) == 300
    assert len(matches[-1].paths[pattern]) == 299
    assert len(visits) < 3 * 300, f"{len(visits)} path checks: quadratic"


def test_no_match_dominates_two_parents():
    """Two different convs reach the add: neither dominates it."""
    data = TensorType(f32, [1, 3, 8, 8])
    function = FuncOp("f", ([data], [data]))
    weights = ConstantOp.from_array(np.ones((3, 3, 1, 1), np.float32))
    x = function.body.block.args[0]
    convs = [ConvOp.create_inferred([x, weights]) for _ in range(2)]
    relus = [ReluOp.create_inferred([c]) for c in convs]
    add = AddOp.create_inferred(relus)
    function.body.block.add_ops([weights, *convs, *relus, add])
    pattern = dominates(is_op("conv")(wildcard(), wildcard()), UNARY, is_op("add"))
    assert pattern.match(add.results[0]) is None
    assert "two parents" in explain(pattern, add)
