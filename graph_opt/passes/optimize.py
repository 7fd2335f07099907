"""The default optimization pipeline, run to a fixed point."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import PassFailedException

PIPELINE = "prune,fold-constants,fold-bn,fuse-ops,cse,dce"


def fingerprint(module: ModuleOp) -> tuple[str, ...]:
    """The op sequence: a pipeline round that leaves it unchanged changed nothing the rounds act on."""
    return tuple(op.name for op in module.walk())


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: each full collection walks the whole
    IR, which the pipeline only rewrites (the garbage is collected afterwards)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True)
class OptimizePass(ModulePass):
    """Run prune, fold-constants, fold-bn, fuse-ops, cse and dce until the graph stops changing."""

    name = "optimize"

    max_iterations: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.universe import Universe

        from graph_opt.passes import get_all_passes

        available = {**Universe.get_multiverse().all_passes, **get_all_passes()}
        pipeline = PassPipeline.parse_spec(available, PIPELINE)
        with cyclic_gc_paused():
            before = fingerprint(op)
            for _ in range(self.max_iterations):
                pipeline.apply(ctx, op)
                after = fingerprint(op)
                if after == before:
                    return
                before = after
        raise PassFailedException(
            f"optimize did not reach a fixed point in {self.max_iterations} iterations"
        )
