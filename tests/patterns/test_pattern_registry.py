import pytest

from graph_opt.passes import get_all_passes
from graph_opt.patterns.pattern import DFPattern
from graph_opt.patterns.registry import PATTERNS, get_pattern


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_registered_patterns_build(name):
    pattern = get_pattern(name)
    assert isinstance(pattern, DFPattern) and pattern.root_names


def test_unknown_pattern_is_a_one_line_error():
    with pytest.raises(
        ValueError, match="unknown pattern 'nope'; known patterns: conv-bias-relu"
    ):
        get_pattern("nope")


def test_partition_pass_is_registered():
    assert get_all_passes()["partition-pattern"]().name == "partition-pattern"
