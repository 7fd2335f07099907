"""User patterns for --load-patterns: a conv without its activation, and relu + add."""

from graph_opt.patterns import is_constant, is_op, wildcard

PATTERNS = {
    "bare-conv": is_op("conv")(wildcard(), is_constant(), None),
    "relu-add": is_op("relu")(wildcard()) + wildcard(),
}
