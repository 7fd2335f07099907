"""Detection post-processing: non-maximum suppression."""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, i64
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation, check_flag
from graph_opt.dialects.nn.shapes import DYN, ranked, tensor_type


@irdl_op_definition
class NonMaxSuppressionOp(NNOperation):
    """ONNX's NonMaxSuppression: per batch and class, boxes in descending score
    order (equal scores: lower index first), those with score above
    `score_threshold` (when given), each kept unless its IoU with a kept box
    exceeds `iou_threshold`, at most `max_output_boxes_per_class` of them.
    Boxes [B, N, 4] are corners [y1, x1, y2, x2] (any two opposite corners)
    or, with `center_point_box`, [x_center, y_center, width, height]; scores
    are [B, C, N]. The result lists (batch, class, box) rows, batch by batch,
    class by class, in selection order: its row count depends on the data."""

    name = "nn.non_max_suppression"
    boxes = operand_def()
    scores = operand_def()
    selected = result_def()
    max_output_boxes_per_class = prop_def(IntegerAttr)
    iou_threshold = prop_def(FloatAttr)
    score_threshold = opt_prop_def(FloatAttr)
    center_point_box = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = GENERIC_FORMAT

    def verify_properties(self) -> None:
        check_flag(self.properties, "center_point_box")

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute] | None:
        boxes, scores = ranked(operands[0]), ranked(operands[1])
        if boxes is None or scores is None:
            return None
        if not isinstance(boxes.element_type, AnyFloat) or (
            boxes.element_type != scores.element_type
        ):
            raise VerifyException(
                f"boxes and scores must be floats of one type, got {boxes} and {scores}"
            )
        box_shape, score_shape = boxes.get_shape(), scores.get_shape()
        if len(box_shape) != 3 or box_shape[2] not in (4, DYN):
            raise VerifyException(f"boxes must be [batch, boxes, 4], got {boxes}")
        if len(score_shape) != 3:
            raise VerifyException(
                f"scores must be [batch, classes, boxes], got {scores}"
            )
        for name, a, b in (
            ("batch", box_shape[0], score_shape[0]),
            ("box count", box_shape[1], score_shape[2]),
        ):
            if DYN not in (a, b) and a != b:
                raise VerifyException(f"boxes and scores differ in {name}: {a} and {b}")
        return [tensor_type(i64, [DYN, 3])]


DETECTION_OPS = [NonMaxSuppressionOp]
