"""`--verify-numerics`: the first pass that changes the numbers, named with the value."""

import ml_dtypes
import numpy as np
import pytest
from toolkit_support import BROKEN, graph_opt

from graph_opt import api, plugins
from graph_opt.driver.verify_numerics import (
    NumericCheck,
    NumericsChanged,
    differs,
    run,
)

CHAIN = """func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32> {nn.name = "y"}) {
  %c = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = nn.sub %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = nn.tanh %s : (tensor<4xf32>) -> tensor<4xf32>
  func.return %t : tensor<4xf32>
}
"""


@pytest.fixture(autouse=True)
def broken_passes():
    plugins.load_plugin(str(BROKEN))


def test_names_the_pass_the_output_and_the_first_differing_value(tmp_path):
    (tmp_path / "in.mlir").write_text(CHAIN)
    result = graph_opt(
        "in.mlir",
        "--load-pass-plugin",
        BROKEN,
        "-p",
        "cse,sub-const-to-add,dce",
        "--verify-numerics",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    warning, line = result.stderr.splitlines()
    assert warning == "graph-opt: warning: cse: found no common subexpression"
    assert "pass 'sub-const-to-add' changed the numbers: output 'y'" in line
    assert "first differing value: %s (nn.add)" in line


def test_correct_passes_pass_and_print_the_module(tmp_path):
    (tmp_path / "in.mlir").write_text(CHAIN)
    result = graph_opt(
        "in.mlir",
        "-p",
        "cse,fold-constants,prune,dce",
        "--verify-numerics=1e-6",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "nn.tanh" in result.stdout


def test_given_inputs_and_samples(tmp_path):
    (tmp_path / "in.mlir").write_text(CHAIN)
    # Negative inputs: relu gives 0, and x + c != x - c still.
    np.savez(tmp_path / "s.npz", x=-np.ones((3, 4), np.float32))
    result = graph_opt(
        "in.mlir",
        "--load-pass-plugin",
        BROKEN,
        "-p",
        "sub-const-to-add",
        "--verify-numerics",
        "--inputs",
        "s.npz",
        "--verify-numerics-samples",
        "2",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "pass 'sub-const-to-add' changed the numbers" in result.stderr


def test_inputs_without_verify_numerics_is_an_error(tmp_path):
    (tmp_path / "in.mlir").write_text(CHAIN)
    result = graph_opt("in.mlir", "--inputs", "s.npz", cwd=tmp_path)
    assert result.returncode == 1 and "--verify-numerics" in result.stderr


def test_api_raises_at_the_broken_pass():
    module = api.parse(CHAIN)
    with pytest.raises(NumericsChanged) as raised:
        api.run(module, "cse,sub-const-to-add,dce", verify_numerics=True)
    assert raised.value.pass_name == "sub-const-to-add"
    assert raised.value.first_value.startswith("%s (nn.add)")


def test_api_with_a_loose_tolerance_accepts():
    module = api.parse(CHAIN)
    api.run(module, "sub-const-to-add", verify_numerics=100.0)


def test_an_invalid_result_type_is_reported():
    module = api.parse(
        CHAIN.replace(
            "dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>", "dense<1.0> : tensor<1xf32>"
        ).replace("(tensor<4xf32>, tensor<4xf32>)", "(tensor<4xf32>, tensor<1xf32>)")
    )
    with pytest.raises(Exception, match="operands imply tensor<4xf32>"):
        api.run(module, "sub-const-to-add-bad-type", verify_numerics=True)


def test_skip_ops_leaves_the_module_unchecked():
    module = api.parse(CHAIN)
    with pytest.warns(UserWarning, match="not checked while the module holds nn.tanh"):
        api.run(
            module,
            "sub-const-to-add",
            verify_numerics=NumericCheck(skip_ops=frozenset({"nn.tanh"})),
        )


def test_time_limit_stops_checking():
    module = api.parse(CHAIN)
    with pytest.warns(UserWarning, match="time limit of 0 s"):
        api.run(
            module, "cse,sub-const-to-add", verify_numerics=NumericCheck(time_limit=0)
        )


def test_dynamic_dims_are_evaluated_at_one():
    module = api.parse(
        CHAIN.replace("%x: tensor<4xf32>", "%x: tensor<?xf32>").replace(
            "%a = nn.relu %x : (tensor<4xf32>)", "%a = nn.relu %x : (tensor<?xf32>)"
        )
    )
    with pytest.raises(NumericsChanged):
        api.run(module, "sub-const-to-add", verify_numerics=True)


def test_a_module_the_interpreter_cannot_run_is_not_checked():
    text = CHAIN.replace(
        "%t = nn.tanh %s : (tensor<4xf32>) -> tensor<4xf32>",
        '%t = "test.op"(%s) : (tensor<4xf32>) -> tensor<4xf32>',
    )
    module = api.parse(text)
    with pytest.warns(UserWarning, match="the interpreter cannot run the module"):
        api.run(module, "sub-const-to-add", verify_numerics=True)


def BF16(values):
    return np.array(values, ml_dtypes.bfloat16)


SPLIT = """func.func @f(%x: tensor<3xf32>) -> !nn.sequence<tensor<*xf32>> {
  %s = nn.constant dense<[1, 2]> : tensor<2xi64>
  %0 = nn.opaque %x, %s {op_type = "SplitToSequence"} : (tensor<3xf32>, tensor<2xi64>) -> !nn.sequence<tensor<*xf32>>
  func.return %0 : !nn.sequence<tensor<*xf32>>
}
"""


def test_a_sequence_output_is_a_list_of_its_items():
    module = api.parse(SPLIT)
    (items,) = run(module, module.body.block.first_op, [np.float32([1, 2, 3])])
    assert [i.tolist() for i in items] == [[1.0], [2.0, 3.0]]


@pytest.mark.parametrize(
    "expected, actual, differ",
    [
        (np.float32([1, 2]), np.float32([1, 2.00001]), False),
        (np.float32([1000, 2]), np.float32([1000.05, 2]), False),  # relative
        (np.float32([1, 2]), np.float32([1, 2.1]), True),
        (np.float32([np.nan, 1]), np.float32([np.nan, 1]), False),
        (np.float32([np.nan, 1]), np.float32([0, 1]), True),
        (np.float32([np.inf]), np.float32([np.inf]), False),
        (np.int64([1, 2]), np.int64([1, 3]), True),
        (np.float32([1, 2]), np.float32([1, 2, 3]), True),
        (BF16([np.nan, 1]), BF16([np.nan, 1]), False),  # a float: NaN equals NaN
        (BF16([1000, 2]), BF16([1000.05, 2]), False),
        (
            [np.float32([1]), np.float32([1, 2])],
            [np.float32([1]), np.float32([1, 2])],
            False,
        ),
        (
            [np.float32([1]), np.float32([1, 2])],
            [np.float32([1]), np.float32([1, 3])],
            True,
        ),
        ([np.float32([1])], [np.float32([1]), np.float32([1])], True),
        ([np.float32([1])], np.float32([[1]]), True),
        (None, None, False),
        (None, np.float32([1]), True),
    ],
)
def test_differs(expected, actual, differ):
    assert (differs(expected, actual, 1e-4) is not None) == differ
