"""Reference implementation of scaled dot-product attention."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.attention import AttentionOp, causal_mask, default_scale


@register_impls
class AttentionFunctions(InterpreterFunctions):
    @impl(AttentionOp)
    def run_attention(self, interpreter: Interpreter, op: AttentionOp, args):
        q, k, v, *mask = args
        scale = op.scale_value()
        if scale is None:
            scale = default_scale(q.shape[-1])
        scores = np.matmul(q, np.swapaxes(k, -1, -2)).astype(np.float64) * scale
        if mask:
            scores = scores + mask[0]
        if op.causal:
            scores = scores + causal_mask(q.shape[-2], k.shape[-2])
        exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs = (exp / exp.sum(axis=-1, keepdims=True)).astype(q.dtype)
        return (np.matmul(probs, v).astype(q.dtype, copy=False),)
