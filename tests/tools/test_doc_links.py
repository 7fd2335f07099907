"""Every relative link in README.md and the docs site (its files and the pages
generated at build time) reaches an existing file, and its #anchor a heading
there. `mkdocs build --strict` checks the site's links but not README's, and
needs mkdocs installed."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePosixPath

import pytest

from graph_opt.testing.op_coverage import coverage_page as op_coverage_page
from graph_opt.testing.tf_attr_coverage import coverage_page as tf_attr_page
from graph_opt.tools.pass_reference import pass_pages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1", re.DOTALL)
LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
EXPLICIT_ID = re.compile(r"\{\s*#([\w-]+)\s*\}\s*$")


def slug(heading: str) -> str:
    """A heading's anchor as the toc extension makes it (markdown's slugify)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(text: str) -> set[str]:
    found = set()
    for heading in HEADING.findall(FENCE.sub("", text)):
        explicit = EXPLICIT_ID.search(heading)
        found.add(explicit.group(1) if explicit else slug(heading))
    return found


def links(text: str) -> list[str]:
    """The targets of the Markdown links of `text`, outside code."""
    return LINK.findall(CODE_SPAN.sub("", FENCE.sub("", text)))


def site_pages() -> dict[str, str]:
    """The docs site's Markdown pages by path under docs/, generated ones too."""
    pages = {
        path.relative_to(DOCS).as_posix(): path.read_text()
        for path in DOCS.rglob("*.md")
        if "hooks" not in path.relative_to(DOCS).parts
    }
    pages.update(pass_pages(ROOT))
    pages["op-coverage.md"] = op_coverage_page()
    pages["frontends/tensorflow-attributes.md"] = tf_attr_page()
    return pages


def broken_links(page: str, text: str, pages: dict[str, str], base: str) -> list[str]:
    """Links of `text` (the page `page`, under `base` of the repository) that
    reach no file of the repository or site, or no heading of the page."""
    broken = []
    for target in links(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        here = PurePosixPath(base, page).parent
        resolved = (
            PurePosixPath(base, page) if not path else _normal(here / path)
        ).as_posix()
        in_site = resolved.removeprefix("docs/")
        if resolved.startswith("docs/") and in_site in pages:
            if anchor and anchor not in anchors(pages[in_site]):
                broken.append(f"{page}: {target} (no heading #{anchor})")
        elif not (ROOT / resolved).exists():
            broken.append(f"{page}: {target} (no file {resolved})")
        elif anchor and resolved.endswith(".md"):
            if anchor not in anchors((ROOT / resolved).read_text()):
                broken.append(f"{page}: {target} (no heading #{anchor})")
    return broken


def _normal(path: PurePosixPath) -> PurePosixPath:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if not parts:
                raise ValueError(f"{path} leaves the repository")
            parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts)


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return site_pages()


def test_readme_links_resolve(pages):
    readme = (ROOT / "README.md").read_text()
    assert links(readme), "README.md has links to check"
    assert broken_links("README.md", readme, pages, "") == []


def test_docs_links_resolve(pages):
    broken = [
        problem
        for page, text in sorted(pages.items())
        for problem in broken_links(page, text, pages, "docs")
    ]
    assert broken == []


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[a](missing.md)", "no file docs/frontends/missing.md"),
        ("[a](frontends/onnx.md)", "no file docs/frontends/frontends/onnx.md"),
        ("[a](../memory.md#nowhere)", "no heading #nowhere"),
        ("[a](#the-xdsl-boundary)", "no heading #the-xdsl-boundary"),
        ("[a](../../README.md#not-a-heading)", "no heading #not-a-heading"),
    ],
)
def test_a_broken_link_is_found(pages, text, problem):
    (found,) = broken_links("frontends/onnx.md", text, pages, "docs")
    assert problem in found


def test_links_in_code_and_good_anchors_are_not_reported(pages):
    text = (
        "`[a](missing.md)`\n```\n[b](missing.md)\n```\n"
        "[c](../layout.md#the-xdsl-boundary) [d](https://example.com/x.md)"
    )
    assert broken_links("frontends/onnx.md", text, pages, "docs") == []


def test_anchors_follow_the_toc_slugs():
    assert slug("Finding and shrinking a pass's bug") == (
        "finding-and-shrinking-a-passs-bug"
    )
    assert (
        slug("Deploying the int8 graph (TFLite)") == "deploying-the-int8-graph-tflite"
    )
    assert anchors("## `nn.opaque` ops\n```\n# not a heading\n```\n") == {
        "nnopaque-ops"
    }
