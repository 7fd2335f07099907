"""The pass registry: every name maps to a pass class of that name with a summary."""

import pytest

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
