"""Integer average pooling, as TOSA 1.0 AVG_POOL2D on int8."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.irdl import irdl_op_definition, opt_prop_def

from graph_opt.dialects.nn.pool import PoolOp
from graph_opt.dialects.nn.qint import _check_signless, _check_zero_point


@irdl_op_definition
class QAvgPoolOp(PoolOp):
    """TOSA AVG_POOL2D on int8: for each window, acc = the i32 sum of
    x - input_zp over the positions inside the input (padding does not
    count), count = their number, and the result is
    saturate(apply_scale_32(acc, reciprocal_scale(count)) + output_zp): acc /
    count to the nearest integer (reciprocal_scale's multiplier, a bit above
    2^shift / count, may take a negative tie down). The result has the
    input's scale; layout, kernel, strides, pads and ceil_mode are
    nn.avg_pool's."""

    name = "nn.qavg_pool"
    input_zp = opt_prop_def(IntegerAttr)
    output_zp = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operands, props):
        _check_signless(operands[0], "qavg_pool input", 8)
        _check_zero_point(props, "input_zp", operands[0])
        _check_zero_point(props, "output_zp", operands[0])
        return super().infer_result_types(operands, props)


QPOOL_OPS = [QAvgPoolOp]
