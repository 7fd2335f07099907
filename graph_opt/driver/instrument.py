"""Running a pipeline under `--verify-numerics` and the crash reproducer."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from graph_opt.driver.verify_numerics import (
    NumericCheck,
    NumericChecker,
    NumericsChanged,
)


def apply_instrumented(
    ctx: Context,
    module: ModuleOp,
    pipeline: PassPipeline,
    numerics: NumericCheck | None = None,
    reproducer: str | None = None,
    plugins: Sequence[str] = (),
) -> None:
    """Apply `pipeline`, checking the numbers after each pass with `numerics`
    and writing a reproducer to `reproducer` when a pass fails. A failure
    raises with a `graph_opt_note` attribute saying where the reproducer is."""
    import dataclasses

    callback = pipeline.callback
    if numerics is not None:
        callback = NumericChecker(numerics).wrap(callback)
    keeper = None
    if reproducer is not None:
        from graph_opt.driver.reproducer import CrashReproducer

        keeper = CrashReproducer(reproducer, pipeline, plugins)
        callback = keeper.wrap(callback)
    instrumented = dataclasses.replace(pipeline, callback=callback)
    try:
        instrumented.apply(ctx, module)
    except NumericsChanged:
        raise
    except Exception as error:
        if keeper is not None and keeper.write(error) is not None:
            error.graph_opt_note = keeper.note()  # type: ignore[attr-defined]
        raise
