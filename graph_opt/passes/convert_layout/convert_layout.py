"""The `convert-layout` pass: NHWC graphs to NCHW (or back), with as few transposes as it can."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.layout import DATA_LAYOUTS
from graph_opt.dialects.nn.names import DIM_NAMES_ATTR
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp
from graph_opt.memory.cluster import Cluster
from graph_opt.memory.cluster_file import cluster_for_pass
from graph_opt.memory.liveness import device_of
from graph_opt.passes.convert_layout.layout_patterns import (
    Transposes,
    has_other_layout,
    inverse,
    layout_patterns,
    layout_perm,
    permuted_type,
    transpose_op,
    transpose_perm,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.placement import keeping_placement
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class ConvertLayoutPass(ModulePass):
    """Move convs, pooling and batch norms to one data layout (NCHW or NHWC), cancelling the transposes this adds.

    As Grappler's LayoutOptimizer: every layout-sensitive op (conv,
    conv_transpose, fused_conv with their filters, max/avg/global pooling,
    batch norm, and the kernels of training graphs: batch_norm_training,
    batch_norm_grad, conv_filter_grad with its filter result, max/avg_pool_grad)
    in the other layout is rebuilt in `target` between transposes;
    transposes then move through layout-agnostic ops (elementwise ops, whose
    per-channel constants are transposed to broadcast, relu_grad, concat,
    split, slice, pad, softmax, reductions), compose, cancel and fold into
    constants, so a chain of NHWC convs keeps one transpose at each graph edge. Other ops keep
    their layout with transposes around them. With `keep-io-layout=false`, the
    function's inputs and outputs that the conversion transposes take the
    target layout instead (the signature changes).

    With a cluster (`--cluster=FILE` or `cluster=FILE`), as Grappler converts
    only the ops placed on a GPU, an op is converted unless the cluster gives
    the device it is placed on (its `tf.device`; an unplaced op's: the
    cluster's `default_device`) another preferred `layout`: an op on a device
    the cluster does not list, on one with no `layout`, or unplaced with no
    `default_device`, is converted as without a cluster. The ops left in
    their layout are counted and named in a warning.
    """

    name = "convert-layout"

    statistics: ClassVar[Statistics] = {
        "ops kept in their layout by the cluster": "Ops the cluster's devices run in their layout as it is",
    }

    target: str = field(
        default="NCHW",
        metadata={"help": "the data layout to convert to: NCHW or NHWC"},
    )
    keep_io_layout: bool = field(
        default=True,
        metadata={
            "help": "keep the layout of function inputs and outputs (transposes at the edges)"
        },
    )
    cluster: str = field(
        default="",
        metadata={"help": "a cluster file (JSON or TOML) instead of --cluster's"},
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target not in DATA_LAYOUTS:
            raise PassFailedException(
                f"convert-layout: target must be one of {DATA_LAYOUTS}, got {self.target!r}"
            )
        cluster = cluster_for_pass(self.name, self.cluster)
        converts = (
            (lambda o: True) if cluster is None else self._prefers_target(cluster)
        )
        transposes = Transposes(
            self.target, free_inputs=not self.keep_io_layout, converts=converts
        )
        kept = self._report_kept(op, converts, cluster)
        walker = keeping_placement(
            GreedyRewritePatternApplier(
                layout_patterns(self.target, transposes), dce_enabled=False
            )
        )
        if not walker.rewrite_module(op) and not kept:
            warn(f"convert-layout: found no op outside the {self.target} layout")
        if self.keep_io_layout:
            return
        called = {
            c.callee.string_value() for c in op.walk() if isinstance(c, func.CallOp)
        }
        for function in op.ops:
            if isinstance(function, func.FuncOp) and not function.is_declaration:
                if function.sym_name.data not in called:
                    self._convert_signature(function)
        walker.rewrite_module(op)

    def _prefers_target(self, cluster: Cluster):
        def converts(op: Operation) -> bool:
            device = cluster.device(device_of(op))
            return device is None or device.layout in (None, self.target)

        return converts

    def _report_kept(self, module: ModuleOp, converts, cluster) -> int:
        """Count and name the ops the cluster keeps in their layout; how many."""
        kept = [
            o
            for o in module.walk()
            if has_other_layout(o, self.target) and not converts(o)
        ]
        record("ops kept in their layout by the cluster", len(kept))
        if kept:
            first = kept[0]
            warn(
                f"convert-layout: {len(kept)} op(s) kept in their layout: their "
                f"device prefers it (first: {first.name} on "
                f"{cluster.device_name(device_of(first))})"
            )
        return len(kept)

    def _convert_signature(self, function: func.FuncOp) -> None:
        """Inputs some transpose moves into the target layout, and outputs that a
        transpose moves out of it, take the target layout."""
        old_inputs = list(function.function_type.inputs)
        for arg in list(function.body.block.args):
            t = ranked(arg)
            if t is not None and t.get_num_dims() >= 3:
                self._convert_input(arg, t)
        returned = function.get_return_op()
        old_outputs = list(function.function_type.outputs)
        if returned is not None:
            old = list(returned.operands)
            returned.operands = [self._output(v) for v in old]
            for value in old:
                if isinstance(value.owner, TransposeOp) and not value.uses:
                    Rewriter.erase_op(value.owner)
        function.update_function_type()
        function.arg_attrs = self._permuted_dim_names(
            function.arg_attrs, old_inputs, function.function_type.inputs
        )
        function.res_attrs = self._permuted_dim_names(
            function.res_attrs, old_outputs, function.function_type.outputs
        )

    def _permuted_dim_names(self, attrs, old_types, new_types):
        """Symbolic dim names (`nn.dim_names`) follow the dims a new layout moved."""
        if attrs is None:
            return attrs
        entries = list(attrs.data)
        for i, (old, new) in enumerate(zip(old_types, new_types)):
            names = entries[i].data.get(DIM_NAMES_ATTR) if i < len(entries) else None
            if old == new or not isinstance(names, ArrayAttr):
                continue
            perm = layout_perm(self.target, len(names.data))
            moved = ArrayAttr([names.data[p] for p in perm])
            entries[i] = DictionaryAttr({**entries[i].data, DIM_NAMES_ATTR: moved})
        return ArrayAttr(entries)

    def _convert_input(self, arg: BlockArgument, t: TensorType) -> None:
        """The argument in the target layout, when a transpose moves it there; its
        users read it through a transpose back (which then cancels)."""
        to_target = layout_perm(self.target, t.get_num_dims())
        if not any(
            isinstance(use.operation, TransposeOp)
            and transpose_perm(use.operation) == to_target
            for use in arg.uses
        ):
            return
        new_arg = Rewriter.replace_value_with_new_type(arg, permuted_type(t, to_target))
        back = transpose_op(new_arg, inverse(to_target))
        Rewriter.insert_op(back, InsertPoint.at_start(arg.block))
        new_arg.replace_uses_with_if(back.output, lambda use: use.operation is not back)

    def _output(self, value: SSAValue) -> SSAValue:
        """A returned value in the target layout when a transpose moves it out of it."""
        source, t = value.owner, ranked(value)
        if isinstance(source, TransposeOp) and t is not None and t.get_num_dims() >= 3:
            if transpose_perm(source) == inverse(
                layout_perm(self.target, t.get_num_dims())
            ):
                return source.input
        return value
