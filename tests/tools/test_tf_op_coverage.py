"""bench/tf_op_coverage.py: TVM's TensorFlow op list as kept, and the count in
docs/frontends/tensorflow.md is the one the script gives (re-run it with
--write-docs when ops change)."""

from __future__ import annotations

from bench.tf_op_coverage import PAGE, graph_opt_ops, summary, tvm_ops


def test_tvm_op_list_is_the_convert_map():
    ops = tvm_ops()
    assert len(ops) == len(set(ops)) == 178
    assert {"Conv2D", "Einsum", "TopKV2", "TensorArrayV3", "ZerosLike"} <= set(ops)


def test_summary_counts_what_graph_opt_maps():
    ours = graph_opt_ops()
    mapped = [op for op in tvm_ops() if op in ours]
    text = " ".join(summary().split())
    assert text.startswith(f"graph-opt maps {len(mapped)} of TVM's 178 TensorFlow ops")
    missing = text.partition("missing: ")[2].rstrip(".").split(", ")
    assert len(missing) == 178 - len(mapped)
    assert "Tile" in mapped and "Tile" not in missing


def test_docs_state_the_current_count():
    assert summary() in PAGE.read_text()
