"""quantize, its training mode and that mode's batch norm folding."""

from graph_opt.passes.quantize.quantize import QuantizePass

__all__ = ["QuantizePass"]
