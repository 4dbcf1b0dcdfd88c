"""ATen's recurrent layers on CPU (aten/src/ATen/native/RNN.cpp), as compositions of the engine's
differentiable ops in ATen's op order, so the float bits and the grad_fn names follow torch's:

- the cells (`SimpleCell`, `LSTMCell`, `GRUCell`): `linear_hh(h).add_(x_w)`, `unsafe_chunk` of the
  gates, in-place `sigmoid_`/`tanh_` on the chunks, ...; the input's product `linear_ih` is done for
  the whole sequence first (`pre_compute_input`, CPU only) and unbound per step;
- the layers (`FullLayer`, `FullBidirectionalLayer`), the layer stack with dropout between layers,
  the final hidden states stacked (`_rnn_impl_with_concat`, `_lstm_impl`);
- an LSTM on float32 CPU tensors without projections goes to oneDNN in torch (`mkldnn_rnn`): one
  `MkldnnRnnLayerBackward0` node per layer and direction, fed by the layer's input, its four weights
  (zeros for bias=False) and `hx[index]`/`cx[index]` (SelectBackward0). Its values are oneDNN's, bit for
  bit (onednn_lstm.py), its gradient the LSTM's backward through time on Tensors over the same gates
  (so it differentiates again under create_graph, as torch's mkldnn_rnn_layer_differentiable_backward
  does; oneDNN's own backward rounds differently in the last bits).
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..autograd_modes import grad_mode
from ..function import MultiOutputFunction, record_multi
from ..ops import replays
from ..ops.join_split import SplitBackward0, cat, stack
from ..tensor import wrap
from .rnn_packed import packed_stack, sizes_of

# ---------------------------------------------------------------------------- unsafe_chunk


class UnsafeSplitBackward0(SplitBackward0):
    """unsafe_chunk/unsafe_split: split's node over pieces that are no views (the cells modify them in place)."""
    __slots__ = ()


def unsafe_chunk(t, chunks, dim=1):
    arr = t._data
    n = arr.shape[dim]
    size = -(-n // chunks)
    outs = []
    for start in range(0, n, size):
        key = (slice(None),) * dim + (slice(start, min(start + size, n)),)
        outs.append(wrap(arr[key].copy(), t.dtype))
    return tuple(record_multi(UnsafeSplitBackward0, (t,), outs, {"dim": dim}))


# ---------------------------------------------------------------------------- cells

class Params:
    """CellParams: one layer's (and direction's) weights; w_hr only for an LSTM with projections."""
    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x):
        from .functional import linear  # noqa: PLC0415 - functional is heavy, imported with nn
        return linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        from .functional import linear  # noqa: PLC0415
        return linear(h, self.w_hh, self.b_hh)


def tanh_cell(x, h, p, pre=False):
    return p.linear_hh(h).add_(x if pre else p.linear_ih(x)).tanh()


def relu_cell(x, h, p, pre=False):
    return p.linear_hh(h).add_(x if pre else p.linear_ih(x)).relu()


def lstm_cell(x, hidden, p, pre=False):
    hx, cx = hidden
    gates = p.linear_hh(hx).add_(x if pre else p.linear_ih(x))
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
    cy = (f * cx).add_(i * g)
    hy = o * cy.tanh()
    if p.w_hr is not None:
        hy = hy.matmul(p.w_hr.t())
    return hy, cy


def gru_cell(x, h, p, pre=False):
    ig = unsafe_chunk(x if pre else p.linear_ih(x), 3, 1)
    hg = unsafe_chunk(p.linear_hh(h), 3, 1)
    reset = hg[0].add_(ig[0]).sigmoid_()
    update = hg[1].add_(ig[1]).sigmoid_()
    new = ig[2].add(hg[2].mul_(reset)).tanh_()
    return (h - new).mul_(update).add_(new)


CELLS = {"RNN_TANH": tanh_cell, "RNN_RELU": relu_cell, "LSTM": lstm_cell, "GRU": gru_cell}


def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


# ---------------------------------------------------------------------------- layers

def _steps(cell, steps, hidden, p):
    outs = []
    for s in steps:
        hidden = cell(s, hidden, p, True)
        outs.append(_output_of(hidden))
    return outs, hidden


def _full_layer(cell, x, hidden, p):
    outs, hidden = _steps(cell, p.linear_ih(x).unbind(0), hidden, p)
    if not outs:
        raise errors.runtime("Expected sequence length to be larger than 0 in RNN")
    return stack(outs, 0), hidden


def _bidirectional_layer(cell, x, hidden, p):
    fw, fw_hidden = _steps(cell, p[0].linear_ih(x).unbind(0), hidden[0], p[0])
    if not fw:
        raise errors.runtime("Expected sequence length to be larger than 0 in RNN")
    fw_out = stack(fw, 0)
    rev, rev_hidden = _steps(cell, p[1].linear_ih(x).unbind(0)[::-1], hidden[1], p[1])
    rev_out = stack(rev[::-1], 0)
    return cat([fw_out, rev_out], fw_out.dim() - 1), (fw_hidden, rev_hidden)


def _layer_stack(cell, x, hiddens, params, num_layers, dropout, train, bidirectional):
    """apply_layer_stack over the layers: the last layer's output and every final hidden state."""
    from .functional_dropout import dropout_impl  # noqa: PLC0415
    finals = []
    for layer in range(num_layers):
        if bidirectional:
            pair = (hiddens[2 * layer], hiddens[2 * layer + 1])
            x, (fw, rev) = _bidirectional_layer(cell, x, pair, (params[2 * layer], params[2 * layer + 1]))
            finals += [fw, rev]
        else:
            x, hidden = _full_layer(cell, x, hiddens[layer], params[layer])
            finals.append(hidden)
        if dropout != 0 and train and layer < num_layers - 1:
            x = dropout_impl(x, dropout, True)
    return x, finals


def gather_params(flat, has_biases, has_projections=False):
    per = (4 if has_biases else 2) + (1 if has_projections else 0)
    out = []
    for i in range(0, len(flat), per):
        w = flat[i:i + per]
        if has_biases:
            out.append(Params(w[0], w[1], w[2], w[3], w[4] if has_projections else None))
        else:
            out.append(Params(w[0], w[1], None, None, w[2] if has_projections else None))
    return out


def rnn(mode, input, hx, flat, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """_VF.rnn_tanh / rnn_relu / gru on a Tensor input: (output, h_n)."""
    x = input.transpose(0, 1) if batch_first else input
    out, finals = _layer_stack(CELLS[mode], x, list(hx.unbind(0)), gather_params(flat, has_biases),
                               num_layers, dropout, train, bidirectional)
    hy = stack(finals, 0)
    if batch_first:
        out.transpose_(0, 1)
    return out, hy


def lstm(input, hx, flat, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """_VF.lstm on a Tensor input: (output, h_n, c_n)."""
    h0, c0 = hx
    projections = h0.shape[2] != c0.shape[2]
    if not projections and input.dtype.name == "float32" and input.device.type == "cpu" and input.numel():
        return _mkldnn_lstm(input, h0, c0, flat, has_biases, num_layers, dropout, train, bidirectional,
                            batch_first)
    x = input.transpose(0, 1) if batch_first else input
    hiddens = list(zip(h0.unbind(0), c0.unbind(0)))
    out, finals = _layer_stack(lstm_cell, x, hiddens, gather_params(flat, has_biases, projections),
                               num_layers, dropout, train, bidirectional)
    hy = stack([h for h, _ in finals], 0)
    cy = stack([c for _, c in finals], 0)
    if batch_first:
        out = out.transpose(0, 1)
    return out, hy, cy


# ---------------------------------------------------------------------------- oneDNN's LSTM layer


def _lstm_direction(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
    """One direction of one layer, composite (the CPU cell's ops): per step in time order, the
    activations (i, f, g, o), c and h before the step, and the new (h, c)."""
    p = Params(w_ih, w_hh, b_ih, b_hh)
    steps = p.linear_ih(x).unbind(0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    acts = [None] * len(steps)
    for t in order:
        gates = p.linear_hh(h).add_(steps[t])
        i, f, g, o = unsafe_chunk(gates, 4, 1)
        i, f, g, o = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
        c_new = (f * c).add_(i * g)
        tc = c_new.tanh()
        h_new = o * tc
        acts[t] = (i, f, g, o, tc, h, c)
        h, c = h_new, c_new
    return acts, h, c


class MkldnnRnnLayerBackward0(MultiOutputFunction):
    """torch's node of oneDNN's LSTM layer (mkldnn_rnn_layer): inputs (input, weight0..3, hx, cx),
    outputs (output, hy, cy)."""
    __slots__ = ()
    save_inputs = True
    explain = "the LSTM layer's backward through time"
    replay = staticmethod(replays.lstm_layer)

    def backward(self, grads):
        x, w_ih, w_hh, b_ih, b_hh, hx, cx = self.saved
        kw = self._kw
        if not grad_mode.enabled and kw["arrays"] is not None:  # oneDNN's own backward, bit for bit
            from . import onednn_lstm  # noqa: PLC0415
            g_out, dh, dc = grads
            out = onednn_lstm.layer_backward(x._data, w_ih._data, w_hh._data, kw["arrays"], g_out._data, dh._data,
                                             dc._data, kw["reverse"])
            d_x, d_w_ih, d_w_hh, d_b, d_h, d_c = (wrap(a, x.dtype) for a in out)
            return d_x, d_w_ih, d_w_hh, d_b, d_b, d_h, d_c
        return self._composite_backward(grads, x, w_ih, w_hh, b_ih, b_hh, hx, cx)

    def _composite_backward(self, grads, x, w_ih, w_hh, b_ih, b_hh, hx, cx):
        """The backward through time on Tensors (torch's mkldnn_rnn_layer_differentiable_backward under
        create_graph): the forward redone as a function of the inputs, so it differentiates again."""
        kw = self._kw
        acts = kw["acts"]
        if grad_mode.enabled or acts is None:
            acts = _lstm_direction(x, w_ih, w_hh, b_ih, b_hh, hx, cx, kw["reverse"])[0]
        g_out, dh, dc = grads
        T = len(acts)
        order = range(T) if kw["reverse"] else range(T - 1, -1, -1)
        dz = [None] * T
        for t in order:
            i, f, g, o, tc, _, c_prev = acts[t]
            dh = g_out[t] + dh
            dc = dc + dh * o * (1 - tc * tc)
            dz[t] = cat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g),
                         dh * tc * o * (1 - o)], 1)
            dh = dz[t].mm(w_hh)
            dc = dc * f
        dzs = stack(dz, 0)
        flat = dzs.reshape(-1, dzs.shape[2])
        h_prevs = stack([a[5] for a in acts], 0)
        d_x = dzs.matmul(w_ih)
        d_w_ih = flat.t().mm(x.reshape(-1, x.shape[2]))
        d_w_hh = flat.t().mm(h_prevs.reshape(-1, h_prevs.shape[2]))
        d_b = flat.sum(0)
        return d_x, d_w_ih, d_w_hh, d_b, d_b, dh, dc


def _mkldnn_layer(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """mkldnn_rnn_layer: oneDNN's forward, bit for bit (onednn_lstm.py), under one node."""
    from . import onednn_lstm  # noqa: PLC0415
    steps, batch, size = x.shape
    hidden = w_hh.shape[1]
    continued = onednn_lstm.continued_chain(batch, size, hidden, grad_mode.enabled)
    arrays = onednn_lstm.layer_forward(x._data, w_ih._data, w_hh._data, b_ih._data + b_hh._data, hx._data,
                                       cx._data, reverse, continued)
    dt = x.dtype
    out, hy, cy = (wrap(np.ascontiguousarray(a), dt) for a in arrays[:3])
    acts = [tuple(wrap(a, dt) for a in step) for step in arrays[3]]
    inputs = (x, w_ih, w_hh, b_ih, b_hh, hx, cx)
    node_kw = {"reverse": reverse, "acts": acts, "arrays": arrays[3]}
    return record_multi(MkldnnRnnLayerBackward0, inputs, [out, hy, cy], node_kw)


def _mkldnn_lstm(input, h0, c0, flat, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """aten/src/ATen/native/mkldnn/RNN.cpp's mkldnn_rnn: one mkldnn_rnn_layer per layer and direction."""
    from ..factory import zeros  # noqa: PLC0415
    from .functional_dropout import dropout_impl  # noqa: PLC0415
    if h0.dtype is not input.dtype or c0.dtype is not input.dtype:
        raise errors.runtime("get_mkldnn_dtype: unsupported data type")
    x = input.transpose(0, 1) if batch_first else input
    x = x.contiguous()
    dirs = 2 if bidirectional else 1
    per = 4 if has_biases else 2
    hys, cys = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            index = layer * dirs + d
            w = flat[index * per:(index + 1) * per]
            if has_biases:
                b_ih, b_hh = w[2], w[3]
            else:
                b_ih = zeros(w[0].shape[0], dtype=w[0].dtype)
                b_hh = zeros(w[1].shape[0], dtype=w[1].dtype)
            out, hy, cy = _mkldnn_layer(x, w[0], w[1], b_ih, b_hh, h0[index], c0[index], d > 0)
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        x = outs[0] if dirs == 1 else cat(outs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = dropout_impl(x, dropout, True)
    hy, cy = stack(hys, 0), stack(cys, 0)
    if batch_first:
        x = x.transpose(0, 1)
    return x, hy, cy


# ---------------------------------------------------------------------------- over a PackedSequence


def rnn_packed(mode, data, batch_sizes, hx, flat, has_biases, num_layers, dropout, train, bidirectional):
    """_VF.rnn_tanh / rnn_relu / gru on (data, batch_sizes): (output data, h_n)."""
    out, finals = packed_stack(CELLS[mode], data, sizes_of(batch_sizes), list(hx.unbind(0)),
                               gather_params(flat, has_biases), num_layers, dropout, train, bidirectional)
    return out, stack(finals, 0)


def lstm_packed(data, batch_sizes, hx, flat, has_biases, num_layers, dropout, train, bidirectional):
    """_VF.lstm on (data, batch_sizes): the composite in torch too (no oneDNN for packed input)."""
    h0, c0 = hx
    projections = h0.shape[2] != c0.shape[2]
    hiddens = list(zip(h0.unbind(0), c0.unbind(0)))
    out, finals = packed_stack(lstm_cell, data, sizes_of(batch_sizes), hiddens,
                               gather_params(flat, has_biases, projections), num_layers, dropout, train, bidirectional)
    return out, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)
