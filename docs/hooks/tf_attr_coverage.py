"""mkdocs hook: the TensorFlow attribute page (frontends/tensorflow-attributes.md),
generated at build time by graph_opt.testing.tf_attr_coverage."""

from __future__ import annotations

from mkdocs.structure.files import File

from graph_opt.testing.tf_attr_coverage import coverage_page

URI = "frontends/tensorflow-attributes.md"


def on_files(files, config):
    files.append(File.generated(config, URI, content=coverage_page()))
    return files
