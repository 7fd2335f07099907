"""Small nn graphs (MLIR text, seeded random weights) for the TOSA lowering tests."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(7)


def const(array: np.ndarray) -> str:
    """An nn.constant holding `array`'s bytes (hex, so weights never go through lists)."""
    element = {"float32": "f32", "int8": "i8", "int32": "i32", "int64": "i64"}[
        str(array.dtype)
    ]
    shape = "".join(f"{d}x" for d in array.shape)
    return f'nn.constant dense<"0x{array.tobytes().hex().upper()}"> : tensor<{shape}{element}>'


def weights(*shape: int) -> str:
    return const(RNG.standard_normal(shape).astype(np.float32) * 0.5)


def int8_weights(*shape: int) -> str:
    return const(RNG.integers(-127, 128, shape).astype(np.int8))


FLOAT_GRAPHS = {
    "conv_nchw": f"""
func.func @conv_nchw(%x: tensor<1x4x9x9xf32>) -> tensor<1x3xf32> {{
  %w = {weights(8, 4, 3, 3)}
  %b = {weights(8)}
  %c = nn.conv %x, %w, %b {{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x5xf32>
  %r = nn.relu %c : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %dw = {weights(16, 1, 3, 3)}
  %d = nn.conv %r, %dw {{group = 8 : i64, auto_pad = "SAME_UPPER"}} : (tensor<1x8x5x5xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x5x5xf32>
  %g = nn.global_avg_pool %d : (tensor<1x16x5x5xf32>) -> tensor<1x16x1x1xf32>
  %f = nn.flatten %g : (tensor<1x16x1x1xf32>) -> tensor<1x16xf32>
  %fw = {weights(3, 16)}
  %fb = {weights(3)}
  %y = nn.gemm %f, %fw, %fb {{trans_b = 1 : i64}} : (tensor<1x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %s = nn.softmax %y : (tensor<1x3xf32>) -> tensor<1x3xf32>
  func.return %s : tensor<1x3xf32>
}}""",
    "conv_nhwc": f"""
func.func @conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x8xf32> {{
  %c = nn.conv %x, %w {{data_layout = "NHWC", pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %dw = {weights(3, 3, 1, 8)}
  %db = {weights(8)}
  %d = nn.fused_conv %c, %dw, %db {{data_layout = "NHWC", group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>, strides = array<i64: 2, 2>, activation = "relu6"}} : (tensor<1x8x8x4xf32>, tensor<3x3x1x8xf32>, tensor<8xf32>) -> tensor<1x3x3x8xf32>
  %p = nn.max_pool %d {{data_layout = "NHWC", kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x3x3x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %p : tensor<1x4x4x8xf32>
}}""",
    "matmul_net": f"""
func.func @matmul_net(%a: tensor<2x3x4xf32>, %v: tensor<2x1x3x4xf32>, %m: tensor<4x6xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x3x5xf32>, tensor<6x5xf32>) {{
  %w = {weights(4, 5)}
  %y = nn.matmul %a, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %bw = {weights(3, 4, 5)}
  %z = nn.matmul %v, %bw : (tensor<2x1x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32>
  %fb = {weights(5)}
  %f = nn.fused_matmul %a, %w, %fb {{activation = "sigmoid"}} : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %s = nn.add %y, %f : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %gc = {weights(6, 1)}
  %g = nn.gemm %m, %w, %gc {{trans_a = 1 : i64, alpha = 0.5 : f32, beta = 2.0 : f32}} : (tensor<4x6xf32>, tensor<4x5xf32>, tensor<6x1xf32>) -> tensor<6x5xf32>
  func.return %s, %z, %g : tensor<2x3x5xf32>, tensor<2x3x3x5xf32>, tensor<6x5xf32>
}}""",
    "pooling": """
func.func @pooling(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) {
  %m = nn.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %a = nn.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %i = nn.avg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %g = nn.global_avg_pool %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  func.return %m, %a, %i, %g : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>
}""",
    "elementwise_mix": f"""
func.func @elementwise_mix(%x: tensor<2x3x4xf32>, %y: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<2x3x8xf32>, tensor<2x3xf32>) {{
  %a = nn.add %x, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %s = nn.sub %a, %x : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %m = nn.mul %s, %x : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %ab = nn.abs %m : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %one = {const(np.ones((1,), np.float32))}
  %p = nn.add %ab, %one : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %d = nn.div %x, %p : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %l = nn.log %p : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %sq = nn.sqrt %p : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %rc = nn.reciprocal %sq : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = nn.exp %d : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %t = nn.tanh %l : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %sg = nn.sigmoid %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %n = nn.neg %sg : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %mx = nn.max %e, %t : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %mn = nn.min %mx, %rc : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %c = nn.clip %x {{min = -0.5 : f32, max = 0.5 : f32}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %lr = nn.leaky_relu %x {{alpha = 0.2 : f32}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %ge = nn.gelu %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %gt = nn.gelu %x {{approximate = "tanh"}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %pw = nn.pow %p, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %u1 = nn.add %mn, %n : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u2 = nn.add %u1, %c : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u3 = nn.add %u2, %lr : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u4 = nn.sub %ge, %gt : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u5 = nn.add %u3, %pw : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %tr = nn.transpose %u5 {{perm = array<i64: 2, 1, 0>}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %cc = nn.concat %u5, %u4 {{axis = -1 : i64}} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %pd = nn.pad %x {{pads = array<i64: 0, 1, 0, 0, 1, 1>, value = 0.25 : f32}} : (tensor<2x3x4xf32>) -> tensor<2x5x5xf32>
  %rm = nn.reduce_mean %pd {{axes = array<i64: 1, 2>, keepdims = 0 : i64}} : (tensor<2x5x5xf32>) -> tensor<2xf32>
  %shape = {const(np.array([2, 1], np.int64))}
  %rs = nn.reshape %rm, %shape : (tensor<2xf32>, tensor<2xi64>) -> tensor<2x1xf32>
  %rmax = nn.reduce_max %x {{axes = array<i64: 2>, keepdims = 0 : i64}} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %out = nn.add %rmax, %rs : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  func.return %e, %tr, %cc, %out : tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<2x3x8xf32>, tensor<2x3xf32>
}}""",
    "norms": f"""
func.func @norms(%x: tensor<1x3x4x4xf32>, %t: tensor<2x3x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<2x3x4xf32>) {{
  %gamma = {weights(3)}
  %beta = {weights(3)}
  %mean = {weights(3)}
  %var = {const(RNG.uniform(0.5, 2.0, 3).astype(np.float32))}
  %b = nn.batch_norm %x, %gamma, %beta, %mean, %var {{epsilon = 0.001 : f32}} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %s = {weights(3, 4)}
  %o = {weights(3, 4)}
  %l = nn.layer_norm %t, %s, %o {{axis = 1 : i64}} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  func.return %b, %l : tensor<1x3x4x4xf32>, tensor<2x3x4xf32>
}}""",
    "slice_split_cast": f"""
func.func @slice_split_cast(%x: tensor<4x6xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x6xi32>, tensor<4x6xf32>) {{
  %starts = {const(np.array([1, -4], np.int64))}
  %ends = {const(np.array([3, 100], np.int64))}
  %axes = {const(np.array([0, 1], np.int64))}
  %steps = {const(np.array([1, 1], np.int64))}
  %s = nn.slice %x, %starts, %ends, %axes, %steps : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  %a, %b = nn.split %x {{axis = 1 : i64, split = array<i64: 2, 4>}} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>)
  %three = {const(np.full((1,), 3.0, np.float32))}
  %big = nn.mul %x, %three : (tensor<4x6xf32>, tensor<1xf32>) -> tensor<4x6xf32>
  %i = nn.cast %big {{to = i32}} : (tensor<4x6xf32>) -> tensor<4x6xi32>
  %f = nn.cast %i {{to = f32}} : (tensor<4x6xi32>) -> tensor<4x6xf32>
  func.return %s, %a, %b, %i, %f : tensor<2x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x6xi32>, tensor<4x6xf32>
}}""",
    "compare_math": f"""
func.func @compare_math(%x: tensor<2x3x4xf32>, %y: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {{
  %half = {const(np.full((1,), 0.5, np.float32))}
  %lt = nn.less %x, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xi1>
  %ge = nn.greater_equal %x, %half : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xi1>
  %ne = nn.not_equal %x, %y : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xi1>
  %xor = nn.logical_xor %lt, %ge : (tensor<2x3x4xi1>, tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
  %and = nn.logical_and %xor, %ne : (tensor<2x3x4xi1>, tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
  %not = nn.logical_not %and : (tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
  %any = nn.reduce_any %not {{axes = array<i64: 2>, keepdims = 0 : i64}} : (tensor<2x3x4xi1>) -> tensor<2x3xi1>
  %sel = nn.select %lt, %x, %y : (tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %s = nn.sin %sel : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %c = nn.cos %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %three = {const(np.full((1,), 3.0, np.float32))}
  %x3 = nn.mul %x, %three : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %f = nn.floor %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %ce = nn.ceil %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = nn.elu %x3 {{alpha = 0.7 : f32}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %se = nn.selu %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %hsg = nn.hard_sigmoid %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %hsw = nn.hard_swish %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %ss = nn.softsign %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %sp = nn.softplus %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u1 = nn.add %s, %c : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u2 = nn.add %u1, %f : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u3 = nn.add %u2, %ce : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u4 = nn.add %u3, %e : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u5 = nn.add %u4, %se : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v1 = nn.add %hsg, %hsw : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v2 = nn.add %v1, %ss : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %mi = nn.mish %x3 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v3a = nn.add %v2, %sp : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v3 = nn.add %v3a, %mi : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %am = nn.argmax %x {{axis = -1 : i64, keepdims = 0 : i64, output_type = i32}} : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  %pr = nn.reduce_prod %x {{axes = array<i64: 1>}} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  func.return %u5, %any, %am, %pr, %v3, %sel : tensor<2x3x4xf32>, tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}}""",
    "gather_expand": f"""
func.func @gather_expand(%x: tensor<2x5x3xf32>, %i: tensor<2x2xi64>, %e: tensor<3x1xf32>, %t: tensor<4x6xf32>) -> (tensor<2x2x2x3xf32>, tensor<2x3x4xf32>, tensor<2x5x2xf32>, tensor<2x5xf32>, tensor<3x6xf32>, tensor<6x1xf32>, tensor<2x2xi1>) {{
  %g = nn.gather %x, %i {{axis = 1 : i64}} : (tensor<2x5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x2x3xf32>
  %s = {const(np.array([2, 1, 4], np.int64))}
  %y = nn.expand %e, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %c = {const(np.array([0, -1], np.int32))}
  %h = nn.gather %x, %c {{axis = -1 : i64}} : (tensor<2x5x3xf32>, tensor<2xi32>) -> tensor<2x5x2xf32>
  %z = {const(np.array(2, np.int64))}
  %k = nn.gather %x, %z {{axis = 2 : i64}} : (tensor<2x5x3xf32>, tensor<i64>) -> tensor<2x5xf32>
  %rows = {const(np.array([3, -4, 1], np.int64))}
  %emb = nn.gather %t, %rows : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  %r = {const(np.array([2, 1], np.int64))}
  %tl = nn.tile %e, %r : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
  %nz = nn.cast %i {{to = i1}} : (tensor<2x2xi64>) -> tensor<2x2xi1>
  func.return %g, %y, %h, %k, %emb, %tl, %nz : tensor<2x2x2x3xf32>, tensor<2x3x4xf32>, tensor<2x5x2xf32>, tensor<2x5xf32>, tensor<3x6xf32>, tensor<6x1xf32>, tensor<2x2xi1>
}}""",
    "float_tests": f"""
func.func @float_tests(%x: tensor<3x4xf32>) -> (tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xf32>) {{
  %l = nn.log %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %zero = {const(np.zeros((1,), np.float32))}
  %z = nn.mul %x, %zero : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
  %r = nn.reciprocal %z : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %m = nn.mul %l, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %n = nn.is_nan %m : (tensor<3x4xf32>) -> tensor<3x4xi1>
  %i = nn.is_inf %m : (tensor<3x4xf32>) -> tensor<3x4xi1>
  %f = nn.is_finite %l : (tensor<3x4xf32>) -> tensor<3x4xi1>
  %clean = nn.select %n, %zero, %m : (tensor<3x4xi1>, tensor<1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %n, %i, %f, %clean : tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xi1>, tensor<3x4xf32>
}}""",
    "conv_1d": f"""
func.func @conv_1d(%x: tensor<1x4x10xf32>, %t: tensor<2x9x3xf32>, %tw: tensor<3x3x4xf32>) -> (tensor<1x6x5xf32>, tensor<1x8x10xf32>, tensor<2x9x4xf32>) {{
  %w = {weights(6, 4, 3)}
  %b = {weights(6)}
  %c = nn.conv %x, %w, %b {{pads = array<i64: 1, 0>, strides = array<i64: 2>}} : (tensor<1x4x10xf32>, tensor<6x4x3xf32>, tensor<6xf32>) -> tensor<1x6x5xf32>
  %dw = {weights(8, 1, 3)}
  %d = nn.conv %x, %dw {{group = 4 : i64, auto_pad = "SAME_UPPER", dilations = array<i64: 2>}} : (tensor<1x4x10xf32>, tensor<8x1x3xf32>) -> tensor<1x8x10xf32>
  %n = nn.conv %t, %tw {{data_layout = "NHWC", pads = array<i64: 1, 1>}} : (tensor<2x9x3xf32>, tensor<3x3x4xf32>) -> tensor<2x9x4xf32>
  func.return %c, %d, %n : tensor<1x6x5xf32>, tensor<1x8x10xf32>, tensor<2x9x4xf32>
}}""",
    "conv_transpose": f"""
func.func @conv_transpose(%x: tensor<1x3x4x5xf32>, %n: tensor<2x4x4x3xf32>, %nw: tensor<3x3x2x3xf32>) -> (tensor<1x2x8x10xf32>, tensor<1x4x8x11xf32>, tensor<2x8x8x2xf32>) {{
  %w = {weights(3, 2, 2, 2)}
  %b = {weights(2)}
  %u = nn.conv_transpose %x, %w, %b {{strides = array<i64: 2, 2>}} : (tensor<1x3x4x5xf32>, tensor<3x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x8x10xf32>
  %w2 = {weights(3, 4, 3, 3)}
  %p = nn.conv_transpose %x, %w2 {{strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 1>}} : (tensor<1x3x4x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x8x11xf32>
  %s = nn.conv_transpose %n, %nw {{data_layout = "NHWC", strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER"}} : (tensor<2x4x4x3xf32>, tensor<3x3x2x3xf32>) -> tensor<2x8x8x2xf32>
  func.return %u, %p, %s : tensor<1x2x8x10xf32>, tensor<1x4x8x11xf32>, tensor<2x8x8x2xf32>
}}""",
    "conv_transpose_grouped": f"""
func.func @conv_transpose_grouped(%x: tensor<1x6x3x4xf32>, %n: tensor<1x4x4x4xf32>, %nw: tensor<2x2x3x4xf32>) -> (tensor<1x4x6x8xf32>, tensor<1x8x8x6xf32>) {{
  %w = {weights(6, 2, 2, 2)}
  %b = {weights(4)}
  %u = nn.conv_transpose %x, %w, %b {{group = 2 : i64, strides = array<i64: 2, 2>}} : (tensor<1x6x3x4xf32>, tensor<6x2x2x2xf32>, tensor<4xf32>) -> tensor<1x4x6x8xf32>
  %s = nn.conv_transpose %n, %nw {{data_layout = "NHWC", group = 2 : i64, strides = array<i64: 2, 2>}} : (tensor<1x4x4x4xf32>, tensor<2x2x3x4xf32>) -> tensor<1x8x8x6xf32>
  func.return %u, %s : tensor<1x4x6x8xf32>, tensor<1x8x8x6xf32>
}}""",
    "resize": """
func.func @resize(%x: tensor<1x2x4x6xf32>, %n: tensor<1x4x6x2xf32>) -> (tensor<1x2x8x12xf32>, tensor<1x2x8x12xf32>, tensor<1x2x12x18xf32>, tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x2x7x11xf32>, tensor<1x8x12x2xf32>, tensor<1x2x6x9xf32>) {
  %a = nn.resize %x {sizes = array<i64: 1, 2, 8, 12>, mode = "nearest"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x8x12xf32>
  %b = nn.resize %x {sizes = array<i64: 1, 2, 8, 12>, mode = "linear", coordinate_transformation_mode = "pytorch_half_pixel"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x8x12xf32>
  %c = nn.resize %x {sizes = array<i64: 1, 2, 12, 18>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x12x18xf32>
  %d = nn.resize %x {sizes = array<i64: 1, 2, 2, 3>, mode = "nearest"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x2x3xf32>
  %e = nn.resize %x {sizes = array<i64: 1, 2, 2, 3>, mode = "nearest", nearest_mode = "ceil"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x2x3xf32>
  %f = nn.resize %x {sizes = array<i64: 1, 2, 7, 11>, mode = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x7x11xf32>
  %g = nn.resize %n {sizes = array<i64: 1, 8, 12, 2>, mode = "linear"} : (tensor<1x4x6x2xf32>) -> tensor<1x8x12x2xf32>
  %h = nn.resize %x {sizes = array<i64: 1, 2, 6, 9>, mode = "nearest", nearest_mode = "round_prefer_ceil"} : (tensor<1x2x4x6xf32>) -> tensor<1x2x6x9xf32>
  func.return %a, %b, %c, %d, %e, %f, %g, %h : tensor<1x2x8x12xf32>, tensor<1x2x8x12xf32>, tensor<1x2x12x18xf32>, tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>, tensor<1x2x7x11xf32>, tensor<1x8x12x2xf32>, tensor<1x2x6x9xf32>
}""",
    "fake_quant": """
func.func @fake_quant(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %a = nn.fake_quant %x {min = array<f32: -1.3>, max = array<f32: 0.9>, num_bits = 8 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %b = nn.fake_quant %x {min = array<f32: -1.0, 0.0, -0.5, 0.0>, max = array<f32: 1.0, 2.0, 0.25, 0.0>, num_bits = 4 : i64, narrow_range = 1 : i64, axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %c = nn.fake_quant %x {min = array<f32: 0.2>, max = array<f32: 3.0>, num_bits = 8 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %a, %b, %c : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}""",
    "gather_nd": f"""
func.func @gather_nd(%x: tensor<2x4x3xf32>, %i: tensor<3x2xi64>, %m: tensor<2x4xf32>) -> (tensor<2x2x3xf32>, tensor<3x3xf32>, tensor<2x1x4xi1>) {{
  %c = {const(np.array([[[0, 0], [1, 3]], [[1, -1], [0, 2]]], np.int64))}
  %a = nn.gather_nd %x, %c : (tensor<2x4x3xf32>, tensor<2x2x2xi64>) -> tensor<2x2x3xf32>
  %b = nn.gather_nd %x, %i : (tensor<2x4x3xf32>, tensor<3x2xi64>) -> tensor<3x3xf32>
  %zero = {const(np.zeros((1,), np.float32))}
  %mask = nn.greater %m, %zero : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xi1>
  %r = {const(np.array([[[1]], [[0]]], np.int64))}
  %g = nn.gather_nd %mask, %r : (tensor<2x4xi1>, tensor<2x1x1xi64>) -> tensor<2x1x4xi1>
  func.return %a, %b, %g : tensor<2x2x3xf32>, tensor<3x3xf32>, tensor<2x1x4xi1>
}}""",
    "gather_elements": f"""
func.func @gather_elements(%x: tensor<2x3x4xf32>, %i: tensor<2x2x4xi64>, %j: tensor<2x3x3xi32>) -> (tensor<2x2x4xf32>, tensor<2x3x3xf32>, tensor<1x2x2xf32>) {{
  %a = nn.gather_elements %x, %i {{axis = 1 : i64}} : (tensor<2x3x4xf32>, tensor<2x2x4xi64>) -> tensor<2x2x4xf32>
  %b = nn.gather_elements %x, %j {{axis = -1 : i64}} : (tensor<2x3x4xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
  %c = {const(np.array([[[1, -2], [0, 1]]], np.int64))}
  %d = nn.gather_elements %x, %c : (tensor<2x3x4xf32>, tensor<1x2x2xi64>) -> tensor<1x2x2xf32>
  func.return %a, %b, %d : tensor<2x2x4xf32>, tensor<2x3x3xf32>, tensor<1x2x2xf32>
}}""",
    "top_k": """
func.func @top_k(%x: tensor<2x7x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi64>, tensor<2x7x2xf32>, tensor<2x7x2xi64>) {
  %v, %i = nn.top_k %x {k = 3 : i64, axis = 1 : i64} : (tensor<2x7x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi64>)
  %two = nn.constant dense<2.0> : tensor<f32>
  %s = nn.mul %x, %two : (tensor<2x7x3xf32>, tensor<f32>) -> tensor<2x7x3xf32>
  %ties = nn.floor %s : (tensor<2x7x3xf32>) -> tensor<2x7x3xf32>
  %w, %j = nn.top_k %ties {k = 2 : i64, largest = 0 : i64} : (tensor<2x7x3xf32>) -> (tensor<2x7x2xf32>, tensor<2x7x2xi64>)
  func.return %v, %i, %w, %j : tensor<2x3x3xf32>, tensor<2x3x3xi64>, tensor<2x7x2xf32>, tensor<2x7x2xi64>
}""",
    "integer_ops": """
func.func @integer_ops(%x: tensor<3x5xf32>) -> (tensor<3x1xi64>, tensor<3xi1>, tensor<1x5xi64>, tensor<3x3xi64>) {
  %a = nn.argmax %x {axis = 1 : i64} : (tensor<3x5xf32>) -> tensor<3x1xi64>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %p = nn.greater %x, %zero : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xi1>
  %n = nn.cast %p {to = i64} : (tensor<3x5xi1>) -> tensor<3x5xi64>
  %c = nn.reduce_sum %n {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<3x5xi64>) -> tensor<3xi64>
  %two = nn.constant dense<2> : tensor<i64>
  %g = nn.greater %c, %two : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %m = nn.reduce_max %n {axes = array<i64: 0>} : (tensor<3x5xi64>) -> tensor<1x5xi64>
  %i = nn.constant dense<[4, -1, 0]> : tensor<3xi64>
  %e = nn.gather %n, %i {axis = 1 : i64} : (tensor<3x5xi64>, tensor<3xi64>) -> tensor<3x3xi64>
  func.return %a, %g, %m, %e : tensor<3x1xi64>, tensor<3xi1>, tensor<1x5xi64>, tensor<3x3xi64>
}""",
    "grouped_conv": f"""
func.func @grouped_conv(%x: tensor<1x4x6x6xf32>, %n: tensor<1x5x5x6xf32>) -> (tensor<1x6x6x6xf32>, tensor<1x3x3x9xf32>) {{
  %w = {weights(6, 2, 3, 3)}
  %b = {weights(6)}
  %c = nn.conv %x, %w, %b {{group = 2 : i64, pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  %nw = {weights(3, 3, 2, 9)}
  %nb = {weights(9)}
  %d = nn.fused_conv %n, %nw, %nb {{data_layout = "NHWC", group = 3 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, activation = "relu"}} : (tensor<1x5x5x6xf32>, tensor<3x3x2x9xf32>, tensor<9xf32>) -> tensor<1x3x3x9xf32>
  func.return %c, %d : tensor<1x6x6x6xf32>, tensor<1x3x3x9xf32>
}}""",
    "pad_modes": """
func.func @pad_modes(%x: tensor<1x2x4x5xf32>) -> (tensor<1x2x7x8xf32>, tensor<1x2x6x9xf32>) {
  %r = nn.pad %x {pads = array<i64: 0, 0, 2, 1, 0, 0, 1, 2>, mode = "reflect"} : (tensor<1x2x4x5xf32>) -> tensor<1x2x7x8xf32>
  %e = nn.pad %x {pads = array<i64: 0, 0, 0, 3, 0, 0, 2, 1>, mode = "edge"} : (tensor<1x2x4x5xf32>) -> tensor<1x2x6x9xf32>
  func.return %r, %e : tensor<1x2x7x8xf32>, tensor<1x2x6x9xf32>
}""",
    "qconv_float_silu": f"""
func.func @qconv_float_silu(%x: tensor<1x3x6x6xf32>) -> tensor<1x4x6x6xf32> {{
  %q = nn.quantize %x {{scale = array<f32: 0.05>, zero_point = array<i64: -2>}} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xi8>
  %w = {int8_weights(4, 3, 3, 3)}
  %c = nn.qconv %q, %w {{pads = array<i64: 1, 1, 1, 1>, input_zp = -2 : i64}} : (tensor<1x3x6x6xi8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi32>
  %d = nn.dequantize %c {{scale = array<f32: 1.0e-4, 2.0e-4, 5.0e-5, 3.0e-4>, zero_point = array<i64: 0, 0, 0, 0>, axis = 1 : i64}} : (tensor<1x4x6x6xi32>) -> tensor<1x4x6x6xf32>
  %s = nn.silu %d : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %s : tensor<1x4x6x6xf32>
}}""",
}
"""Each function name -> its nn MLIR text; inputs are random normal arrays (integer
inputs, indices, random in [-2, 2))."""

INT8_GRAPHS = {
    "qconv_nchw": f"""
func.func @qconv_nchw(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xi8>, tensor<1x4x8x8xf32>) {{
  %q = nn.quantize %x {{scale = array<f32: 0.05>, zero_point = array<i64: 3>}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xi8>
  %w = {int8_weights(4, 3, 3, 3)}
  %b = {const(RNG.integers(-500, 500, (4,)).astype(np.int32))}
  %c = nn.qconv %q, %w, %b {{pads = array<i64: 1, 1, 1, 1>, input_zp = 3 : i64}} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x8xi32>
  %r = nn.rescale %c {{multiplier = array<i32: 1518500250>, shift = array<i8: 40>, output_zp = -5 : i64}} : (tensor<1x4x8x8xi32>) -> tensor<1x4x8x8xi8>
  %d = nn.dequantize %r {{scale = array<f32: 0.1>, zero_point = array<i64: -5>}} : (tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xf32>
  func.return %r, %d : tensor<1x4x8x8xi8>, tensor<1x4x8x8xf32>
}}""",
    "qdepthwise_nhwc": f"""
func.func @qdepthwise_nhwc(%x: tensor<1x6x6x4xi8>) -> tensor<1x3x3x4xi8> {{
  %w = {int8_weights(3, 3, 1, 4)}
  %c = nn.qconv %x, %w {{data_layout = "NHWC", group = 4 : i64, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", input_zp = -2 : i64, weight_zp = 1 : i64}} : (tensor<1x6x6x4xi8>, tensor<3x3x1x4xi8>) -> tensor<1x3x3x4xi32>
  %r = nn.rescale %c {{multiplier = array<i32: 4194304, 5000000, 3000000, 9000000>, shift = array<i8: 32, 33, 32, 34>, rounding_mode = "DOUBLE_ROUND", per_channel = 1 : i64, output_zp = 7 : i64}} : (tensor<1x3x3x4xi32>) -> tensor<1x3x3x4xi8>
  func.return %r : tensor<1x3x3x4xi8>
}}""",
    "qconv_transpose_nchw": f"""
func.func @qconv_transpose_nchw(%x: tensor<1x3x4x5xf32>) -> (tensor<1x4x8x11xi32>, tensor<1x4x8x11xf32>) {{
  %q = nn.quantize %x {{scale = array<f32: 0.05>, zero_point = array<i64: -9>}} : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xi8>
  %w = {int8_weights(3, 4, 3, 3)}
  %b = {const(RNG.integers(-500, 500, (4,)).astype(np.int32))}
  %c = nn.qconv_transpose %q, %w, %b {{strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, output_padding = array<i64: 1, 1>, input_zp = -9 : i64, weight_zp = 2 : i64}} : (tensor<1x3x4x5xi8>, tensor<3x4x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x11xi32>
  %r = nn.rescale %c {{multiplier = array<i32: 1518500250>, shift = array<i8: 40>, output_zp = 6 : i64}} : (tensor<1x4x8x11xi32>) -> tensor<1x4x8x11xi8>
  %d = nn.dequantize %r {{scale = array<f32: 0.1>, zero_point = array<i64: 6>}} : (tensor<1x4x8x11xi8>) -> tensor<1x4x8x11xf32>
  func.return %c, %d : tensor<1x4x8x11xi32>, tensor<1x4x8x11xf32>
}}""",
    "qconv_transpose_nhwc": f"""
func.func @qconv_transpose_nhwc(%x: tensor<1x4x4x3xi8>) -> tensor<1x8x8x2xi8> {{
  %w = {int8_weights(2, 2, 2, 3)}
  %c = nn.qconv_transpose %x, %w {{data_layout = "NHWC", strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", input_zp = 4 : i64, weight_zp = -1 : i64}} : (tensor<1x4x4x3xi8>, tensor<2x2x2x3xi8>) -> tensor<1x8x8x2xi32>
  %r = nn.rescale %c {{multiplier = array<i32: 1518500250, 1073741824>, shift = array<i8: 39, 38>, rounding_mode = "DOUBLE_ROUND", per_channel = 1 : i64, output_zp = -4 : i64}} : (tensor<1x8x8x2xi32>) -> tensor<1x8x8x2xi8>
  func.return %r : tensor<1x8x8x2xi8>
}}""",
    "qconv_transpose_grouped": f"""
func.func @qconv_transpose_grouped(%x: tensor<1x4x3x3xi8>) -> tensor<1x6x7x7xi32> {{
  %w = {int8_weights(4, 3, 3, 3)}
  %b = {const(RNG.integers(-500, 500, (6,)).astype(np.int32))}
  %c = nn.qconv_transpose %x, %w, %b {{group = 2 : i64, strides = array<i64: 2, 2>, input_zp = -3 : i64, weight_zp = 5 : i64}} : (tensor<1x4x3x3xi8>, tensor<4x3x3x3xi8>, tensor<6xi32>) -> tensor<1x6x7x7xi32>
  func.return %c : tensor<1x6x7x7xi32>
}}""",
    "qmatmul": f"""
func.func @qmatmul(%a: tensor<2x3x8xi8>) -> (tensor<2x3x5xi32>, tensor<2x3x5xi8>) {{
  %b = {int8_weights(8, 5)}
  %m = nn.qmatmul %a, %b {{a_zp = 4 : i64, b_zp = -3 : i64}} : (tensor<2x3x8xi8>, tensor<8x5xi8>) -> tensor<2x3x5xi32>
  %r = nn.rescale %m {{multiplier = array<i32: 1717986918>, shift = array<i8: 42>, output_zp = 10 : i64}} : (tensor<2x3x5xi32>) -> tensor<2x3x5xi8>
  func.return %m, %r : tensor<2x3x5xi32>, tensor<2x3x5xi8>
}}""",
    "qmean": """
func.func @qmean(%x: tensor<2x5x6x4xi8>) -> (tensor<2x4xi8>, tensor<2x4x1x1xi8>) {
  %w = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = -3 : i64} : (tensor<2x5x6x4xi8>) -> tensor<2x5x6x4xi32>
  %s = nn.reduce_sum %w {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<2x5x6x4xi32>) -> tensor<2x4xi32>
  %m = nn.rescale %s {multiplier = array<i32: 1145324612>, shift = array<i8: 35>, output_zp = 6 : i64} : (tensor<2x4xi32>) -> tensor<2x4xi8>
  %r = nn.reduce_sum %w {axes = array<i64: 1, 2>, keepdims = 1 : i64} : (tensor<2x5x6x4xi32>) -> tensor<2x1x1x4xi32>
  %n = nn.rescale %r {multiplier = array<i32: 1431655765>, shift = array<i8: 36>, output_zp = -100 : i64} : (tensor<2x1x1x4xi32>) -> tensor<2x1x1x4xi8>
  %p = nn.transpose %n {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x1x1x4xi8>) -> tensor<2x4x1x1xi8>
  func.return %m, %p : tensor<2x4xi8>, tensor<2x4x1x1xi8>
}""",
    "qavg_pool": """
func.func @qavg_pool(%x: tensor<1x7x6x3xi8>, %y: tensor<1x3x5x5xi8>) -> (tensor<1x4x3x3xi8>, tensor<1x3x3x3xi8>) {
  %a = nn.qavg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC", input_zp = -7 : i64, output_zp = 12 : i64} : (tensor<1x7x6x3xi8>) -> tensor<1x4x3x3xi8>
  %b = nn.qavg_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, input_zp = 100 : i64, output_zp = 90 : i64} : (tensor<1x3x5x5xi8>) -> tensor<1x3x3x3xi8>
  func.return %a, %b : tensor<1x4x3x3xi8>, tensor<1x3x3x3xi8>
}""",
    "quantize_per_axis": """
func.func @quantize_per_axis(%x: tensor<2x3xf32>) -> (tensor<2x3xi8>, tensor<2x3xf32>) {
  %q = nn.quantize %x {scale = array<f32: 0.01, 0.02, 0.005>, zero_point = array<i64: 0, -3, 7>, axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi8>
  %d = nn.dequantize %q {scale = array<f32: 0.01, 0.02, 0.005>, zero_point = array<i64: 0, -3, 7>, axis = 1 : i64} : (tensor<2x3xi8>) -> tensor<2x3xf32>
  func.return %q, %d : tensor<2x3xi8>, tensor<2x3xf32>
}""",
    "qdq_uint8": """
func.func @qdq_uint8(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %q = nn.quantize %x {scale = array<f32: 0.02>, zero_point = array<i64: 128>} : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %d = nn.dequantize %q {scale = array<f32: 0.02>, zero_point = array<i64: 128>} : (tensor<2x3xui8>) -> tensor<2x3xf32>
  %r = nn.quantize %x {scale = array<f32: 0.01, 0.005, 0.02>, zero_point = array<i64: 0, 10, 255>, axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %e = nn.dequantize %r {scale = array<f32: 0.01, 0.005, 0.02>, zero_point = array<i64: 0, 10, 255>, axis = 1 : i64} : (tensor<2x3xui8>) -> tensor<2x3xf32>
  func.return %d, %e : tensor<2x3xf32>, tensor<2x3xf32>
}""",
}
"""int8 graphs: compared bit for bit with the interpreter's integer path."""
