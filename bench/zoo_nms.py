"""Non-maximum suppression for the zoo's detector, exported as ONNX's
NonMaxSuppression by both torch exporters, as torchvision registers its own
`nms` (whose wheel does not load with torch's CPU build here): a custom op
`zoo::nms` with an eager reference, a TorchScript symbolic and a dynamo
translation."""

from __future__ import annotations

import torch

MAX_PER_CLASS = 20
IOU_THRESHOLD = 0.5
SCORE_THRESHOLD = 0.05


@torch.library.custom_op("zoo::nms", mutates_args=())
def nms(boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """ONNX NonMaxSuppression (corner boxes [B, N, 4], scores [B, C, N]):
    [selected, 3] rows of (batch, class, box)."""
    selected = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            kept: list[int] = []
            for i in torch.argsort(scores[b, c], descending=True, stable=True).tolist():
                if scores[b, c, i] <= SCORE_THRESHOLD or len(kept) == MAX_PER_CLASS:
                    break
                if all(_iou(boxes[b, i], boxes[b, k]) <= IOU_THRESHOLD for k in kept):
                    kept.append(i)
            selected += [[b, c, i] for i in kept]
    return torch.tensor(selected, dtype=torch.int64).reshape(-1, 3)


@nms.register_fake
def _(boxes, scores):
    count = torch.library.get_ctx().new_dynamic_size()
    return boxes.new_empty((count, 3), dtype=torch.int64)


def _iou(a: torch.Tensor, b: torch.Tensor) -> float:
    lt, rb = torch.maximum(a[:2], b[:2]), torch.minimum(a[2:], b[2:])
    inter = (rb - lt).clamp(min=0).prod()
    union = (a[2:] - a[:2]).prod() + (b[2:] - b[:2]).prod() - inter
    return float(inter / union) if union > 0 else 0.0


def _symbolic(g, boxes, scores):
    def const(value, dtype):
        return g.op("Constant", value_t=torch.tensor([value], dtype=dtype))

    return g.op(
        "NonMaxSuppression",
        boxes,
        scores,
        const(MAX_PER_CLASS, torch.int64),
        const(IOU_THRESHOLD, torch.float32),
        const(SCORE_THRESHOLD, torch.float32),
    )


def register_torchscript_symbolic(opset: int) -> None:
    torch.onnx.register_custom_op_symbolic("zoo::nms", _symbolic, opset)


def dynamo_translation() -> dict:
    """`custom_translation_table` for torch.onnx.export(dynamo=True)."""
    from onnxscript import opset18 as op

    def translated(boxes, scores):
        return op.NonMaxSuppression(
            boxes,
            scores,
            op.Constant(value_ints=[MAX_PER_CLASS]),
            op.Constant(value_floats=[IOU_THRESHOLD]),
            op.Constant(value_floats=[SCORE_THRESHOLD]),
        )

    return {torch.ops.zoo.nms.default: translated}
