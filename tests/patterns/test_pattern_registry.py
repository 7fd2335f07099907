from importlib.metadata import EntryPoint

import pytest

from graph_opt import api
from graph_opt.passes import get_all_passes
from graph_opt.patterns import is_op, registry, wildcard
from graph_opt.patterns.pattern import DFPattern
from graph_opt.patterns.registry import (
    PATTERNS,
    PatternRegistryError,
    get_pattern,
    load_patterns,
    register_pattern,
)


@pytest.fixture(autouse=True)
def clean_registry(monkeypatch):
    monkeypatch.setattr(registry, "_user_patterns", {})
    monkeypatch.setattr(registry, "_loaded", {})


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


def test_register_pattern_keeps_an_op_pattern_whole():
    """An is_op pattern is callable (it builds call patterns): it is still the pattern."""
    relu = is_op("relu")
    register_pattern("any-relu", relu)
    assert get_pattern("any-relu") is relu


def test_register_pattern_takes_a_factory():
    register_pattern("relu-of-any", lambda: is_op("relu")(wildcard()))
    assert get_pattern("relu-of-any").root_names == {"nn.relu"}


def test_register_pattern_refuses_other_values():
    with pytest.raises(PatternRegistryError, match="is a int, not a DFPattern"):
        register_pattern("bad", 3)  # type: ignore[arg-type]
    register_pattern("builds-a-string", lambda: "relu")
    with pytest.raises(PatternRegistryError, match="built a str, not a DFPattern"):
        get_pattern("builds-a-string")


def test_entry_point_patterns(monkeypatch):
    entry = EntryPoint(
        name="ep-double-relu",
        value="graph_opt.patterns.library:double_relu",
        group=registry.ENTRY_POINT_GROUP,
    )
    broken = EntryPoint(
        name="ep-broken", value="no_such_module_x:p", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "entry_points", lambda group: [entry, broken])
    registry._entry_point_patterns.cache_clear()
    try:
        assert str(get_pattern("ep-double-relu")) == str(get_pattern("double-relu"))
        with pytest.raises(
            PatternRegistryError,
            match="pattern entry point ep-broken = no_such_module_x",
        ):
            get_pattern("ep-broken")
    finally:
        registry._entry_point_patterns.cache_clear()


def test_load_patterns_from_a_file(tmp_path):
    module = tmp_path / "mine.py"
    module.write_text(
        "from graph_opt.patterns import is_op, wildcard\n"
        "from graph_opt.patterns.registry import register_pattern\n"
        "register_pattern('mine', is_op('tanh')(wildcard()))\n"
    )
    assert load_patterns(str(module)) == ["mine"]
    assert load_patterns(str(module)) == ["mine"], "loading twice is harmless"
    assert get_pattern("mine").root_names == {"nn.tanh"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n", "registers no pattern"),
        ("PATTERNS = [1]\n", "PATTERNS is a list, not a dict"),
        ("import no_such_module_y\n", "ModuleNotFoundError"),
    ],
)
def test_load_patterns_bad_module_is_one_line(tmp_path, text, message):
    module = tmp_path / f"bad_{abs(hash(text))}.py"
    module.write_text(text)
    with pytest.raises(PatternRegistryError, match=message) as error:
        load_patterns(str(module))
    assert "\n" not in str(error.value)


def test_api_registered_pattern_drives_partition(parse):
    api.register_pattern("tanh-relu", is_op("relu")(is_op("tanh")(wildcard())))
    module = parse(
        """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %r = nn.relu %t : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}"""
    )
    api.run(module, "partition-pattern{pattern=tanh-relu}")
    assert "func.call @tanh_relu_0" in api.to_mlir(module)
