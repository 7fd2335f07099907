"""The pass registry: every name maps to a pass class of that name with a summary."""

import importlib
import inspect
from pathlib import Path

import pytest

import graph_opt
from graph_opt.passes import XDSL_PASS_OVERRIDES, get_all_passes
from graph_opt.tools.pass_docs import summary

PASSES = {**get_all_passes(), **XDSL_PASS_OVERRIDES}


@pytest.mark.parametrize("name", sorted(PASSES))
def test_registered_name_is_the_pass_name(name):
    pass_class = PASSES[name]()
    assert pass_class.name == name


@pytest.mark.parametrize("name", sorted(PASSES))
def test_pass_has_a_docstring_summary(name):
    pass_class = PASSES[name]()
    # A dataclass without a docstring gets its signature as __doc__.
    assert summary(pass_class)
    assert not summary(pass_class).startswith(f"{pass_class.__name__}(")


def test_fold_bn_is_registered():
    assert "fold-bn" in PASSES


# Where a newcomer looks for a pass named `fold-bn`: graph_opt/passes/fold_bn.py,
# or the package graph_opt/passes/fold_bn/ (the pass in fold_bn/fold_bn.py);
# its lit test tests/filecheck/passes/fold-bn*.mlir, its pytest files
# tests/passes/test_fold_bn*.py.
ROOT = Path(graph_opt.__file__).resolve().parents[1]
PASSES_DIR = ROOT / "graph_opt" / "passes"
# The lowering layer's pass lives with its patterns in graph_opt/lowering/.
LOWERING = {"lower-to-tosa"}
# Passes whose pytest tests sit with the code the pass drives.
PYTEST_ELSEWHERE = {
    "calibrate": "tests/passes/test_quantize.py",  # calibration feeds quantize
    "partition-pattern": "tests/patterns/test_partition.py",  # the pattern language's partition()
}
# Not passes: shared patterns, the xDSL pass overrides, the registry.
NOT_PASSES = {"__init__", "common", "xdsl_passes"}


def snake(name):
    return name.replace("-", "_")


@pytest.mark.parametrize("name", sorted(set(get_all_passes()) - LOWERING))
def test_pass_lives_under_its_name(name):
    pass_class = get_all_passes()[name]()
    where = Path(inspect.getfile(pass_class)).resolve().relative_to(PASSES_DIR)
    assert where.as_posix() in (f"{snake(name)}.py", f"{snake(name)}/{snake(name)}.py")
    package = importlib.import_module(f"graph_opt.passes.{snake(name)}")
    assert getattr(package, pass_class.__name__) is pass_class


def test_passes_holds_only_passes_at_top_level():
    names = {snake(name) for name in get_all_passes()}
    loose = {
        p.stem
        for p in PASSES_DIR.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").exists()
    }
    assert loose - NOT_PASSES <= names, sorted(loose - NOT_PASSES - names)


@pytest.mark.parametrize("name", sorted(set(get_all_passes()) - LOWERING))
def test_pass_tests_are_named_after_it(name):
    filecheck = ROOT / "tests" / "filecheck" / "passes"
    assert (filecheck / f"{name}.mlir").is_file() or (filecheck / name).is_dir()
    tests = ROOT / "tests" / "passes"
    if name in PYTEST_ELSEWHERE:
        assert (ROOT / PYTEST_ELSEWHERE[name]).is_file()
    else:
        assert list(tests.glob(f"test_{snake(name)}*.py"))


def test_lowering_pass_lives_in_the_lowering_layer():
    for name in LOWERING:
        where = Path(inspect.getfile(get_all_passes()[name]()))
        assert where.resolve().parent == ROOT / "graph_opt" / "lowering"
