"""Pass statistics are declared on the pass, as MLIR's `Statistic`: every count
a pass (or a helper or pattern it runs) records is declared on its class with
a description, read from the source and seen while running each pass over
its FileCheck inputs; one not declared is still shown, and warned about."""

import ast
import re
import shlex
import warnings
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from graph_opt import api
from graph_opt.passes import get_all_passes
from graph_opt.statistics import (
    collecting,
    count,
    declared_statistics,
    description,
    record,
)
from graph_opt.tools.pass_reference import (
    STATISTIC_FUNCTIONS,
    _statistic_key,
    filecheck_tests,
    reported_statistics,
)

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "tests" / "filecheck" / "inputs"
PASSES = sorted(get_all_passes())
FIELD = re.compile(r"\{[^{}]*\}")


def _may_be(key: str, declared: dict[str, str]) -> bool:
    """Whether a key read from source (its `{...}` parts unknown) can be an
    instance of a declared name, or a declared name an instance of it."""
    as_text = FIELD.sub("x", key)
    as_pattern = re.compile(".+".join(re.escape(p) for p in FIELD.split(key)))
    return description(as_text, declared) is not None or any(
        as_pattern.fullmatch(FIELD.sub("x", name)) for name in declared
    )


@pytest.mark.parametrize("name", PASSES)
def test_every_count_in_a_pass_source_is_declared_on_it(name):
    pass_class = get_all_passes()[name]()
    declared = declared_statistics(pass_class)
    for key in reported_statistics(pass_class):
        assert _may_be(key, declared), (name, key)
    for key, text in declared.items():
        assert text and text[0].isupper() and not text.endswith("."), (name, key)


def _recorded_keys() -> list[tuple[str, str]]:
    """(module path, key) of every `record`/`count` call in graph_opt."""
    found = []
    for path in sorted((ROOT / "graph_opt").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in STATISTIC_FUNCTIONS
                and node.args
            ):
                key = _statistic_key(node.args[0], None)
                found.append((path.relative_to(ROOT).as_posix(), key))
    return found


def test_every_count_recorded_anywhere_is_declared_by_a_pass():
    """Also the patterns' counts, which a pass's own module does not show."""
    declared = {}
    for get in get_all_passes().values():
        declared.update(declared_statistics(get()))
    recorded = _recorded_keys()
    assert len(recorded) > 50
    for path, key in recorded:
        if key is None:  # computed by a call: the run over the corpus sees it
            continue
        assert _may_be(key, declared), (path, key)


def _pipelines(name: str, temp: Path) -> list[tuple[Path, str, str | None]]:
    """(file, pipeline, cluster) of each RUN line of the pass's FileCheck files
    that runs it; a `python -c` RUN line piped to nothing writes the files the
    others read (`%t...`), here in `temp`."""
    found = []
    for path in filecheck_tests(name, ROOT):
        for line in path.read_text().splitlines():
            if "// RUN:" not in line:
                continue
            run = line.split("RUN:", 1)[1].replace("%inputs", str(INPUTS))
            words = shlex.split(run.replace("%t", str(temp / path.stem)))
            if words[:2] == ["python", "-c"] and "|" not in words:
                exec(words[2], {})
            spec = cluster = None
            for i, word in enumerate(words):
                if word in ("-p", "--pass"):
                    spec = words[i + 1]
                elif word.startswith(("-p=", "--pass=")):
                    spec = word.split("=", 1)[1]
                elif word.startswith("--cluster="):
                    cluster = word.split("=", 1)[1]
            if spec and (path, spec, cluster) not in found:
                found.append((path, spec, cluster))
    return found


@pytest.mark.parametrize("name", PASSES)
def test_running_a_pass_over_its_filecheck_inputs_records_only_declared_counts(
    name, tmp_path
):
    runs = _pipelines(name, tmp_path)
    assert runs, f"{name}: no FileCheck file runs it"
    reported = 0
    for path, spec, cluster in runs:
        for case in re.split(r"^// -----\s*$", path.read_text(), flags=re.M):
            try:
                module = api.parse(case)
            except Exception:  # a case of a diagnostic test
                continue
            stats = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    api.run(module, spec, statistics=stats, cluster=cluster)
                except Exception:  # a case the pass refuses, with a diagnostic
                    pass
            for one in stats:
                assert one.undeclared == [], (path.name, spec, one.undeclared)
                reported += len(one.counters)
    if declared_statistics(get_all_passes()[name]()):
        assert reported, f"{name}: its FileCheck inputs reported no count"


class _Counting(ModulePass):
    name = "counting"
    statistics = {
        "things folded": "Things folded",
        "peak bytes in {where}": "Peak memory of a function",
    }

    def apply(self, ctx, op: ModuleOp) -> None:
        record("things folded", 3)
        record("peak bytes in @main on gpu:0", 1024)
        count("surprises")
        count("surprises")


def _collected(pass_: ModulePass):
    module = ModuleOp([])
    with collecting(pass_.name, module, declared_statistics(type(pass_))) as stats:
        pass_.apply(None, module)
    return stats


def test_declared_counts_carry_their_description_and_undeclared_ones_warn_once():
    with pytest.warns(UserWarning) as said:
        stats = _collected(_Counting())
    assert stats.descriptions == {
        "things folded": "Things folded",
        "peak bytes in @main on gpu:0": "Peak memory of a function",
    }
    assert stats.undeclared == ["surprises"] and stats.counters["surprises"] == 2
    undeclared = [w for w in said if "not declared" in str(w.message)]
    assert [str(w.message) for w in undeclared] == [
        "counting: statistic 'surprises' is not declared on the pass"
    ]
    assert undeclared[0].filename == __file__  # said where the pass records it


def test_table_prints_mlir_rows_with_descriptions():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = _collected(_Counting())
    stats.rewrites["FoldThing"] = 12
    lines = stats.table().splitlines()
    assert lines[0].startswith("'counting' (")
    assert lines[1:5] == [
        "  (S)    3 things folded                - Things folded",
        "  (S) 1024 peak bytes in @main on gpu:0 - Peak memory of a function",
        "  (S)    2 surprises                    - undeclared",
        "  (S)   12 rewrites by FoldThing",
    ]


def test_xdsl_passes_declare_nothing():
    from graph_opt.passes.xdsl_passes import CommonSubexpressionEliminationPass

    assert declared_statistics(CommonSubexpressionEliminationPass) == {}


def test_list_passes_shows_each_declared_statistic():
    from graph_opt.tools.pass_docs import describe_passes

    listing = describe_passes(get_all_passes())
    fold_bn = listing[listing.index("fold-bn: ") : listing.index("\nfold-constants: ")]
    assert "\n    (S) nn.batch_norm folded - Batch norms folded into" in fold_bn
    assert "(S) peak bytes in {where} - Peak memory" in listing
