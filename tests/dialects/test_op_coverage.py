"""Every nn op is covered, or declared not covered, by the interpreter, ONNX
import and export, TensorFlow import and export and the TOSA lowering.

The coverage is read from the registries (graph_opt/testing/op_coverage.py);
the ops a column does not cover are declared, with a reason, in its
`NOT_COVERED`. A new op fails here until each column covers it or declares why not.
"""

from __future__ import annotations

from xdsl.ir import Operation

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    FloatTestOp,
    IsInfOp,
    IsNanOp,
    ReluOp,
    SubOp,
)
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.testing import op_coverage
from graph_opt.testing.op_coverage import (
    COLUMNS,
    NOT_COVERED,
    coverage,
    matched_ops,
    named_ops,
    nn_ops,
)


def test_every_op_is_covered_or_declared():
    undeclared = [
        f"{op} has no {column}: add it, or declare why in NOT_COVERED"
        for op, columns in coverage().items()
        for column, covered in columns.items()
        if not covered and column not in NOT_COVERED.get(op, {})
    ]
    assert not undeclared, "\n".join(undeclared)


def test_every_op_has_an_interpreter_implementation():
    missing = [op for op, columns in coverage().items() if not columns["interpreter"]]
    declared = [op for op in missing if "interpreter" in NOT_COVERED.get(op, {})]
    assert missing == declared, f"no interpreter implementation: {missing}"


def test_no_declaration_is_stale():
    table = coverage()
    stale = []
    for op, columns in NOT_COVERED.items():
        if op not in table:
            stale.append(f"{op} is no longer an nn op")
            continue
        for column, reason in columns.items():
            if column not in COLUMNS:
                stale.append(f"{op}: unknown column {column!r}")
            elif table[op][column]:
                stale.append(f"{op} now has {column}: remove it from NOT_COVERED")
            elif not reason.strip():
                stale.append(f"{op}: no reason given for {column}")
    assert not stale, "\n".join(stale)


def test_every_column_covers_ops():
    # A registry read wrongly (a renamed table, a moved module) shows as a
    # column that covers nothing, which NOT_COVERED would then have to list.
    table = coverage()
    for column in COLUMNS:
        covered = [op for op, columns in table.items() if columns[column]]
        assert len(covered) > len(nn_ops()) // 2, column


def test_the_dialect_lists_each_op_once():
    names = [op.name for op in nn_ops()]
    assert len(names) == len(set(names))
    assert set(coverage()) == set(names)


# --- reading the registries ---------------------------------------------------


def _helper(b):
    return b.create(SubOp)


TABLE = {ReluOp: "Relu"}


def test_named_ops_follows_globals_closures_helpers_and_tables():
    from graph_opt.dialects.nn import elementwise as ew

    def through_module(b):
        return b.create(ew.AddOp)

    def through_helper(b):
        return _helper(b)

    def through_table(b):
        return TABLE

    def make(op_class: type[Operation]):
        def through_closure(b):
            return b.create(op_class)

        return through_closure

    here = (__name__.split(".")[0],)
    assert named_ops([through_module]) == {AddOp}
    assert named_ops([through_helper], packages=here) == {SubOp}
    assert named_ops([through_helper]) == set()  # _helper is not graph_opt's
    assert named_ops([through_table]) == {ReluOp}
    assert named_ops([make(SoftmaxOp)]) == {SoftmaxOp}


def test_named_ops_without_an_op():
    def no_op(b, node):
        return node.name

    assert named_ops([no_op]) == set()


def pattern_forms(op, other):
    if isinstance(op, AddOp | SubOp):
        return
    if type(op) in TABLE:
        return
    if type(op) is ConstantOp:
        return
    match op:
        case SoftmaxOp():
            return
    if isinstance(other, op_coverage.Operation):  # another value: not a match
        return


def test_matched_ops_reads_each_form_of_match():
    assert matched_ops(pattern_forms) == {AddOp, SubOp, ReluOp, ConstantOp, SoftmaxOp}


def test_matched_ops_reads_a_base_class_and_an_annotation():
    def by_base(op):
        return isinstance(op, FloatTestOp)

    def by_annotation(self, op: SoftmaxOp, rewriter):
        return None

    assert {IsNanOp, IsInfOp} <= matched_ops(by_base)
    assert AddOp not in matched_ops(by_base)
    assert matched_ops(by_annotation) == {SoftmaxOp}


def test_negative_matched_ops_of_a_function_matching_nothing():
    def no_match(op, rewriter):
        return op.operands

    assert matched_ops(no_match) == set()


def test_the_docs_page_has_a_row_per_op_and_each_reason():
    page = op_coverage.coverage_page()
    for op in coverage():
        assert f"| `{op}` | " in page
    for op, columns in NOT_COVERED.items():
        for column, reason in columns.items():
            assert f"| `{op}` | {column} | {reason} |" in page


def test_matched_ops_reads_through_op_type_rewrite_pattern():
    from xdsl.pattern_rewriter import RewritePattern, op_type_rewrite_pattern

    class Pattern(RewritePattern):
        @op_type_rewrite_pattern
        def match_and_rewrite(self, op: SoftmaxOp, rewriter):
            return None

    assert matched_ops(Pattern.match_and_rewrite) == {SoftmaxOp}
