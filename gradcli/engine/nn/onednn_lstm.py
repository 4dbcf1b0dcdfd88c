"""oneDNN's float32 LSTM layer forward (what torch's nn.LSTM runs on the CPU: mkldnn_rnn_layer), bit for bit
on AVX-512 machines, in NumPy.

Measured against torch 2.13 (tests/test_rnn.py, where torch is installed; tests/golden/scripts/rnn_*): every element of
the outputs, h_n and c_n equal for input sizes 1..300, hidden sizes 4..256, batches 1..256, both directions,
stacked layers, with and without grad mode. What oneDNN computes:

- the products: each gate pre-activation is a chain of float32 fused multiply-adds over k in order (its
  GEMM kernels accumulate one k at a time in registers): L = x_t W_ih^T for all steps first, then per step
  the recurrent product h_{t-1} W_hh^T, either as its own chain added to L (`separate`) or continuing L's
  chain (`continued`); which one depends on oneDNN's choice of kernel: with grad mode on (torch asks
  for a training forward), continued for a batch of 1, separate otherwise; with grad mode off,
  continued when the batch is 2 or more and the input size equals the hidden size, separate otherwise;
  then + (b_ih + b_hh), the two biases summed first in float32 (torch passes their sum);
- the gates: oneDNN's JIT eltwise injector, not libm: logistic as exp(-|x|) / (exp(-|x|) + 1) (1 minus
  that for x >= 0) with its exp a degree-5 polynomial after a 2^n reduction, tanh a degree-6 polynomial
  from a table of 32 intervals (one per half binade);
- c_t = fma(i, g, f * c_{t-1}), h_t = o * tanh(c_t).
"""
from __future__ import annotations

import numpy as np

from ..rng_math import fma32

_F32 = np.float32


def _f(bits):
    return np.array([bits], np.uint32).view(_F32)[0]


_LN_MAX, _LN_MIN = _f(0x42b17218), _f(0xc2aeac50)
_LOG2E, _LN2 = _f(0x3fb8aa3b), _f(0x3f317218)
_EXP_POL = [_f(b) for b in (0x3f7ffffb, 0x3efffee3, 0x3e2aad40, 0x3d2b9d0d, 0x3c07cfce)]  # p1..p5
_ONE, _HALF = _F32(1), _F32(0.5)

_TANH_TABLE = """
00000000 39bfffff 39ffffff 3a3ffffe 3a7ffffb 3abffff7 3affffeb 3b3fffdc 3b7fffab 3bbfff70 3bfffeab 3c3ffdc0 3c7ffaab
3cbff701 3cffeaad 3d3fdc08 3d7faacd 3dbf7081 3dfeacc9 3e3dc7fd 3e7acbf5 3eb77a9f 3eec9a9f 3f22991f 3f42f7d6 3f67b7cc
3f76ca83 3f7ebbe9 3f7fd40c 3f7fff32 3f7ffffc 3f800000
3f800000 3f800018 3f7fffe8 3f7fffda 3f7fffdc 3f7fffdc 3f7fffac 3f7fff70 3f7ffeec 3f7ffdc0 3f7ffbed 3f7ff704 3f7feff5
3f7fdbca 3f7fbfff 3f7f7041 3f7f009b 3f7dc36c 3f7c0aa8 3f7734b8 3f70a4de 3f5f1fd8 3f495493 3f18b9ec 3ed706cb 3e390b06
3d90b11f 3c21a053 3aaf7fdb 37ccc1a3 355c6733 00000000
00000000 be4e0ff1 3d25b1b1 3d6b6dab 3c9fb1d5 babff06f 3c07b3f6 bb3fc1bc 3a9f5921 bbbf06f2 bbb0f402 bc47db9e bc73d5e7
bca25bda bcfca780 bd40e07c bd7dab03 bdbe4a0f bdfb14a5 be36cc8d be6bd102 be9fe7c5 beba0f10 bec206a8 bea3c388 be277d62
bd8b7960 bc209f49 baad44ca b7c6eeac b663aa41 00000000
00000000 45b3ae96 c414eb20 c450e02e c3152b4e bead2f56 c2162e02 beb4bd5a c11a59a4 bed2f507 c020d32c 3dd0f506 bf2a75e2
bff950e3 bed47334 be809b8c beb64532 be961a5b be9b63ac bea0d4b2 be828a77 be378612 bdc20908 3d2d3957 3dd46e89 3db3f629
3d2c5e7b 3bd20403 3a59dfae 3770af45 372cc014 00000000
00000000 cc981a1b 4a7edd3d 4ab1007c 48fedd9c 41a557b5 477ee32a 422557f5 45ff3ce4 42a55641 446e0867 c33dc19a 42915214
43af4fad 4110fe88 c1099b75 3fc8a8dc bfbeaef5 be365aad 3f4d9652 3ddfa08f 3e34e9b8 3e2d07a6 3dc63567 3cdaeb78 bcd17537
bc92829c bb43ab99 b9b471dd b6baad5a b78bafc7 00000000
00000000 52f688d5 d0505c72 d08f98e3 ce505cc9 c7162b8a cc5061d6 c7162bdf ca50b37f c7162a3a c8422086 471a714e c5ece1f1
c70e3d90 c3eba94a 43e0c424 c21f4552 42217cc8 405e7dc4 c10dd401 3e96b602 bd1a6d2f bd393883 bd674682 bd310016 b961e269
3ba32495 3a7680d5 38b3173c 35a9deea 375c3f2a 00000000
00000000 d8995ed1 558285ea 55b2cd69 53028625 4bc9991f 5082898a 4b4999b3 4e02c07c 4ac99764 4b72c822 ca40c0e1 489413e4
49b12224 46134c4e c60c2d57 43c83910 c3c872d1 c186bc9e 42325bc3 bf2ffa4a 3d9a203c bc545a43 bae08fee 3c80225d 3b1fd1df
ba36b9d1 b91de544 b71f100f b408e2ed b685fec8 00000000
"""
# the coefficients of degree 0..6, 32 intervals each (oneDNN's tanh_polynomial_table)
TANH_COEFFS = np.array([int(w, 16) for w in _TANH_TABLE.split()], np.uint32).view(_F32).reshape(7, 32)
_TANH_LINEAR, _TANH_SATURATION = _f(0x39ddb3d7), _f(0x41102cb3)


def exp_neg(x):
    """The injector's exp for x <= 0 (logistic's argument): 2^n * p(r), the 2^n as 2 * 2^(n-1)."""
    zero = x < _LN_MIN
    x = np.maximum(np.minimum(x, _LN_MAX), _LN_MIN)
    fx = np.floor(x * _LOG2E + _HALF)
    r = fma32(-fx, _LN2, x)
    scale = ((fx - _ONE).astype(np.int32) + 127 << 23).view(_F32)
    scale = np.where(zero, _F32(0), scale)
    y = np.full_like(x, _EXP_POL[4])
    for p in (_EXP_POL[3], _EXP_POL[2], _EXP_POL[1], _EXP_POL[0], _ONE):
        y = fma32(y, r, p)
    y = y * scale
    return y + y


def logistic(x):
    negative = x.view(np.uint32) >> 31 == 1
    e = exp_neg(-np.abs(x))
    y = e / (e + _ONE)
    return np.where(negative, y, _ONE - y)


def tanh(x):
    bits = x.view(np.uint32)
    abs_bits = bits & np.uint32(0x7fffffff)
    s = abs_bits.view(_F32)
    idx = ((abs_bits.astype(np.int64) - 0x39800000) & 0xffc00000) >> 22 & 31
    r = s - (abs_bits & np.uint32(0xffc00000)).view(_F32)
    pol = TANH_COEFFS[6][idx]
    for deg in range(5, -1, -1):
        pol = fma32(pol, r, TANH_COEFFS[deg][idx])
    out = np.where(_TANH_SATURATION > s, pol, _ONE)
    out = np.where(_TANH_LINEAR > s, s, out).astype(_F32)
    return np.where(bits >> 31 == 1, -out, out)


def chained_products(a, w, acc=None):
    """acc + a @ w.T as one fused multiply-add per k, in k's order (a: (m, k), w: (n, k))."""
    out = np.zeros((a.shape[0], w.shape[0]), _F32) if acc is None else acc
    for k in range(a.shape[1]):
        out = fma32(a[:, k:k + 1], w[:, k], out)
    return out


def continued_chain(batch, input_size, hidden_size, grad_mode):
    """Whether oneDNN's kernel continues the input product's chain with the recurrent one (see above)."""
    if grad_mode:
        return batch == 1
    return batch >= 2 and input_size == hidden_size


def layer_forward(x, w_ih, w_hh, bias, h, c, reverse, continued):
    """One direction of one layer on float32 arrays (x: (T, B, I)): the outputs (T, B, H), the final h
    and c, and per step (in time order) the gates i, f, g, o, tanh(c_t) and h_{t-1}, c_{t-1}."""
    steps, batch = x.shape[0], x.shape[1]
    hidden = w_hh.shape[1]
    layer = chained_products(np.ascontiguousarray(x).reshape(steps * batch, -1), w_ih).reshape(steps, batch, -1)
    out = np.empty((steps, batch, hidden), _F32)
    acts = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if continued:
            gates = chained_products(h, w_hh, layer[t].copy()) + bias
        else:
            gates = (layer[t] + chained_products(h, w_hh)) + bias
        i = logistic(gates[:, :hidden])
        f = logistic(gates[:, hidden:2 * hidden])
        g = tanh(gates[:, 2 * hidden:3 * hidden])
        o = logistic(gates[:, 3 * hidden:])
        c_new = fma32(i, g, f * c)
        tc = tanh(c_new)
        h_new = o * tc
        acts[t] = (i, f, g, o, tc, h, c)
        out[t] = h_new
        h, c = h_new, c_new
    return out, h, c, acts


def layer_backward(x, w_ih, w_hh, acts, d_out, d_hy, d_cy, reverse):
    """oneDNN's backward of one direction of one layer (mkldnn_rnn_layer_backward): (d_x, d_w_ih, d_w_hh,
    d_bias, d_h0, d_c0), bit for bit as measured (tests/test_rnn.py) while the weights' sums over the
    (step, batch) rows stay in one thread's chain (measured up to 96 rows; on longer ones oneDNN splits
    them between its threads by its GEMM's heuristic, not reproduced: the weights' gradients then differ in
    their last bits), and except the input's gradient for an input size of 1 (oneDNN's GEMV order). Worked in oneDNN's iteration order (a reverse
    direction's arrays flipped in time): per step back from the last, d_h = d_out + the later step's,
    d_c = d_c' + (fma(-tc, tc, 1) * d_h) * o, the gates' gradients from fma(-s, s, s) (logistic) and
    fma(-g, g, 1) (tanh), the bias gradient summed row by row in that order, d_h' = chain(dG, W_hh) and
    d_c' = d_c * f; then the weights' gradients as FMA chains over (step, batch) rows: W_ih's one chain,
    W_hh's the later steps' chain plus the first step's (one chain for a reverse direction)."""
    if reverse:
        x, acts, d_out = x[::-1], acts[::-1], d_out[::-1]
    steps, batch = x.shape[0], x.shape[1]
    one = _ONE
    dh, dc = d_hy, d_cy
    dgs = [None] * steps
    d_x = np.empty(x.shape, _F32)
    d_bias = np.zeros(w_ih.shape[0], _F32)
    for t in range(steps - 1, -1, -1):
        i, f, g, o, tc, _, c_prev = acts[t]
        d_h = d_out[t] + dh
        d_c = dc + (fma32(-tc, tc, one) * d_h) * o
        dg = np.concatenate([(d_c * fma32(-i, i, i)) * g, (d_c * fma32(-f, f, f)) * c_prev,
                             (i * d_c) * fma32(-g, g, one), (d_h * fma32(-o, o, o)) * tc], 1)
        dgs[t] = dg
        for b in range(batch):
            d_bias = d_bias + dg[b]
        dh = chained_products(dg, np.ascontiguousarray(w_hh.T))
        dc = d_c * f
        d_x[t] = chained_products(dg, np.ascontiguousarray(w_ih.T))
    rows = np.stack(dgs).reshape(steps * batch, -1)
    rows_t = np.ascontiguousarray(rows.T)
    d_w_ih = chained_products(rows_t, np.ascontiguousarray(x.reshape(steps * batch, -1).T))
    h_prev = np.stack([a[5] for a in acts]).reshape(steps * batch, -1)
    if reverse:
        d_w_hh = chained_products(rows_t, np.ascontiguousarray(h_prev.T))
    else:
        d_w_hh = chained_products(np.ascontiguousarray(rows_t[:, :batch]), np.ascontiguousarray(h_prev[:batch].T))
        if steps > 1:
            later = chained_products(np.ascontiguousarray(rows_t[:, batch:]), np.ascontiguousarray(h_prev[batch:].T))
            d_w_hh = later + d_w_hh
    if reverse:
        d_x = d_x[::-1]
    return np.ascontiguousarray(d_x), d_w_ih, d_w_hh, d_bias, dh, dc
