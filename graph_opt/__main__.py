"""`python -m graph_opt`: the `graph-opt` command."""

import sys

from graph_opt.tools.launch import graph_opt

sys.argv[0] = "graph-opt"  # the name --help and errors show
sys.exit(graph_opt())
