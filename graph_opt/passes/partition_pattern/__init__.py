"""partition-pattern and the partition files it writes for an external compiler."""

from graph_opt.passes.partition_pattern.partition_pattern import PartitionPatternPass

__all__ = ["PartitionPatternPass"]
