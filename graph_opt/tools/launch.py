"""The console commands: each imports its tool with the cyclic collector paused.

Start-up imports xDSL, numpy and onnx: ~200,000 objects that live as long as
the process, which the collector would walk several times over for nothing
(~25 ms of a ~0.4 s start).
"""

from __future__ import annotations

from importlib import import_module

from graph_opt.gc_pause import collector_paused


def _run(module: str) -> int:
    with collector_paused():
        main = import_module(module).main
    return main()


def graph_opt() -> int:
    return _run("graph_opt.tools.graph_opt_main")


def graph_opt_run() -> int:
    return _run("graph_opt.tools.run_main")


def graph_opt_reduce() -> int:
    return _run("graph_opt.tools.reduce_main")
