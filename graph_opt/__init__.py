"""graph-opt: compiler passes for neural-network graphs, built on xDSL."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graph-opt")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
