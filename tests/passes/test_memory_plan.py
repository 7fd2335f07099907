"""The memory planner: liveness, peaks, arena plans, and the memory-plan pass."""

import numpy as np
import pytest
from memory_graphs import resnet_like, training_like, unet_like

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.memory import (
    Tensor,
    block_liveness,
    overlaps,
    plan_arena,
    plan_function,
)
from graph_opt.memory.arena import Arena

GRAPHS = {
    "unet": lambda: unet_like(),
    "unet_branches": lambda: unet_like(branches=3),
    "resnet": lambda: resnet_like(),
    "training": lambda: training_like(),
}


def live_bytes_brute_force(liveness, device: str) -> list[int]:
    return [
        sum(
            t.bytes
            for t in liveness.tensors
            if t.device == device and t.start <= step <= t.end
        )
        for step in range(len(liveness.steps))
    ]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_arena_never_overlaps_live_tensors(name):
    plan = plan_function(entry_function(GRAPHS[name]()))
    device_plan = plan.devices[""]
    tensors = plan.liveness.tensors
    assert overlaps(device_plan.arena, tensors) == []
    assert device_plan.step_bytes == live_bytes_brute_force(plan.liveness, "")
    assert device_plan.peak_bytes == max(device_plan.step_bytes)
    assert device_plan.peak_bytes <= device_plan.arena.size


def test_arena_on_random_lifetimes():
    """Greedy by size, best fit: no two tensors live at once share bytes, and
    the arena is within the aligned peak's reach."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        tensors = []
        for _ in range(40):
            start = int(rng.integers(0, 30))
            end = start + int(rng.integers(0, 10))
            size = int(rng.integers(0, 5000))
            tensors.append(Tensor(None, "", size, start, end, [end]))
        arena = plan_arena(tensors, alignment=64)
        assert overlaps(arena, tensors) == []
        aligned_peak = max(
            sum(-(-t.bytes // 64) * 64 for t in tensors if t.start <= s <= t.end)
            for s in range(40)
        )
        assert aligned_peak <= arena.size


def test_overlap_check_finds_a_clash():
    a = Tensor(None, "", 100, 0, 2, [2])
    b = Tensor(None, "", 100, 1, 3, [3])
    clash = Arena({a: 0, b: 64}, 192, 64)
    assert overlaps(clash, [a, b]) == [(a, b)]
    assert overlaps(Arena({a: 0, b: 128}, 256, 64), [a, b]) == []


def test_dynamic_dims_use_the_assumed_size():
    module = api.parse(
        """
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = nn.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %a : tensor<?x4xf32>
}"""
    )
    block = entry_function(module).body.block
    assert block_liveness(block).dynamic_tensors == 2
    assert plan_function(entry_function(module)).devices[""].peak_bytes == 32
    assert (
        plan_function(entry_function(module), dynamic_dim=10).devices[""].peak_bytes
        == 320
    )


def test_statistics_and_report(capsys):
    module = unet_like()
    stats = []
    api.run(module, "memory-plan", statistics=stats)
    plan = plan_function(entry_function(module))
    counters = stats[0].counters
    assert counters["peak bytes in @main"] == plan.devices[""].peak_bytes == 38912
    assert counters["arena bytes in @main"] == plan.devices[""].arena.size
    assert counters["largest op bytes in @main"] == 32768
    assert "memory-plan: @main: peak 38912 bytes (38.00 KiB) at %wide0" in (
        capsys.readouterr().err
    )
