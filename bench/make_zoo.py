"""Build a corpus of ONNX models from the real torch exporters, for bench/zoo.py.

Dev-time only: run it with a Python that has torch, transformers, onnx,
onnxscript and onnxruntime (e.g. /work/torchenv/bin/python). Neither torch nor
transformers is a dependency of graph-opt or of its tests.

Every model is built with random weights from a seed (transformers models from
a small config, nothing downloaded), moved off their initializers' exact
zeros and ones (MobileNetV3's batch norm statistics measured on seeded
inputs, `calibrate_batch_norms`, so that its output depends on the input) and
exported with both torch exporters:
the TorchScript one (`dynamo=False`) at opset 13 or 17, and the dynamo one
(`dynamo=True`) at opset 18, the lowest it emits without a version conversion
(asked for 13 or 17 it converts down from 18, and that conversion fails on
most models). Batch and sequence axes are dynamic where natural, with symbolic
names (`batch`, `seq`, `past`). A model one exporter cannot export is skipped
with the reason printed. One float CNN is also quantized with onnxruntime's
`quantize_static` (QDQ format, random calibration data).

For each model the folder gets `name.onnx`, `name.inputs.npz` (seeded inputs,
keyed by graph input name) and an entry in `manifest.json` (name, exporter,
opset, source, qdq).

Usage: /work/torchenv/bin/python bench/make_zoo.py [--out /work/zoo] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import inspect
import json
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn
from torch.nn import functional as F
from zoo_nms import dynamo_translation, nms, register_torchscript_symbolic

SEED = 0


# --- plain-torch CNNs ---


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, squeezed: int):
        super().__init__()
        self.reduce = nn.Conv2d(channels, squeezed, 1)
        self.expand = nn.Conv2d(squeezed, channels, 1)

    def forward(self, x):
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = F.hardsigmoid(self.expand(F.relu(self.reduce(scale))))
        return x * scale


class InvertedResidual(nn.Module):
    """MobileNetV3 block: expand 1x1, depthwise kxk, optional SE, project 1x1."""

    def __init__(self, cin, expanded, cout, kernel, stride, se, hardswish):
        super().__init__()
        act = nn.Hardswish if hardswish else nn.ReLU
        self.residual = stride == 1 and cin == cout
        layers: list[nn.Module] = []
        if expanded != cin:
            layers += [nn.Conv2d(cin, expanded, 1, bias=False)]
            layers += [nn.BatchNorm2d(expanded), act()]
        layers += [
            nn.Conv2d(
                expanded,
                expanded,
                kernel,
                stride,
                kernel // 2,
                groups=expanded,
                bias=False,
            ),
            nn.BatchNorm2d(expanded),
            act(),
        ]
        if se:
            layers.append(SqueezeExcite(expanded, max(8, expanded // 4)))
        layers += [nn.Conv2d(expanded, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    # (kernel, expanded, out, SE, hardswish, stride), MobileNetV3-Small's table, halved.
    CONFIG = [
        (3, 16, 16, True, False, 2),
        (3, 36, 24, False, False, 2),
        (3, 44, 24, False, False, 1),
        (5, 48, 40, True, True, 2),
        (5, 120, 40, True, True, 1),
        (5, 60, 48, True, True, 1),
        (5, 144, 96, True, True, 2),
        (5, 288, 96, True, True, 1),
    ]

    def __init__(self, classes: int = 100):
        super().__init__()
        layers: list[nn.Module] = [
            nn.Conv2d(3, 16, 3, 2, 1, bias=False),
            nn.BatchNorm2d(16),
            nn.Hardswish(),
        ]
        cin = 16
        for kernel, expanded, cout, se, hs, stride in self.CONFIG:
            layers.append(InvertedResidual(cin, expanded, cout, kernel, stride, se, hs))
            cin = cout
        layers += [nn.Conv2d(cin, 288, 1, bias=False), nn.BatchNorm2d(288)]
        layers += [nn.Hardswish()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.Linear(288, 512),
            nn.Hardswish(),
            nn.Dropout(0.2),
            nn.Linear(512, classes),
        )

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        return self.classifier(x)


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNetTiny(nn.Module):
    """ResNet-18's layout (2 basic blocks per stage) at a quarter of the width."""

    def __init__(self, classes: int = 100, width: int = 16):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, width, 7, 2, 3, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        blocks, cin = [], width
        for stage, cout in enumerate([width, 2 * width, 4 * width, 8 * width]):
            blocks += [BasicBlock(cin, cout, 1 if stage == 0 else 2)]
            blocks += [BasicBlock(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class BoxDetector(nn.Module):
    """SSD-like: a small backbone, per-anchor class and box heads, and a
    postprocess of sigmoid scores, TopK over anchors, Gather of the kept boxes,
    box decoding against fixed anchors and a greedy IoU suppression written in
    tensor ops (no NMS op)."""

    def __init__(self, classes: int = 8, anchors: int = 3, keep: int = 50):
        super().__init__()
        self.classes, self.anchors, self.keep = classes, anchors, keep
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, 2, 1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.Conv2d(32, 64, 3, 2, 1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
        )
        self.cls_head = nn.Conv2d(64, anchors * classes, 3, 1, 1)
        self.box_head = nn.Conv2d(64, anchors * 4, 3, 1, 1)
        # Anchors for a 128x128 image: an 16x16 grid, 3 sizes each, (cx, cy, w, h).
        grid = (torch.arange(16, dtype=torch.float32) + 0.5) / 16
        cy, cx = torch.meshgrid(grid, grid, indexing="ij")
        sizes = torch.tensor([0.1, 0.2, 0.4])
        centers = torch.stack([cx, cy], -1).reshape(-1, 1, 2).expand(-1, anchors, 2)
        wh = sizes.reshape(1, -1, 1).expand(256, anchors, 2)
        self.register_buffer("priors", torch.cat([centers, wh], -1).reshape(-1, 4))

    @staticmethod
    def decode(deltas, priors):
        """Corner boxes from (cx, cy, w, h) priors and their predicted deltas."""
        centers = priors[..., :2] + 0.1 * deltas[..., :2] * priors[..., 2:]
        sizes = priors[..., 2:] * torch.exp(0.2 * deltas[..., 2:])
        return torch.cat([centers - sizes / 2, centers + sizes / 2], -1)

    def heads(self, image):
        """Class logits [B, anchors, classes] and box deltas [B, anchors, 4]."""
        features = self.backbone(image)
        b = image.shape[0]
        logits = (
            self.cls_head(features).permute(0, 2, 3, 1).reshape(b, -1, self.classes)
        )
        return logits, self.box_head(features).permute(0, 2, 3, 1).reshape(b, -1, 4)

    def forward(self, image):
        logits, deltas = self.heads(image)
        scores, labels = torch.sigmoid(logits).max(-1)
        top_scores, top = torch.topk(scores, self.keep, dim=1)
        deltas = torch.gather(deltas, 1, top.unsqueeze(-1).expand(-1, -1, 4))
        boxes = self.decode(deltas, self.priors[top])
        # Pairwise IoU; a box is suppressed by a higher-scoring box with IoU > 0.5.
        lt = torch.maximum(boxes[:, :, None, :2], boxes[:, None, :, :2])
        rb = torch.minimum(boxes[:, :, None, 2:], boxes[:, None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area = (boxes[..., 2:] - boxes[..., :2]).prod(-1)
        iou = inter / (area[:, :, None] + area[:, None, :] - inter + 1e-6)
        earlier = torch.triu(torch.ones(self.keep, self.keep, dtype=torch.bool), 1)
        suppressed = ((iou > 0.5) & earlier).any(1)
        kept = top_scores * (~suppressed).to(top_scores.dtype)
        return boxes, kept, torch.gather(labels, 1, top)


class NmsDetector(BoxDetector):
    """BoxDetector's backbone, heads and box decoding over every anchor, then
    torchvision's postprocess: ONNX NonMaxSuppression per class (`zoo_nms`),
    and the kept boxes, scores and labels gathered by the selected indices."""

    def forward(self, image):
        logits, deltas = self.heads(image)
        boxes = self.decode(deltas, self.priors)
        scores = torch.sigmoid(logits).transpose(1, 2)
        selected = nms(boxes, scores)
        batch, label, index = selected[:, 0], selected[:, 1], selected[:, 2]
        return boxes[batch, index], scores[batch, label, index], label


class UNetTiny(nn.Module):
    """Two-level UNet: ConvTranspose on one skip, bilinear Resize on the other."""

    def __init__(self, classes: int = 4):
        super().__init__()

        def double(cin, cout):
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, 1, 1),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
                nn.Conv2d(cout, cout, 3, 1, 1),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
            )

        self.enc1, self.enc2, self.mid = double(3, 16), double(16, 32), double(32, 64)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, 2)
        self.dec2 = double(64, 32)
        self.dec1 = double(48, 16)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        up = F.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([up, e1], 1))
        return self.head(d1)


# --- transformers models, small configs, outputs as tuples ---


class Outputs(nn.Module):
    """A transformers model called with its inputs by keyword (`names`, in
    order), returning the named output fields as a tuple."""

    def __init__(self, model, names: tuple[str, ...], fields: tuple[str, ...], **fixed):
        super().__init__()
        self.model, self.names, self.fields, self.fixed = model, names, fields, fixed

    def forward(self, *args):
        out = self.model(**dict(zip(self.names, args)), **self.fixed)
        return tuple(out[f] for f in self.fields)


class DecoderWithCache(nn.Module):
    """A causal LM's decode step: input_ids, attention_mask and past keys/values
    as flat tensors in; logits and the present keys/values out."""

    def __init__(self, model: nn.Module, layers: int):
        super().__init__()
        self.model, self.layers = model, layers

    def forward(self, *args):
        from transformers import DynamicCache

        input_ids, attention_mask, *past = args
        pairs = [(past[2 * i], past[2 * i + 1]) for i in range(self.layers)]
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            past_key_values=DynamicCache(pairs),
            use_cache=True,
        )
        present = []
        for layer in out.past_key_values.layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


@dataclass
class Built:
    module: nn.Module
    inputs: dict[str, torch.Tensor]
    outputs: list[str]
    dynamic: dict[str, dict[int, str]]
    calibrate_batch_norms: bool = False
    """Whether `calibrate_batch_norms` sets the batch norms' statistics."""


def _ids(batch: int, seq: int, vocab: int) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, seq), dtype=torch.int64)


def _image(shape) -> torch.Tensor:
    return torch.randn(*shape)


def cnn(
    module_class, size: int, outputs: tuple[str, ...], calibrate: bool = False
) -> Callable[[str], Built]:
    """A builder of an image model: `image` (batch x 3 x size x size, dynamic
    batch) in; `outputs` out, the first with the batch dynamic too; `calibrate`:
    see `Built.calibrate_batch_norms`."""

    def build(attn: str) -> Built:
        batch = {0: "batch"}
        return Built(
            module_class(),
            {"image": _image((2, 3, size, size))},
            list(outputs),
            {"image": batch, outputs[0]: batch},
            calibrate,
        )

    return build


def _hf(model, inputs, fields, dynamic, **fixed) -> Built:
    """A transformers model called with `inputs` by keyword, `fields` of its output as the graph's outputs."""
    wrapped = Outputs(model, tuple(inputs), tuple(fields), **fixed)
    return Built(wrapped, inputs, list(fields), dynamic)


SEQ = {0: "batch", 1: "seq"}


def build_bert(attn: str) -> Built:
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=1000,
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=256,
        max_position_embeddings=128,
        attn_implementation=attn,
    )
    inputs = {
        "input_ids": _ids(2, 16, 1000),
        "attention_mask": torch.ones(2, 16, dtype=torch.int64),
        "token_type_ids": torch.zeros(2, 16, dtype=torch.int64),
    }
    dynamic = {name: SEQ for name in inputs}
    dynamic["last_hidden_state"] = SEQ
    dynamic["pooler_output"] = {0: "batch"}
    return _hf(
        BertModel(config), inputs, ("last_hidden_state", "pooler_output"), dynamic
    )


def build_vit(attn: str) -> Built:
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=256,
        image_size=64,
        patch_size=8,
        attn_implementation=attn,
    )
    return _hf(
        ViTModel(config),
        {"pixel_values": _image((2, 3, 64, 64))},
        ("last_hidden_state", "pooler_output"),
        {"pixel_values": {0: "batch"}},
    )


def _gpt2_config(attn: str):
    from transformers import GPT2Config

    return GPT2Config(
        vocab_size=1000,
        n_positions=128,
        n_embd=128,
        n_layer=2,
        n_head=4,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation=attn,
    )


def _causal_lm(model) -> Built:
    inputs = {
        "input_ids": _ids(2, 16, 1000),
        "attention_mask": torch.ones(2, 16, dtype=torch.int64),
    }
    dynamic = {"input_ids": SEQ, "attention_mask": SEQ, "logits": SEQ}
    return _hf(model, inputs, ("logits",), dynamic, use_cache=False)


def build_gpt2(attn: str) -> Built:
    from transformers import GPT2LMHeadModel

    return _causal_lm(GPT2LMHeadModel(_gpt2_config(attn)))


def _with_cache(model: nn.Module, layers: int, heads: int, head_dim: int) -> Built:
    past_len, batch = 8, 2
    inputs = {
        "input_ids": _ids(batch, 1, 1000),
        "attention_mask": torch.ones(batch, past_len + 1, dtype=torch.int64),
    }
    dynamic = {
        "input_ids": {0: "batch", 1: "seq"},
        "attention_mask": {0: "batch", 1: "total"},
        "logits": {0: "batch", 1: "seq"},
    }
    outputs = ["logits"]
    for i in range(layers):
        for kind in ("key", "value"):
            inputs[f"past_{kind}_{i}"] = torch.randn(batch, heads, past_len, head_dim)
            dynamic[f"past_{kind}_{i}"] = {0: "batch", 2: "past"}
            outputs.append(f"present_{kind}_{i}")
            dynamic[f"present_{kind}_{i}"] = {0: "batch", 2: "total"}
    return Built(DecoderWithCache(model, layers), inputs, outputs, dynamic)


def build_gpt2_kv(attn: str) -> Built:
    from transformers import GPT2LMHeadModel

    return _with_cache(GPT2LMHeadModel(_gpt2_config(attn)), 2, 4, 32)


def _llama_config(attn: str):
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=1000,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation=attn,
    )


def build_llama(attn: str) -> Built:
    from transformers import LlamaForCausalLM

    return _causal_lm(LlamaForCausalLM(_llama_config(attn)))


def build_llama_kv(attn: str) -> Built:
    from transformers import LlamaForCausalLM

    return _with_cache(LlamaForCausalLM(_llama_config(attn)), 2, 2, 32)


def build_t5(attn: str) -> Built:
    from transformers import T5Config, T5Model

    config = T5Config(
        vocab_size=1000,
        d_model=128,
        d_kv=32,
        d_ff=256,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        attn_implementation=attn,
    )
    return _hf(
        T5Model(config),
        {"input_ids": _ids(2, 16, 1000), "decoder_input_ids": _ids(2, 8, 1000)},
        ("last_hidden_state",),
        {
            "input_ids": SEQ,
            "decoder_input_ids": {0: "batch", 1: "target"},
            "last_hidden_state": {0: "batch", 1: "target"},
        },
        use_cache=False,
    )


def build_whisper(attn: str) -> Built:
    from transformers import WhisperConfig, WhisperModel

    config = WhisperConfig(
        vocab_size=1000,
        num_mel_bins=16,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_source_positions=50,
        max_target_positions=32,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
        attn_implementation=attn,
    )
    return _hf(
        WhisperModel(config),
        {
            "input_features": torch.randn(1, 16, 100),
            "decoder_input_ids": _ids(1, 4, 1000),
        },
        ("last_hidden_state", "encoder_last_hidden_state"),
        {"decoder_input_ids": {1: "target"}},
        use_cache=False,
    )


def build_segformer(attn: str) -> Built:
    from transformers import SegformerConfig, SegformerForSemanticSegmentation

    config = SegformerConfig(
        num_encoder_blocks=2,
        depths=[1, 1],
        sr_ratios=[4, 2],
        hidden_sizes=[16, 32],
        patch_sizes=[7, 3],
        strides=[4, 2],
        num_attention_heads=[1, 2],
        mlp_ratios=[2, 2],
        decoder_hidden_size=64,
        num_labels=5,
        attn_implementation=attn,
    )
    return _hf(
        SegformerForSemanticSegmentation(config),
        {"pixel_values": _image((1, 3, 64, 64))},
        ("logits",),
        {"pixel_values": {0: "batch"}, "logits": {0: "batch"}},
    )


def build_yolos(attn: str) -> Built:
    from transformers import YolosConfig, YolosForObjectDetection

    config = YolosConfig(
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        image_size=[64, 64],
        patch_size=16,
        num_detection_tokens=10,
        num_labels=5,
        attn_implementation=attn,
    )
    return _hf(
        YolosForObjectDetection(config),
        {"pixel_values": _image((1, 3, 64, 64))},
        ("logits", "pred_boxes"),
        {},
    )


# name -> (builder, TorchScript opset)
MODELS: dict[str, tuple[Callable[[], Built], int]] = {
    # The other CNNs' outputs depend on their input with the initializer's
    # statistics already (std over inputs / mean |output| 0.1 to 0.5).
    "mobilenet_v3": (cnn(MobileNetV3Small, 96, ("logits",), calibrate=True), 13),
    "resnet_tiny": (cnn(ResNetTiny, 64, ("logits",)), 17),
    "box_detector": (cnn(BoxDetector, 128, ("boxes", "scores", "labels")), 17),
    "nms_detector": (cnn(NmsDetector, 128, ("boxes", "scores", "labels")), 17),
    "unet": (cnn(UNetTiny, 64, ("mask",)), 13),
    "segformer": (build_segformer, 17),
    "yolos": (build_yolos, 17),
    "bert": (build_bert, 13),
    "vit": (build_vit, 17),
    "gpt2": (build_gpt2, 13),
    "gpt2_kv": (build_gpt2_kv, 17),
    "llama": (build_llama, 17),
    "llama_kv": (build_llama_kv, 17),
    "t5": (build_t5, 13),
    "whisper": (build_whisper, 17),
}
DYNAMO_OPSET = 18
QDQ_SOURCE = "resnet_tiny_ts"
"""The float export that is quantized into the QDQ model."""


def perturb(module: nn.Module) -> None:
    """Move the weights off the values their initializers give exactly (zero
    biases, unit LayerNorm and BatchNorm scales, BatchNorm's running mean 0 and
    variance 1), which a trained model never has: otherwise `x + 0` and `x * 1`
    are everywhere and folding BatchNorm changes nothing."""
    stats = [
        (n, b)
        for n, b in module.named_buffers()
        if n.endswith(("running_mean", "running_var"))
    ]
    for name, tensor in [*module.named_parameters(), *stats]:
        if name.endswith("running_var"):
            tensor.mul_(torch.empty_like(tensor).uniform_(0.5, 1.5))
        else:
            tensor.add_(0.02 * torch.randn_like(tensor))


def calibrate_batch_norms(module: nn.Module, inputs: dict[str, torch.Tensor]) -> None:
    """Sets every BatchNorm's running mean and variance to the statistics of
    its input over 32 seeded random inputs shaped like `inputs` (one forward
    pass in training mode, a cumulative average), as training leaves them:
    with the initializer's statistics a deep network's activations fade out
    before the classifier, and its output is nearly the same for every input."""
    generator = torch.Generator().manual_seed(SEED + 1)
    batch = [
        torch.randn((32, *v.shape[1:]), generator=generator) for v in inputs.values()
    ]
    norms = [m for m in module.modules() if isinstance(m, nn.BatchNorm2d)]
    momenta = [norm.momentum for norm in norms]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    module.train()
    module(*batch)
    module.eval()
    for norm, momentum in zip(norms, momenta):
        norm.momentum = momentum


def dynamic_shapes(built: Built) -> tuple | None:
    """`Built.dynamic` as torch.export dynamic shapes: one named `Dim` per
    symbolic name, shared across inputs; an axis whose example size is 1 stays
    static (torch.export specializes it); `total` (past + new tokens) is left
    to torch.export to derive (`Dim.AUTO`)."""
    from torch.export import Dim

    dims: dict[str, object] = {}
    specs = []
    for name, value in built.inputs.items():
        spec = {}
        for axis, dim in built.dynamic.get(name, {}).items():
            if value.shape[axis] == 1:
                continue
            if dim == "total":
                spec[axis] = Dim.AUTO
            else:
                spec[axis] = dims.setdefault(dim, Dim(dim))
        specs.append(spec or None)
    if not any(specs):
        return None
    parameters = inspect.signature(built.module.forward).parameters.values()
    if [p.kind for p in parameters] == [inspect.Parameter.VAR_POSITIONAL]:
        return (tuple(specs),)
    return tuple(specs)


def export(built: Built, path: Path, dynamo: bool, opset: int) -> None:
    names = list(built.inputs)
    args = tuple(built.inputs.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(
                built.module,
                args,
                str(path),
                dynamo=True,
                opset_version=opset,
                input_names=names,
                output_names=built.outputs,
                dynamic_shapes=dynamic_shapes(built),
                external_data=False,
                custom_translation_table=dynamo_translation(),
            )
        else:
            torch.onnx.export(
                built.module,
                args,
                str(path),
                dynamo=False,
                opset_version=opset,
                input_names=names,
                output_names=built.outputs,
                dynamic_axes=built.dynamic or None,
            )


def check(path: Path, inputs: dict[str, np.ndarray]) -> None:
    """The export loads, checks, and runs in onnxruntime on the stored inputs."""
    import onnxruntime as ort

    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    graph_inputs = [i.name for i in model.graph.input]
    missing = set(graph_inputs) - set(inputs)
    if missing:
        raise RuntimeError(f"graph inputs without data: {sorted(missing)}")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    session.run(None, {k: inputs[k] for k in graph_inputs})


def quantize_qdq(src: Path, dst: Path, inputs: dict[str, np.ndarray]) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class RandomReader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(SEED)
            self.batches = iter(
                {
                    k: rng.standard_normal(v.shape).astype(v.dtype)
                    for k, v in inputs.items()
                }
                for _ in range(8)
            )

        def get_next(self):
            return next(self.batches, None)

    prepared = dst.with_suffix(".prep.onnx")
    quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
    quantize_static(
        str(prepared),
        str(dst),
        RandomReader(),
        quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        per_channel=True,
    )
    prepared.unlink()


def failure(error: Exception) -> str:
    """One line: the exception, or for torch.export's wrapped errors the one it wraps."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if "## Exception summary" in lines:
        lines = lines[lines.index("## Exception summary") + 1 :]
        return lines[0][:300] if lines else type(error).__name__
    return f"{type(error).__name__}: {lines[0][:300] if lines else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/work/zoo", type=Path)
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument(
        "--traceback", action="store_true", help="print why an export failed"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    manifest_path = args.out / "manifest.json"
    manifest = (
        json.loads(manifest_path.read_text()) if only and manifest_path.exists() else []
    )
    manifest = [m for m in manifest if m["source"] not in only]
    torch.set_grad_enabled(False)
    for opset in {opset for _, opset in MODELS.values()}:
        register_torchscript_symbolic(opset)
    for source, (build, ts_opset) in MODELS.items():
        if only and source not in only:
            continue
        for exporter, opset in (("torchscript", ts_opset), ("dynamo", DYNAMO_OPSET)):
            name = f"{source}_{'ts' if exporter == 'torchscript' else 'dynamo'}"
            torch.manual_seed(SEED)
            start = time.perf_counter()
            try:
                # The TorchScript exporter has no scaled_dot_product_attention below opset 14.
                built = build(
                    "eager" if exporter == "torchscript" and opset < 14 else "sdpa"
                )
                built.module.eval()
                perturb(built.module)
                if built.calibrate_batch_norms:
                    calibrate_batch_norms(built.module, built.inputs)
                inputs = {k: v.numpy() for k, v in built.inputs.items()}
                path = args.out / f"{name}.onnx"
                export(built, path, exporter == "dynamo", opset)
                check(path, inputs)
            except Exception as error:  # noqa: BLE001 - any exporter failure skips the model
                reason = failure(error)
                print(f"SKIP {name}: {reason}", flush=True)
                if args.traceback:
                    traceback.print_exc()
                for stale in (path, args.out / f"{name}.inputs.npz"):
                    stale.unlink(missing_ok=True)
                continue
            np.savez(args.out / f"{name}.inputs.npz", **inputs)
            size = path.stat().st_size / 2**20
            manifest.append(
                {
                    "name": name,
                    "exporter": exporter,
                    "opset": opset,
                    "source": source,
                    "qdq": False,
                }
            )
            seconds = time.perf_counter() - start
            print(f"ok   {name}: {size:.1f} MB, {seconds:.1f}s", flush=True)
            if name == QDQ_SOURCE:
                qdq = f"{source}_qdq"
                try:
                    quantize_qdq(path, args.out / f"{qdq}.onnx", inputs)
                    check(args.out / f"{qdq}.onnx", inputs)
                except Exception as error:  # noqa: BLE001
                    print(f"SKIP {qdq}: {type(error).__name__}: {error}", flush=True)
                    continue
                np.savez(args.out / f"{qdq}.inputs.npz", **inputs)
                manifest.append(
                    {
                        "name": qdq,
                        "exporter": f"{exporter}+quantize_static",
                        "opset": opset,
                        "source": source,
                        "qdq": True,
                    }
                )
                print(f"ok   {qdq}", flush=True)
    manifest.sort(key=lambda m: m["name"])
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} models in {args.out}")


if __name__ == "__main__":
    main()
