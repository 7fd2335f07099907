"""recompute: cheap activations computed again before their late readers;
the numbers stay and the peak comes down."""

import numpy as np
import pytest
from memory_graphs import random_inputs, training_like, unet_like
from test_swap import lowest_budget, peaks

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.remarks import GraphOptWarning


def test_recompute_relus_of_held_batch_norms():
    """A training graph holds each batch norm's output and its relu for the
    backward pass; the relus are recomputed from the batch norms."""
    module = training_like()
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    before = peaks(module)[""]
    stats = []
    with pytest.warns(GraphOptWarning, match="stays above the budget"):
        api.run(
            module, f"recompute{{budget={lowest_budget(module)}}}", statistics=stats
        )
    recomputed = [
        op for op in entry_function(module).body.block.ops
        if op.results and (op.results[0].name_hint or "").startswith("recomputed_")
    ]  # fmt: skip
    assert [op.name for op in recomputed] == ["nn.relu", "nn.relu"]
    assert stats[0].counters["tensors recomputed in @main"] == 2
    assert peaks(module)[""] < before
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_recompute_then_swap_meets_the_budget():
    """What recomputation leaves, swapping moves: the UNet-like and training
    graphs fit the lowest budget, numbers unchanged."""
    for module in (training_like(), unet_like()):
        inputs = random_inputs(module)
        expected = run_function(module, inputs)
        budget = lowest_budget(module)
        with pytest.warns(GraphOptWarning):
            api.run(module, f"recompute{{budget={budget}}},swap{{budget={budget}}}")
        assert peaks(module)[""] <= budget
        for got, want in zip(run_function(module, inputs), expected, strict=True):
            np.testing.assert_array_equal(got, want)
