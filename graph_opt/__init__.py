"""graph-opt: compiler passes for neural-network graphs, built on xDSL."""
