"""The pass reference of the docs site, generated from the pass registry as
MLIR's `mlir-tblgen -gen-pass-doc` generates it from `Passes.td`: one Markdown
page per registered pass (name, summary, description, options with types and
defaults, the statistics it declares, its FileCheck tests and an example).

The docs build calls `pass_pages` (docs/hooks/pass_reference.py); it needs no
mkdocs, so a test checks the pages without building the site.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from xdsl.passes import ModulePass

from graph_opt.statistics import declared_statistics
from graph_opt.tools.pass_docs import option_fields, summary

STATISTIC_FUNCTIONS = {"record", "count"}
"""`graph_opt.statistics` functions a pass reports a count with."""

STATISTIC_MODULES = ("graph_opt.passes", "graph_opt.lowering", "graph_opt.memory")
"""Packages whose modules, imported by a pass's module, are scanned for its counts."""


def description(pass_class: type[ModulePass]) -> str:
    """The docstring after its summary paragraph."""
    doc = (inspect.getdoc(pass_class) or "").strip()
    parts = doc.split("\n\n", 1)
    return parts[1].strip() if len(parts) == 2 else ""


def _scanned_code(pass_class: type[ModulePass]) -> list[tuple[ast.AST, object]]:
    """(syntax tree, module) pairs to read counts from: the pass's module, and
    the functions and classes it imports from other pass modules (one level)."""
    module = sys.modules[pass_class.__module__]
    tree = ast.parse(inspect.getsource(module))
    scanned: list[tuple[ast.AST, object]] = [(tree, module)]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if not node.module.startswith(STATISTIC_MODULES):
            continue
        imported = importlib.import_module(node.module)
        names = {alias.name for alias in node.names}
        for definition in ast.parse(inspect.getsource(imported)).body:
            if (
                isinstance(definition, ast.FunctionDef | ast.ClassDef)
                and definition.name in names
            ):
                scanned.append((definition, imported))
    return scanned


def _statistic_key(arg: ast.expr, module) -> str | None:
    """A count's key as its call writes it: a string, a module constant, or an
    f-string with its fields shown as `{...}`."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.Name):
        value = getattr(module, arg.id, None)
        return value if isinstance(value, str) else None
    if isinstance(arg, ast.JoinedStr):
        return "".join(
            part.value
            if isinstance(part, ast.Constant)
            else "{" + ast.unparse(part.value) + "}"
            for part in arg.values
        )
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        left = _statistic_key(arg.left, module)
        right = _statistic_key(arg.right, module)
        return (left or "{...}") + (right or "{...}")
    return None


def reported_statistics(pass_class: type[ModulePass]) -> list[str]:
    """The keys the pass reports with `graph_opt.statistics.record`/`count`,
    read from its source (`_scanned_code`); keys computed by a call are left
    out. The tests check them against the pass's declared statistics."""
    keys: list[str] = []
    for tree, module in _scanned_code(pass_class):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            if not (
                isinstance(node.func, ast.Name) and node.func.id in STATISTIC_FUNCTIONS
            ):
                continue
            key = _statistic_key(node.args[0], module)
            if key is not None and key not in keys:
                keys.append(key)
    return keys


def _runs(text: str) -> list[str]:
    return [
        line.split("RUN:", 1)[1].strip()
        for line in text.splitlines()
        if line.lstrip().startswith("// RUN:")
    ]


def _mentions(name: str) -> re.Pattern[str]:
    """A RUN line that runs the pass (`-p name`, `--pass=name`, in a pipeline)."""
    return re.compile(rf"(?:-p\s+'?|--pass[= ]'?|[,}}]){re.escape(name)}(?![\w-])")


def filecheck_tests(name: str, root: Path) -> list[Path]:
    """The FileCheck files under tests/filecheck whose RUN lines run the pass:
    the file named after it first, then those whose first RUN line runs it."""
    mentions = _mentions(name)
    named = {f"{name}.mlir", f"{name.replace('-', '_')}.mlir"}
    found = []
    for path in sorted((root / "tests" / "filecheck").rglob("*.mlir")):
        runs = _runs(path.read_text())
        if any(mentions.search(run) for run in runs):
            first = bool(mentions.search(runs[0]))
            found.append(((path.name not in named, not first, str(path)), path))
    return [path for _, path in sorted(found)]


def example(path: Path, name: str) -> tuple[str, str, str, str] | None:
    """The first case of a FileCheck file that is neither a `@negative_` one
    nor a diagnostic, as the file's first RUN line that runs the pass checks
    it: (that RUN line, why the case exists, the input, its check lines)."""
    text = path.read_text()
    runs = [run for run in _runs(text) if _mentions(name).search(run)]
    if not runs:
        return None
    prefix = re.search(r"--check-prefix(?:es)?[= ](\w[\w-]*)", runs[0])
    prefix = prefix.group(1) if prefix else "CHECK"
    check = re.compile(rf"\s*// {re.escape(prefix)}(?:-[A-Z]+)?:")
    for case in re.split(r"^// -----\s*$", text, flags=re.M):
        lines = case.strip("\n").splitlines()
        labels = [line for line in lines if f"// {prefix}-LABEL:" in line]
        if not labels or "@negative" in labels[0] or "expected-" in case:
            continue  # a case that must not change, or a diagnostic
        why = [
            line.strip()[3:].strip() for line in lines if line.strip().startswith("///")
        ]
        checks = [line.strip()[3:] for line in lines if check.match(line)]
        body = [line for line in lines if not line.lstrip().startswith("//")]
        source = "\n".join(body).strip("\n")
        if source:
            return runs[0], " ".join(why), source, "\n".join(checks)
    return None


def _cell(text: str) -> str:
    """Table cell text (a code span's pipes need no escape: the table reads past them)."""
    return text.replace("|", "\\|").replace("\n", " ")


def pass_page(name: str, pass_class: type[ModulePass], root: Path) -> str:
    """The Markdown page of one pass."""
    lines = [f"# {name}", "", f"{summary(pass_class)}", ""]
    lines += [
        f"`{pass_class.__module__}.{pass_class.__name__}`; "
        f'run it with `graph-opt -p {name}` or `api.run(module, "{name}")`.',
        "",
    ]
    if text := description(pass_class):
        lines += ["## Description", "", text, ""]
    lines += ["## Options", ""]
    fields = option_fields(pass_class)
    if fields:
        lines += ["| option | type | default | help |", "| --- | --- | --- | --- |"]
        lines += [
            f"| `{option}` | `{kind}` | `{default}` | {_cell(help_text)} |"
            for option, kind, default, help_text in fields
        ]
        option, _, default, _ = fields[0]
        lines += ["", f"In a pipeline: `-p '{name}{{{option}={default}}}'`."]
    else:
        lines += ["None."]
    lines += ["", "## Statistics", ""]
    declared = declared_statistics(pass_class)
    if declared:
        lines += [
            "Counts the pass reports (`--pass-statistics`, "
            "`api.run(..., statistics=[...])`); a `{...}` part of a name is "
            "filled in as the pass runs (e.g. the function and device):",
            "",
            "| statistic | description |",
            "| --- | --- |",
        ]
        lines += [f"| `{key}` | {_cell(text)} |" for key, text in declared.items()]
    else:
        lines += ["None declared."]
    lines += [
        "",
        "Every pass's statistics also show the rewrites each pattern made and "
        "the ops before and after by kind.",
        "",
    ]
    tests = filecheck_tests(name, root)
    lines += ["## Tests", ""]
    if tests:
        lines += [f"- `{path.relative_to(root).as_posix()}`" for path in tests]
    else:
        lines += ["No FileCheck file runs it; see `tests/passes/`."]
    lines += [""]
    for path in tests:
        found = example(path, name)
        if found is None:
            continue
        run, why, source, checks = found
        lines += [
            "## Example",
            "",
            f"The first case of `{path.relative_to(root).as_posix()}` "
            f"(`{run}`)" + (f": {why}" if why else "."),
            "",
            "```mlir",
            source,
            "```",
            "",
            "What the test checks in the output:",
            "",
            "```text",
            checks,
            "```",
            "",
        ]
        break
    return "\n".join(lines).rstrip() + "\n"


def pass_pages(
    root: Path,
    passes: Mapping[str, Callable[[], type[ModulePass]]] | None = None,
) -> dict[str, str]:
    """`passes/<name>.md` -> page, for every pass of graph-opt's registry."""
    if passes is None:
        from graph_opt.passes import get_all_passes

        passes = get_all_passes()
    return {
        f"passes/{name}.md": pass_page(name, passes[name](), root)
        for name in sorted(passes)
    }


def main(argv: list[str]) -> int:
    """`python -m graph_opt.tools.pass_reference OUT_DIR`: write the pages."""
    root = Path(__file__).resolve().parents[2]
    out = Path(argv[0]) if argv else root / "site" / "docs"
    for relative, text in pass_pages(root).items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
