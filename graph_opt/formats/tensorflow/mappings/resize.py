"""ResizeBilinear and ResizeNearestNeighbor as nn.resize, with the coordinate
transform and rounding that give TensorFlow's results:

| TensorFlow | bilinear | nearest |
| --- | --- | --- |
| default | asymmetric | asymmetric, floor |
| align_corners | align_corners | align_corners, round_prefer_ceil (roundf) |
| half_pixel_centers | half_pixel | half_pixel, round_prefer_ceil: floor((x + 0.5) * in / out) |
"""

from __future__ import annotations

from xdsl.dialects.builtin import f32

from graph_opt.dialects.nn.base import i64_array, str_attr
from graph_opt.dialects.nn.resize import KEEP, ResizeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import CastOp
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.op_table import importer


def _coordinate_mode(b) -> str:
    align, half = b.attr("align_corners", False), b.attr("half_pixel_centers", False)
    if align and half:
        b.decline("align_corners and half_pixel_centers cannot both be set")
    return "align_corners" if align else "half_pixel" if half else "asymmetric"


@importer("ResizeBilinear", "ResizeNearestNeighbor")
def import_resize(b, node, inputs):
    """NHWC images; a bilinear resize always returns float32."""
    images, size = inputs
    height, width = int_constant(b, size, "the size")
    images_type = ranked(images)
    if images_type is None or images_type.get_num_dims() != 4:
        b.decline("the images must be a 4-D NHWC tensor")
    coordinates = _coordinate_mode(b)
    props = {
        "sizes": i64_array([KEEP, height, width, KEEP]),
        "coordinate_transformation_mode": str_attr(coordinates),
    }
    if node.op == "ResizeBilinear":
        props["mode"] = str_attr("linear")
        if images_type.element_type != f32:
            images = b.create(CastOp, [images], {"to": f32}).results[0]
    else:
        props["mode"] = str_attr("nearest")
        rounding = "floor" if coordinates == "asymmetric" else "round_prefer_ceil"
        props["nearest_mode"] = str_attr(rounding)
    return b.create(ResizeOp, [images], props)
