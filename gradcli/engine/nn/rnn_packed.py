"""torch.nn.utils.rnn: PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence,
pack_sequence, unpack_sequence, unpad_sequence and invert_permutation (torch/nn/utils/rnn.py over
aten/src/ATen/native/PackedSequence.cpp), and the recurrent layers over a PackedSequence (RNN.cpp's
PackedLayer, ReversedPackedLayer and PackedBidirectionalLayer: the input's product for all the packed
rows first, a narrow per step, the finished sequences' hidden states sliced off and put back together
at the end)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..autograd_modes import no_grad
from ..function import Function, record
from ..ops.join_split import cat, stack
from ..tensor import Tensor, wrap


class PackedSequence(tuple):
    """torch.nn.utils.rnn.PackedSequence: the named tuple (data, batch_sizes, sorted_indices,
    unsorted_indices)."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise errors.assertion("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data[0], data[1]
        return tuple.__new__(cls, (data, batch_sizes, sorted_indices, unsorted_indices))

    data = property(lambda self: self[0])
    batch_sizes = property(lambda self: self[1])
    sorted_indices = property(lambda self: self[2])
    unsorted_indices = property(lambda self: self[3])

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False

    def __repr__(self):
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, unsorted_indices={self.unsorted_indices!r})")

    def _replace_data(self, data):
        return PackedSequence(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace_data(data)

    def float(self):
        return self.to(dtype=_dtypes().float32)

    def double(self):
        return self.to(dtype=_dtypes().float64)

    def cpu(self):
        return self.to(device="cpu")


def _dtypes():
    from .. import dtypes  # noqa: PLC0415
    return dtypes


def _long(values):
    from ..factory import tensor  # noqa: PLC0415
    return tensor(values, dtype=_dtypes().int64)


def invert_permutation(permutation):
    if permutation is None:
        return None
    out = np.empty_like(permutation._data)
    out[permutation._data] = np.arange(permutation._data.size)
    return wrap(out, permutation.dtype)


# ---------------------------------------------------------------------------- pack / pad


class PackPaddedSequenceBackward0(Function):
    __slots__ = ()
    explain = "1 at each packed element's place in the padded {a}"
    no_replay = "a gather of rows (torch's _pack_padded_sequence)"

    def backward(self, g):
        kw = self._kw
        return (_unpack_rows(g, kw["batch_sizes"], kw["shape"], kw["batch_first"]),)


def _unpack_rows(g, batch_sizes, shape, batch_first):
    """_pack_padded_sequence_backward as a composition (so it differentiates again): each step's rows
    of g, padded with zeros to the batch, stacked in time."""
    from ..factory import zeros  # noqa: PLC0415
    t_shape = (shape[1], shape[0]) + tuple(shape[2:]) if batch_first else tuple(shape)
    steps, offset = [], 0
    for bs in batch_sizes:
        rows = g.narrow(0, offset, bs)
        offset += bs
        if bs < t_shape[1]:
            rows = cat([rows, zeros(t_shape[1] - bs, *t_shape[2:], dtype=g.dtype)], 0)
        steps.append(rows)
    for _ in range(t_shape[0] - len(batch_sizes)):
        steps.append(zeros(*t_shape[1:], dtype=g.dtype))
    out = stack(steps, 0)
    return out.transpose(0, 1) if batch_first else out


def _pack(input, lengths, batch_first):
    """_VF._pack_padded_sequence: (data, batch_sizes)."""
    x = input._data.swapaxes(0, 1) if batch_first else input._data
    ls = [int(v) for v in lengths._data.reshape(-1)]
    if lengths.dim() != 1 or lengths.dtype is not _dtypes().int64:
        raise errors.runtime(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D cpu "
                             f"{lengths.dtype.c10} tensor")
    batch = x.shape[1]
    if input.numel() == 0:
        raise errors.runtime("Cannot pack empty tensors.")
    if len(ls) != batch:
        raise errors.runtime(f"Expected `len(lengths)` to be equal to batch_size, but got {len(ls)} "
                             f"(batch_size={batch})")
    if ls[batch - 1] <= 0:
        raise errors.runtime("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                             "that is <= 0")
    for i in range(batch - 1):
        if ls[batch - 1 - i] > ls[batch - 2 - i]:
            raise errors.runtime("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                                 "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                                 "to sidestep this requirement if you do not need ONNX exportability.")
    blocks, sizes, prev = [], [], 0
    for i in range(batch):
        length = ls[batch - 1 - i]
        if length > prev:
            block = x[prev:length, :batch - i]
            blocks.append(block.reshape((-1,) + x.shape[2:]))
            sizes += [batch - i] * (length - prev)
            prev = length
    data = wrap(np.ascontiguousarray(np.concatenate(blocks, 0)), input.dtype)
    kw = {"batch_sizes": sizes, "shape": tuple(input._data.shape), "batch_first": batch_first}
    return record(PackPaddedSequenceBackward0, (input,), data, kw), _long(sizes)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=_dtypes().int64)
    else:
        lengths = _long(list(lengths))
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    from ..factory import full  # noqa: PLC0415
    sizes = [int(v) for v in sequence.batch_sizes._data]
    max_seq = len(sizes)
    if total_length is not None:
        if total_length < max_seq:
            raise errors.value("Expected total_length to be at least the length of the longest sequence in input, "
                               f"but got total_length={total_length} and max sequence length being {max_seq}")
        max_seq = total_length
    data = sequence.data
    out = full((max_seq, sizes[0]) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = [0] * sizes[0]
    offset, prev_bs, prev_i = 0, sizes[0], 0
    for i in range(len(sizes) + 1):
        bs = sizes[i] if i != len(sizes) else 0
        if bs != prev_bs:
            n = prev_bs * (i - prev_i)
            tmp = data.narrow(0, offset, n).view((i - prev_i, prev_bs) + tuple(data.shape[1:]))
            out.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_bs).copy_(tmp)
            offset += n
            prev_i = i
        for j in range(bs, prev_bs):
            lengths[j] = i
        prev_bs = bs
    if batch_first:
        out = out.transpose(0, 1)
    lengths = _long(lengths)
    if sequence.unsorted_indices is not None:
        un = sequence.unsorted_indices
        return out.index_select(0 if batch_first else 1, un), lengths[un]
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    from ..factory import full  # noqa: PLC0415
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise errors.runtime("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                             f"{type(sequences)}") from None
    if not sequences:
        raise errors.runtime("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise errors.runtime(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for s in sequences:
        if not isinstance(s, Tensor):
            raise errors.type_error(f"pad_sequence(): argument 'sequences' (position 1) must be tuple of Tensors, "
                                    f"but found element of type {type(s).__name__} at pos 0")
    first = sequences[0]
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(first.shape[1:])
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = full(dims + trailing, padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = s.size(0)
        start = 0 if padding_side == "right" else max_len - n
        if batch_first:
            out.select(0, i).narrow(0, start, n).copy_(s)
        else:
            out.narrow(0, start, n).select(1, i).copy_(s)
    return out


def pack_sequence(sequences, enforce_sorted=True):
    lengths = _long([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    out = []
    for seq, length in zip(padded_sequences, lengths):
        out.append(seq[:int(length)])
    return out


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


NAMES = ("PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
         "unpack_sequence", "unpad_sequence", "invert_permutation")

PackedSequence.__module__ = "torch.nn.utils.rnn"


# ---------------------------------------------------------------------------- packed layers

def _slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return cat(hiddens, 0)


def _packed_layer(cell, data, sizes, hidden, p):
    x_w = p.linear_ih(data)
    outs, hiddens, offset, last = [], [], 0, sizes[0]
    for bs in sizes:
        step = x_w.narrow(0, offset, bs)
        offset += bs
        dec = last - bs
        if dec > 0:
            hiddens.append(_slice(hidden, last - dec, last))
            hidden = _slice(hidden, 0, last - dec)
        last = bs
        hidden = cell(step, hidden, p, True)
        outs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    hiddens.append(hidden)
    hiddens.reverse()
    return cat(outs, 0), _concat(hiddens)


def _reversed_packed_layer(cell, data, sizes, input_hidden, p):
    x_w = p.linear_ih(data)
    outs, offset, last = [], data.shape[0], sizes[-1]
    hidden = _slice(input_hidden, 0, sizes[-1])
    for bs in reversed(sizes):
        if bs - last > 0:
            hidden = _concat([hidden, _slice(input_hidden, last, bs)])
        step = x_w.narrow(0, offset - bs, bs)
        offset -= bs
        last = bs
        hidden = cell(step, hidden, p, True)
        outs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    outs.reverse()
    return cat(outs, 0), hidden


def packed_stack(cell, data, sizes, hiddens, params, num_layers, dropout, train, bidirectional):
    """apply_layer_stack over PackedLayer / PackedBidirectionalLayer: the last layer's data and every final
    hidden state."""
    from .functional_dropout import dropout_impl  # noqa: PLC0415
    finals = []
    for layer in range(num_layers):
        if bidirectional:
            i = 2 * layer
            fw, fw_h = _packed_layer(cell, data, sizes, hiddens[i], params[i])
            rev, rev_h = _reversed_packed_layer(cell, data, sizes, hiddens[i + 1], params[i + 1])
            data = cat([fw, rev], -1)
            finals += [fw_h, rev_h]
        else:
            data, hidden = _packed_layer(cell, data, sizes, hiddens[layer], params[layer])
            finals.append(hidden)
        if dropout != 0 and train and layer < num_layers - 1:
            data = dropout_impl(data, dropout, True)
    return data, finals


def sizes_of(batch_sizes):
    with no_grad():
        return [int(v) for v in batch_sizes._data.reshape(-1)]
