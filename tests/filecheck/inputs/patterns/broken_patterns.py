"""A pattern module that fails to import (for the one-line error)."""

raise RuntimeError("this pattern module is broken")
