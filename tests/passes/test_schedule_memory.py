"""schedule-memory: a valid order with a lower peak, the same numbers."""

import warnings

import numpy as np
import pytest
from memory_graphs import random_inputs, random_topological_order, unet_like
from test_swap import peaks

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.remarks import GraphOptWarning


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_bad_orders_of_a_branching_unet_come_back_down(seed):
    """Random valid orders of a UNet-like graph with parallel encoder branches
    hold several branch expansions at once; the memory-aware order runs one
    branch at a time and gets the builder's (branch by branch) peak back."""
    budget = peaks(unet_like(branches=3))[""]
    module = unet_like(branches=3)
    random_topological_order(module, seed)
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    before = peaks(module)[""]
    assert before > budget

    stats = []
    api.run(module, "schedule-memory", statistics=stats)

    module.verify()
    assert peaks(module)[""] <= budget
    assert stats[0].counters["peak bytes after in @main"] == peaks(module)[""]
    assert stats[0].counters["ops moved in @main"] > 0
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_good_order_is_kept_and_said():
    module = unet_like(branches=3)
    before = api.to_mlir(module)
    with pytest.warns(GraphOptWarning, match="does not lower the peak 40960 bytes"):
        api.run(module, "schedule-memory")
    assert api.to_mlir(module) == before


def test_swapped_graph_keeps_its_copies_in_place():
    """After swap, reordering keeps the graph valid (each copy back after its
    trigger) and the peak does not go back up."""
    module = unet_like()
    api.run(module, "swap{budget=32768}")
    swapped_peak = peaks(module)[""]
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphOptWarning)
        api.run(module, "schedule-memory")
    module.verify()
    assert peaks(module)[""] <= swapped_peak
    for got, want in zip(run_function(module, inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)
