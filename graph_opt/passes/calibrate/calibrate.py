"""calibrate: record tensor ranges over sample inputs with the reference interpreter."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.entry import entry_function
from graph_opt.passes.calibrate.calibration import (
    calibrate_ranges,
    load_samples,
    statistic_factory,
    store_range,
)
from graph_opt.passes.fold_bn.fold_bn import fold_batch_norms


@dataclass(frozen=True)
class CalibratePass(ModulePass):
    """Record the value range of every computed float tensor over sample inputs.

    Runs the entry function in the reference interpreter once per sample of
    `inputs` (an .npz keyed by argument name; an array with one more leading
    dim than its argument holds several samples) and sets the range on each
    single-result op and float argument as `nn.range = array<f32: min, max>`
    (an op attribute; an argument attribute of the function), for the quantize
    pass to read. `method`: minmax (over all samples), moving_average
    (TensorFlow's EMA of per-sample min and max, weight `decay`, started at the
    first sample), percentile (the `percentile`-th and (100 - percentile)-th
    percentiles of all values). Constants and fake_quant results get no range.
    Batch norms are folded first (fold-bn), as TensorFlow's
    create_training_graph folds them before quantizing, so that the ranges are
    those of the layers quantize will see, whatever ran before.
    """

    name = "calibrate"

    inputs: str = field(default="", metadata={"help": "the .npz of sample inputs"})
    method: str = field(
        default="minmax", metadata={"help": "minmax, moving_average or percentile"}
    )
    decay: float = field(
        default=0.9, metadata={"help": "moving_average weight of the past"}
    )
    percentile: float = field(
        default=99.99, metadata={"help": "percentile method: the upper percentile kept"}
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        make = statistic_factory(self.method, self.decay, self.percentile)
        if not self.inputs:
            raise PassFailedException('calibrate needs inputs="samples.npz"')
        function = entry_function(op)
        samples = load_samples(self.inputs, function)
        fold_batch_norms(op)
        observed = {
            inner
            for inner in function.walk()
            if len(inner.results) == 1
            and not isinstance(inner, ConstantOp | FakeQuantOp)
        }
        try:
            ranges = calibrate_ranges(
                op, samples, make, observed, function.sym_name.data
            )
        except PassFailedException:
            raise
        except Exception as e:  # a sample that does not fit the function
            raise PassFailedException(f"calibration run failed: {e}") from e
        for value, (low, high) in ranges.items():
            store_range(value, low, high)
