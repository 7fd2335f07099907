"""Reading and writing MLIR text quickly (graph-opt's own ops), with xDSL's parser and
printer for everything else."""
