"""convert-layout and its layout patterns."""

from graph_opt.passes.convert_layout.convert_layout import ConvertLayoutPass

__all__ = ["ConvertLayoutPass"]
