"""The numpy reference interpreter of the nn dialect, on xDSL's interpreter framework."""

from graph_opt.interpreter.runner import run_function

__all__ = ["run_function"]
