"""torch.nn's recurrent modules (torch/nn/modules/rnn.py): RNN, LSTM, GRU and RNNCell, LSTMCell,
GRUCell, with torch's parameters (names, order, shapes), default initialisation (uniform in
+-1/sqrt(hidden_size) for every parameter in registration order: the same random stream), argument
checks and messages, reprs, and forwards (unbatched inputs, batch_first, h0/(h0, c0), stacked and
bidirectional layers, dropout between layers, LSTM projections) on rnn_ops.py's composites.
A PackedSequence input runs RNN.cpp's packed layers (rnn_packed.py)."""
from __future__ import annotations

import math
import numbers
import warnings

from .. import errors
from ..argcheck import typename
from ..tensor import Tensor
from . import init, rnn_ops
from .rnn_packed import PackedSequence
from .module import Module
from .parameter import Parameter


def _empty(*shape, dtype=None, device=None):
    from ..factory import empty  # noqa: PLC0415
    return empty(*shape, dtype=dtype, device=device)


def _zeros(*shape, like):
    from ..factory import zeros  # noqa: PLC0415
    return zeros(*shape, dtype=like.dtype, device=like.device)


def _dim_of(value):
    """value.dim(), with Python's AttributeError for what is no Tensor (as torch's forward meets it)."""
    if not isinstance(value, Tensor):
        raise AttributeError(f"'{typename(value)}' object has no attribute 'dim'")
    return value.dim()


def _check_int(name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise errors.type_error(f"{name} should be of type int, got: {typename(value)}")


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise errors.value("dropout should be a number in range [0, 1] representing the probability of an "
                               "element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", UserWarning, stacklevel=2)
        if not isinstance(bias, bool):
            raise errors.type_error(f"bias should be of type bool, got: {typename(bias)}")
        if not isinstance(batch_first, bool):
            raise errors.type_error(f"batch_first should be of type bool, got: {typename(batch_first)}")
        _check_int("input_size", input_size)
        if input_size <= 0:
            raise errors.value("input_size must be greater than zero")
        _check_int("hidden_size", hidden_size)
        if hidden_size <= 0:
            raise errors.value("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise errors.value("num_layers must be greater than zero")
        if proj_size < 0:
            raise errors.value("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise errors.value("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        names = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih_", (gate_size, layer_input)), ("weight_hh_", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_", (gate_size,)), ("bias_hh_", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr_", (proj_size, hidden_size)))
                for prefix, shape in shapes:
                    setattr(self, prefix + suffix, Parameter(_empty(*shape, dtype=dtype, device=device)))
                    names.append(prefix + suffix)
        self._flat_weights_names = names
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op on CPU, as in torch (cuDNN's packed weights)."""

    @property
    def all_weights(self):
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ the checks of torch's forward

    def _check_input(self, input, packed=False):
        weight = getattr(self, self._flat_weights_names[0])
        if input.dtype is not weight.dtype:
            raise errors.value(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                               f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if packed else 3
        if input.dim() != expected:
            raise errors.runtime(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise errors.runtime(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                                 f"got {input.size(-1)}")

    def _expected_hidden(self, input, size, batch=None):
        if batch is None:
            batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def _check_hidden(hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise errors.runtime(msg.format(expected, list(hx.size())))

    def _batched(self, input):
        d = _dim_of(input)
        if d not in (2, 3):
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            tail = " tensor instead" if name == "RNN" else " instead"
            raise errors.value(f"{name}: Expected input to be 2D or 3D, got {d}D{tail}")
        return d == 3

    def _packed(self, input, hx, lstm=False):
        """The forward of a PackedSequence input: hx (given in the caller's order) permuted to the sorted
        order, the packed layers, the output packed again and the hidden state put back in order."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        batch = int(batch_sizes[0])
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            shape = self._expected_hidden(data, real_hidden, batch)
            hx = _zeros(*shape, like=data)
            if lstm:
                hx = (hx, _zeros(*self._expected_hidden(data, self.hidden_size, batch), like=data))
        elif sorted_indices is not None:
            hx = tuple(h.index_select(1, sorted_indices) for h in hx) if lstm else hx.index_select(1, sorted_indices)
        if lstm:
            output, hy, cy = rnn_ops.lstm_packed(data, batch_sizes, (hx[0], hx[1]), self._flat_weights(), self.bias,
                                                 self.num_layers, self.dropout, self.training, self.bidirectional)
            hidden = (hy, cy)
        else:
            self._check_input(data, packed=True)
            self._check_hidden(hx, self._expected_hidden(data, self.hidden_size, batch))
            output, hidden = rnn_ops.rnn_packed(self.mode, data, batch_sizes, hx, self._flat_weights(), self.bias,
                                                self.num_layers, self.dropout, self.training, self.bidirectional)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        if unsorted_indices is not None:
            hidden = (tuple(h.index_select(1, unsorted_indices) for h in hidden) if lstm
                      else hidden.index_select(1, unsorted_indices))
        return output, hidden

    def _one_hidden_forward(self, input, hx):
        """RNN's and GRU's forward (one hidden state)."""
        if isinstance(input, PackedSequence):
            return self._packed(input, hx)
        is_batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if _dim_of(hx) != 2:
                    raise errors.runtime(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and _dim_of(hx) != 3:
            raise errors.runtime(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = _zeros(*self._expected_hidden(input, self.hidden_size), like=input)
        self._check_input(input)
        self._check_hidden(hx, self._expected_hidden(input, self.hidden_size))
        output, hidden = rnn_ops.rnn(self.mode, input, hx, self._flat_weights(), self.bias, self.num_layers,
                                     self.dropout, self.training, self.bidirectional, self.batch_first)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise errors.value("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise errors.value(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden_forward(input, hx)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise errors.value("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden_forward(input, hx)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._packed(input, hx, lstm=True)
        is_batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            hx = (_zeros(*self._expected_hidden(input, real_hidden), like=input),
                  _zeros(*self._expected_hidden(input, self.hidden_size), like=input))
        else:
            h0, c0 = hx[0], hx[1]
            dims = (_dim_of(h0), _dim_of(c0))
            if is_batched:
                if dims != (3, 3):
                    raise errors.runtime(f"For batched 3-D input, hx and cx should also be 3-D but got "
                                         f"({dims[0]}-D, {dims[1]}-D) tensors")
            else:
                if dims != (2, 2):
                    raise errors.runtime(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                         f"({dims[0]}-D, {dims[1]}-D) tensors")
                hx = (h0.unsqueeze(1), c0.unsqueeze(1))
        self._check_input(input)
        self._check_hidden(hx[0], self._expected_hidden(input, real_hidden), "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], self._expected_hidden(input, self.hidden_size), "Expected hidden[1] size {}, got {}")
        if len(hx) != 2:
            raise errors.runtime("lstm expects two hidden states")
        output, hy, cy = rnn_ops.lstm(input, (hx[0], hx[1]), self._flat_weights(), self.bias, self.num_layers,
                                      self.dropout, self.training, self.bidirectional, self.batch_first)
        if not is_batched:
            return output.squeeze(batch_dim), (hy.squeeze(1), cy.squeeze(1))
        return output, (hy, cy)


# ---------------------------------------------------------------------------- cells

class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty(num_chunks * hidden_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(_empty(num_chunks * hidden_size, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    reset_parameters = RNNBase.reset_parameters

    def _prepare(self, input, name):
        d = _dim_of(input)
        if d not in (1, 2):
            raise errors.value(f"{name}: Expected input to be 1D or 2D, got {d}D instead")
        return d == 2

    def _cell(self, cell, input, hidden, gates):
        """at::rnn_tanh_cell / lstm_cell / gru_cell: the checks, then the composite cell."""
        w_ih, w_hh = self.weight_ih, self.weight_hh
        hiddens = hidden if isinstance(hidden, tuple) else (hidden,)
        for w, which in ((w_ih, "ih"), (w_hh, "hh")):
            if w.size(0) != gates * self.hidden_size:
                raise errors.runtime(f"weight_{which} first dim must be {gates} * hidden_size = "
                                     f"{gates * self.hidden_size}, but got {w.size(0)}")
        if input.size(1) != w_ih.size(1):
            raise errors.runtime(f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}")
        for k, h in enumerate(hiddens):
            if input.size(0) != h.size(0):
                raise errors.runtime(f"Input batch size {input.size(0)} doesn't match hidden{k} batch size "
                                     f"{h.size(0)}")
            if h.size(1) != w_hh.size(1):
                raise errors.runtime(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, expected "
                                     f"{w_hh.size(1)}")
        return cell(input, hidden, rnn_ops.Params(w_ih, w_hh, self.bias_ih, self.bias_hh))


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        is_batched = self._prepare(input, "RNNCell")
        if hx is not None and _dim_of(hx) not in (1, 2):
            raise errors.value(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if not is_batched:
            input = input.unsqueeze(0)
        hx = _zeros(input.size(0), self.hidden_size, like=input) if hx is None else (
            hx if is_batched else hx.unsqueeze(0))
        if self.nonlinearity == "tanh":
            ret = self._cell(rnn_ops.tanh_cell, input, hx, 1)
        elif self.nonlinearity == "relu":
            ret = self._cell(rnn_ops.relu_cell, input, hx, 1)
        else:
            raise errors.runtime(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._prepare(input, "LSTMCell")
        if hx is not None:
            if isinstance(hx, Tensor):
                raise errors.type_error("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                                        "Tensor")
            for idx, value in enumerate(hx):
                if _dim_of(value) not in (1, 2):
                    raise errors.value(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _zeros(input.size(0), self.hidden_size, like=input)
            hx = (zeros, zeros)
        else:
            hx = tuple(hx)
            if len(hx) != 2:
                raise errors.runtime("lstm_cell expects two hidden states")
            hx = hx if is_batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        hy, cy = self._cell(rnn_ops.lstm_cell, input, hx, 4)
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._prepare(input, "GRUCell")
        if hx is not None and _dim_of(hx) not in (1, 2):
            raise errors.value(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if not is_batched:
            input = input.unsqueeze(0)
        hx = _zeros(input.size(0), self.hidden_size, like=input) if hx is None else (
            hx if is_batched else hx.unsqueeze(0))
        ret = self._cell(rnn_ops.gru_cell, input, hx, 3)
        return ret if is_batched else ret.squeeze(0)


NAMES = ("RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell")

for _n in NAMES:
    globals()[_n].__module__ = "torch.nn.modules.rnn"
