"""convert-to-int: its patterns, parameters, I/O and reasons."""

from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass

__all__ = ["ConvertToIntPass"]
