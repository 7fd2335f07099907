"""partition(): outlined composites, the check predicate, overlap and numerics."""

import numpy as np
import pytest
from xdsl.dialects import func

from graph_opt.interpreter import run_function
from graph_opt.patterns import is_constant, is_op, partition, wildcard
from graph_opt.patterns.library import conv_bias_relu

CHAIN = """func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %w = nn.constant dense<0.25> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<-0.5> : tensor<4x1x1xf32>
  %w2 = nn.constant dense<0.125> : tensor<4x4x3x3xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %conv2 = nn.conv %relu, %w2 : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %bias2 = nn.add %conv2, %b : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %bias2 : tensor<1x4x4x4xf32>
}"""


def outlined(module):
    return [
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_visibility
    ]


def test_partition_keeps_results(parse):
    module = parse(CHAIN)
    inputs = [np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)]
    before = run_function(module, inputs, "main")[0]
    functions = partition(module, conv_bias_relu(), {"composite": "cbr"})
    module.verify()
    assert [f.sym_name.data for f in functions] == ["cbr_0", "cbr_1"]
    assert all(f.attributes["composite"].data == "cbr" for f in functions)
    np.testing.assert_allclose(
        run_function(module, inputs, "main")[0], before, rtol=1e-6
    )


def test_partition_check_rejects(parse):
    module = parse(CHAIN)
    conv = is_op("conv")(wildcard(), wildcard())
    pattern = conv + is_constant()
    only_first = partition(
        module, pattern, {"composite": "cb"}, lambda m: m[conv].type.get_shape()[2] == 6
    )
    assert (
        len(only_first) == 1
        and only_first[0].function_type.outputs.data[0].get_shape()[2] == 6
    )
    assert len(outlined(module)) == 1


def test_no_partition_of_overlapping_matches(parse):
    module = parse(CHAIN)
    pattern = is_op("relu")(wildcard()) | is_op("conv")(
        is_op("relu")(wildcard()), wildcard()
    )
    functions = partition(module, pattern, {"composite": "p"})
    assert len(functions) == 1, (
        "the relu belongs to the conv2 partition, not to a second one"
    )
    assert [op.name for op in functions[0].body.block.ops] == [
        "nn.relu",
        "nn.conv",
        "func.return",
    ]


def test_partition_marks_outlined_functions(parse):
    module = parse(CHAIN)
    functions = partition(module, conv_bias_relu(), {"composite": "cbr"})
    assert [f.attributes["PartitionedFromPattern"].data for f in functions] == [
        "nn.conv_nn.add_nn.relu_",
        "nn.conv_nn.add_",
    ]


def test_partition_is_idempotent(parse):
    """Partitioning again must not outline matches inside earlier partitions."""
    module = parse(CHAIN)
    conv_bias = is_op("conv")(wildcard(), wildcard()) + wildcard()
    assert len(partition(module, conv_bias, {"composite": "cb"})) == 2
    text = str(module)
    assert partition(module, conv_bias, {"composite": "cb"}) == []
    assert str(module) == text


def test_no_partition_inside_partitions_of_another_pattern(parse):
    module = parse(CHAIN)
    partition(module, conv_bias_relu(), {"composite": "conv_bias_relu"})
    text = str(module)
    conv_bias = is_op("conv")(wildcard(), wildcard()) + wildcard()
    assert partition(module, conv_bias, {"composite": "cb"}) == []
    assert str(module) == text


def test_partition_embeds_constants(parse):
    module = parse(CHAIN)
    inputs = [np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)]
    before = run_function(module, inputs, "main")[0]
    functions = partition(
        module, conv_bias_relu(), {"composite": "cbr"}, embed_constants=True
    )
    module.verify()
    assert [len(f.body.block.args) for f in functions] == [1, 1], "only the data"
    assert [o.name for o in functions[0].body.block.ops][:2] == ["nn.constant"] * 2
    main = module.body.block.ops.first
    assert [o.name for o in main.body.block.ops] == [
        "func.call",
        "func.call",
        "func.return",
    ], "constants nothing else reads leave the caller"
    np.testing.assert_allclose(
        run_function(module, inputs, "main")[0], before, rtol=1e-6
    )


def test_no_partition_embedding_constants_by_default(parse):
    module = parse(CHAIN)
    functions = partition(module, conv_bias_relu(), {"composite": "cbr"})
    assert [len(f.body.block.args) for f in functions] == [3, 3]
    assert not any(o.name == "nn.constant" for f in functions for o in f.body.block.ops)


ESCAPING = """func.func @main(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %w = nn.constant dense<0.25> : tensor<4x3x3x3xf32>
  %b = nn.constant dense<-0.5> : tensor<4x1x1xf32>
  %conv = nn.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %bias = nn.add %conv, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %relu = nn.relu %bias : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %relu, %conv : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}"""


def test_partition_duplicates_escaping_interior_when_asked(parse):
    """TVM's policy: the match is outlined; the conv that main also returns stays there too."""
    module = parse(ESCAPING)
    inputs = [np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)]
    before = run_function(module, inputs, "main")
    functions = partition(
        module, conv_bias_relu(), {"composite": "cbr"}, escaping="duplicate"
    )
    module.verify()
    assert len(functions) == 1
    main = module.body.block.ops.first
    assert [o.name for o in main.body.block.ops if o.name.startswith("nn.")] == [
        "nn.constant",
        "nn.constant",
        "nn.conv",
    ]
    for after, expected in zip(run_function(module, inputs, "main"), before):
        np.testing.assert_allclose(after, expected, rtol=1e-6)


def test_no_partition_of_escaping_interior_by_default(parse):
    """graph-opt's default: a match whose conv is also returned is left whole, nothing computed twice."""
    module = parse(ESCAPING)
    text = str(module)
    assert partition(module, conv_bias_relu(), {"composite": "cbr"}) == []
    assert str(module) == text
    with pytest.raises(ValueError, match="escaping must be 'skip' or 'duplicate'"):
        partition(module, conv_bias_relu(), escaping="copy")
