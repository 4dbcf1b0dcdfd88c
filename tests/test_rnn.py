"""The recurrent layers (gradcli/engine/nn/rnn.py, rnn_ops.py): float64 gradient checks of every layer and
cell, first and second order, through the engine's gradcheck; oneDNN's LSTM node (the float32 LSTM's
MkldnnRnnLayerBackward0) against the composite's gradients; and scripts that hand the layers odd
hidden states (rendered errors, never an internal one). What torch prints for them is checked by the
goldens tests/golden/scripts/rnn_*.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine.gradcheck import gradcheck, gradgradcheck
from gradcli.lang.runner import RunOptions, run_source

nn = torch.nn


def _double(module):
    return module.double()


def _leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=True)


LAYERS = {
    "rnn_tanh": lambda: nn.RNN(3, 4),
    "rnn_relu_2_layers": lambda: nn.RNN(3, 4, num_layers=2, nonlinearity="relu"),
    "gru_bidirectional": lambda: nn.GRU(3, 4, bidirectional=True),
    "gru_batch_first_no_bias": lambda: nn.GRU(3, 4, bias=False, batch_first=True),
    "lstm": lambda: nn.LSTM(3, 4),
    "lstm_2_layers_bidirectional": lambda: nn.LSTM(3, 3, num_layers=2, bidirectional=True),
    "lstm_projections": lambda: nn.LSTM(3, 4, proj_size=2),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_gradcheck_first_and_second_order(name):
    torch.manual_seed(0)
    m = _double(LAYERS[name]())
    params = list(m.parameters())
    x = _leaf(3, 2, 3)
    directions = 2 if m.bidirectional else 1
    hidden = m.proj_size if getattr(m, "proj_size", 0) else m.hidden_size
    batch = 3 if m.batch_first else 2
    h0 = _leaf(m.num_layers * directions, batch, hidden, seed=1)

    if isinstance(m, nn.LSTM):
        c0 = _leaf(m.num_layers * directions, batch, m.hidden_size, seed=2)

        def f(x, h0, c0, *ps):
            out, (h, c) = m(x, (h0, c0))
            return out, h, c
        inputs = (x, h0, c0, *params)
    else:
        def f(x, h0, *ps):
            out, h = m(x, h0)
            return out, h
        inputs = (x, h0, *params)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


CELLS = {
    "rnn_cell": lambda: nn.RNNCell(3, 4),
    "rnn_cell_relu": lambda: nn.RNNCell(3, 4, nonlinearity="relu"),
    "gru_cell": lambda: nn.GRUCell(3, 4),
    "lstm_cell": lambda: nn.LSTMCell(3, 4),
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cells_gradcheck_first_and_second_order(name):
    torch.manual_seed(0)
    m = _double(CELLS[name]())
    params = list(m.parameters())
    x = _leaf(2, 3)
    h = _leaf(2, 4, seed=1)
    if isinstance(m, nn.LSTMCell):
        c = _leaf(2, 4, seed=2)

        def f(x, h, c, *ps):
            return m(x, (h, c))
        inputs = (x, h, c, *params)
    else:
        def f(x, h, *ps):
            return m(x, h)
        inputs = (x, h, *params)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def _lstm_pair(**kw):
    """The same LSTM in float32 (oneDNN's node, MkldnnRnnLayerBackward0) and float64 (the composite)."""
    torch.manual_seed(0)
    m32 = nn.LSTM(3, 4, **kw)
    m64 = nn.LSTM(3, 4, **kw).double()
    m64.load_state_dict({k: v.double() for k, v in m32.state_dict().items()})
    return m32, m64


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True}, {"bias": False, "batch_first": True}])
def test_float32_lstm_node_gradients_match_the_composite(kw):
    m32, m64 = _lstm_pair(**kw)
    dirs = 2 if m32.bidirectional else 1
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((3, 2, 3))
    batch = 3 if m32.batch_first else 2
    hs = rng.standard_normal((m32.num_layers * dirs, batch, 4))
    cs = rng.standard_normal((m32.num_layers * dirs, batch, 4))
    grads = {}
    for m, dt in ((m32, torch.float32), (m64, torch.float64)):
        x, h, c = (torch.tensor(a, dtype=dt, requires_grad=True) for a in (xs, hs, cs))
        out, (hn, cn) = m(x, (h, c))
        name = out.grad_fn.name() if not m.batch_first else out.grad_fn.next_functions[0][0].name()
        assert name == ("MkldnnRnnLayerBackward0" if dt is torch.float32 else "StackBackward0") or dirs == 2
        loss = (out * out).sum() + hn.sum() * 2 + (cn * cn).mean()
        gx, = torch.autograd.grad(loss, x, create_graph=True)
        (gx * gx).sum().backward()
        grads[dt] = [t.grad.detach().double().numpy() for t in (x, h, c, *m.parameters())]
        grads[dt].append(gx.detach().double().numpy())
    for a, b in zip(grads[torch.float32], grads[torch.float64]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _run(source):
    return run_source(source, "<rnn>", RunOptions(seed=0))


@pytest.mark.parametrize("hx, kind", [
    ("'abc'", "AttributeError"),
    ("5", "TypeError"),
    ("None, None", "AttributeError"),
    ("{'h': 1}", "KeyError"),
    ("[torch.zeros(1, 2, 4)]", "IndexError"),
    ("(torch.zeros(1, 2, 4), torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))", "RuntimeError"),
    ("(torch.zeros(1, 2, 4, dtype=torch.float64), torch.zeros(1, 2, 4))", "RuntimeError"),
    ("torch.nn.Linear(1, 1)", "TypeError"),
])
def test_odd_hidden_states_are_script_errors(hx, kind):
    src = (f"import torch\nm = torch.nn.LSTM(3, 4)\nout = m(torch.zeros(5, 2, 3), ({hx}))\n")
    result = _run(src)
    assert not result.ok
    assert result.error.type_name == kind, result.error.message


@pytest.mark.parametrize("call", [
    "torch.nn.RNN(3, 4)(torch.zeros(5, 2, 3), [torch.zeros(1, 2, 4)])",
    "torch.nn.GRU(3, 4)(torch.zeros(5, 2, 3), {'a': 1})",
    "torch.nn.GRUCell(3, 4)(torch.zeros(2, 3), lambda: 0)",
    "torch.nn.LSTMCell(3, 4)(torch.zeros(2, 3), (torch.zeros(2, 4), 'c'))",
    "torch.nn.LSTMCell(3, 4)(torch.zeros(2, 3), iter([torch.zeros(2, 4)]))",
    "torch.nn.RNNCell(3, 4)([[1.0, 2.0, 3.0]])",
    "torch.nn.LSTM(3, 4)(torch.zeros(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4)))[9]",
])
def test_odd_arguments_are_rendered_errors(call):
    result = _run(f"import torch\nprint({call})\n")
    assert not result.ok
    assert result.error.type_name in ("AttributeError", "TypeError", "RuntimeError", "ValueError", "IndexError",
                                      "KeyError"), result.error.type_name


def test_a_script_can_subclass_and_reach_no_internals():
    result = _run("import torch\nm = torch.nn.LSTM(3, 4)\nprint(m._flat_weights_names)\n")
    assert not result.ok and result.error.type_name == "AttributeError"
    src = ("import torch\nclass Tagger(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.lstm = torch.nn.LSTM(2, 3)\n    def forward(self, x):\n        return self.lstm(x)[0]\n"
           "print(Tagger()(torch.ones(4, 1, 2)).shape)\nprint(len(torch.nn.LSTM(2, 3, 2).all_weights))\n")
    result = _run(src)
    assert result.ok, result.error
    assert "".join(o.text for o in result.outputs) == "torch.Size([4, 1, 3])\n2\n"


PACKED = {
    "gru_bidirectional": lambda: nn.GRU(3, 2, bidirectional=True),
    "lstm_2_layers": lambda: nn.LSTM(3, 2, num_layers=2),
    "lstm_projections": lambda: nn.LSTM(3, 3, proj_size=2),
    "rnn_batch_first": lambda: nn.RNN(3, 2, batch_first=True),
}


@pytest.mark.parametrize("name", sorted(PACKED))
def test_packed_sequences_gradcheck_first_and_second_order(name):
    """pack_padded_sequence (PackPaddedSequenceBackward0), the packed layers, pad_packed_sequence (CopySlices)
    and the permutations of enforce_sorted=False, differentiated once and twice in float64."""
    from gradcli.engine.nn.rnn_packed import pack_padded_sequence, pad_packed_sequence
    torch.manual_seed(0)
    m = _double(PACKED[name]())
    params = list(m.parameters())
    x = _leaf(3, 4, 3) if m.batch_first else _leaf(4, 3, 3)
    lengths = [2, 4, 1]

    def f(x, *ps):
        packed = pack_padded_sequence(x, lengths, batch_first=m.batch_first, enforce_sorted=False)
        out, hidden = m(packed)
        padded, _ = pad_packed_sequence(out, batch_first=m.batch_first)
        return (padded, *hidden) if isinstance(hidden, tuple) else (padded, hidden)
    assert gradcheck(f, (x, *params))
    assert gradgradcheck(f, (x, *params))


def test_packed_and_padded_agree_on_the_valid_steps():
    """An RNN over a PackedSequence gives, for each sequence, what it gives over that sequence alone."""
    from gradcli.engine.nn.rnn_packed import pack_sequence, pad_packed_sequence
    torch.manual_seed(0)
    m = nn.GRU(2, 3).double()
    seqs = [_leaf(n, 2, seed=n) for n in (4, 2, 3)]
    out, h = m(pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = pad_packed_sequence(out)
    assert lengths.tolist() == [4, 2, 3]
    for i, s in enumerate(seqs):
        alone, h_alone = m(s)
        np.testing.assert_allclose(padded[:len(s), i].detach().numpy(), alone.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(h[0, i].detach().numpy(), h_alone[0].detach().numpy(), rtol=1e-12)
        assert not padded[len(s):, i].detach().numpy().any()


ONEDNN_CASES = [  # (input, hidden, steps, batch, layers, bidirectional, grad mode)
    (6, 6, 5, 1, 1, False, True), (6, 6, 5, 3, 1, False, False), (20, 6, 4, 1, 2, True, True),
    (3, 32, 6, 2, 1, True, False), (16, 16, 3, 4, 2, False, True), (16, 16, 3, 4, 1, False, False),
    (1, 50, 12, 8, 1, False, True), (40, 12, 3, 1, 3, True, False), (12, 6, 5, 1, 1, True, False),
]


@pytest.mark.parametrize("case", ONEDNN_CASES, ids=lambda c: "x".join(map(str, c)))
def test_float32_lstm_is_torchs_onednn_bit_for_bit(case):
    """The float32 LSTM's outputs, h_n and c_n against torch's (oneDNN's kernel, engine/nn/onednn_lstm.py),
    every bit, on a CPU of the goldens' kind (AVX-512: oneDNN's kernels differ by instruction set)."""
    real = pytest.importorskip("torch")
    from gradcli.testing.cpu import machine_cpu
    if "AVX512" not in machine_cpu():
        pytest.skip("oneDNN's LSTM is emulated as it runs on AVX-512")
    size, hidden, steps, batch, layers, bidirectional, grad = case
    real.manual_seed(0)
    ref = real.nn.LSTM(size, hidden, num_layers=layers, bidirectional=bidirectional)
    x = real.randn(steps, batch, size)
    h0 = real.randn(layers * (2 if bidirectional else 1), batch, hidden)
    c0 = real.randn(layers * (2 if bidirectional else 1), batch, hidden)
    with real.set_grad_enabled(grad):
        o, (h, c) = ref(x, (h0, c0))
    want = [t.detach().numpy() for t in (o, h, c)]
    m = nn.LSTM(size, hidden, num_layers=layers, bidirectional=bidirectional)
    m.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    with torch.set_grad_enabled(grad):
        out, (hn, cn) = m(torch.tensor(x.numpy()), (torch.tensor(h0.numpy()), torch.tensor(c0.numpy())))
    for got, exp in zip((out, hn, cn), want):
        assert got.detach().numpy().tobytes() == exp.tobytes()


GRAD_CASES = [  # (input, hidden, steps, batch, layers, bidirectional): the weights' rows (steps x batch) <= 96
    (6, 6, 5, 1, 1, False), (5, 4, 3, 2, 1, False), (20, 6, 4, 1, 2, True), (3, 32, 6, 2, 1, True),
    (16, 16, 3, 4, 2, False), (2, 50, 12, 8, 1, False), (40, 12, 3, 1, 3, True),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: "x".join(map(str, c)))
def test_float32_lstm_gradients_are_torchs_onednn_bit_for_bit(case):
    """loss.backward() through a float32 LSTM: every parameter's, h0's, c0's and the input's gradient equal
    to torch's (oneDNN's backward, onednn_lstm.layer_backward), every bit."""
    real = pytest.importorskip("torch")
    from gradcli.testing.cpu import machine_cpu
    if "AVX512" not in machine_cpu():
        pytest.skip("oneDNN's LSTM is emulated as it runs on AVX-512")
    size, hidden, steps, batch, layers, bidirectional = case
    n = layers * (2 if bidirectional else 1)
    real.manual_seed(1)
    ref = real.nn.LSTM(size, hidden, num_layers=layers, bidirectional=bidirectional)
    arrays = [real.randn(*shape).numpy() for shape in ((steps, batch, size), (n, batch, hidden), (n, batch, hidden))]
    m = nn.LSTM(size, hidden, num_layers=layers, bidirectional=bidirectional)
    m.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    grads = []
    for lib, module in ((real, ref), (torch, m)):
        x, h0, c0 = (lib.tensor(a, requires_grad=True) for a in arrays)
        out, (hn, cn) = module(x, (h0, c0))
        (out.pow(2).sum() + hn.sum() * 0.5 + (cn * c0).sum()).backward()
        grads.append([t.grad.numpy().tobytes() for t in (x, h0, c0, *module.parameters())])
    assert grads[0] == grads[1]
