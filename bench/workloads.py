"""The measured programs, written once for any torch-shaped module `T` (torch itself or
gradcli's `api`), plus the hand-written NumPy floors.

Each builder returns callables that time themselves, so set-up (weights, data) stays out of the
measurement. Nothing here imports torch or gradcli: the caller passes the module in, so a
subprocess of one contender loads only that contender.
"""
from __future__ import annotations

import importlib
import time

import numpy as np

MUL = 1.000001   # the chain alternates y * MUL and y + ADD: values stay normal (no denormals,
ADD = 1e-6       # no overflow) over 1,000,000 ops, and the gradient is MUL ** (n / 2)


# ----------------------------------------------------------------------------- 0-d op chains

def chain(T, n):
    """n 0-d float32 ops forward, then backward: {"fwd": s, "bwd": s}."""
    x = T.tensor(1.5, requires_grad=True)
    c0 = time.process_time()
    t0 = time.perf_counter()
    y = x
    for _ in range(n // 2):
        y = y * MUL
        y = y + ADD
    t1 = time.perf_counter()
    y.backward()
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    if x.grad is None:
        raise RuntimeError("chain: no gradient reached the leaf")
    del y
    return {"fwd": t1 - t0, "bwd": t2 - t1, "total": t2 - t0, "cpu": cpu}


class _Var:
    __slots__ = ("data", "grad")

    def __init__(self, data):
        self.data = data
        self.grad = None


def numpy_chain(n):
    """The practical floor: a minimal tape on NumPy 0-d float32 values, same ops as chain()."""
    x = _Var(np.array(1.5, dtype=np.float32))
    tape = []
    append = tape.append
    t0 = time.perf_counter()
    c0 = time.process_time()
    y = x
    for _ in range(n // 2):
        out = _Var(y.data * MUL)
        append((y, out, MUL))
        y = out
        out = _Var(y.data + ADD)
        append((y, out, None))
        y = out
    t1 = time.perf_counter()
    y.grad = np.float32(1.0)
    for inp, out, c in reversed(tape):
        g = out.grad if c is None else out.grad * c
        out.grad = None
        inp.grad = g if inp.grad is None else inp.grad + g
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    del tape, y
    return {"fwd": t1 - t0, "bwd": t2 - t1, "total": t2 - t0, "cpu": cpu}


# ----------------------------------------------------------------------------- models

def gradcli_api():
    """gradcli's torch-shaped namespace (imported lazily: subprocesses of torch never load it)."""
    return importlib.import_module("gradcli.engine.api")


def find_nn(T):
    """(nn, optim, mse) of a torch-shaped module, or None where they are not there yet."""
    nn = getattr(T, "nn", None)
    optim = getattr(T, "optim", None)
    if nn is None or optim is None:
        base = T.__name__.rsplit(".", 1)[0] if T.__name__.endswith(".api") else None
        if base is not None:
            try:
                nn = nn or importlib.import_module(base + ".nn")
                optim = optim or importlib.import_module(base + ".optim")
            except ImportError:
                return None
    if nn is None or optim is None or not hasattr(nn, "Linear") or not hasattr(optim, "SGD"):
        return None
    functional = getattr(nn, "functional", None)
    mse = getattr(functional, "mse_loss", None) if functional is not None else None
    if mse is None and hasattr(nn, "MSELoss"):
        mse = nn.MSELoss()
    if mse is None:
        return None
    return nn, optim, mse


def _init_layers(sizes, seed=0):
    """Weights as nn.Linear initialises them (uniform +-1/sqrt(fan_in)), float32, from NumPy."""
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        layers.append((w, b))
    return layers


def make_data(batch, n_in, n_out, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch, n_in)).astype(np.float32),
            rng.standard_normal((batch, n_out)).astype(np.float32))


class Model:
    """An MLP (Linear, relu, ..., Linear) with MSE loss and SGD, over module T.

    kind "nn": T.nn.Linear / T.optim.SGD / mse_loss (how a user writes it; torch always, gradcli
    once its nn and optim exist); kind "primitives": addmm, relu, (out - y) ** 2 .mean(), and a
    hand-written SGD step under no_grad (gradcli before nn/optim land).
    """

    def __init__(self, T, sizes, lr=0.01, kind=None, seed=0):
        self.T = T
        found = find_nn(T)
        self.kind = kind or ("nn" if found else "primitives")
        init = _init_layers(sizes, seed)
        if self.kind == "nn":
            if found is None:
                raise RuntimeError("nn/optim not available")
            nn, optim, self.mse = found
            self.layers = []
            with T.no_grad():
                for w, b in init:
                    lin = nn.Linear(w.shape[1], w.shape[0])
                    lin.weight.copy_(T.from_numpy(w))
                    lin.bias.copy_(T.from_numpy(b))
                    self.layers.append(lin)
            self.params = [p for lin in self.layers for p in lin.parameters()]
            self.opt = optim.SGD(self.params, lr=lr)
        else:
            self.layers = [(T.from_numpy(w.copy()).requires_grad_(True), T.from_numpy(b.copy()).requires_grad_(True))
                           for w, b in init]
            self.params = [p for pair in self.layers for p in pair]
            self.opt = None
        self.lr = lr

    def forward(self, x):
        T = self.T
        last = len(self.layers) - 1
        h = x
        for i, layer in enumerate(self.layers):
            h = layer(h) if self.kind == "nn" else T.addmm(layer[1], h, layer[0].t())
            if i < last:
                h = T.relu(h)
        return h

    def loss(self, out, y):
        if self.kind == "nn":
            return self.mse(out, y)
        return ((out - y) ** 2).mean()

    def zero_grad(self):
        if self.opt is not None:
            self.opt.zero_grad()
        else:
            for p in self.params:
                p.grad = None

    def step(self):
        if self.opt is not None:
            self.opt.step()
        else:
            with self.T.no_grad():
                for p in self.params:
                    p.add_(p.grad, alpha=-self.lr)

    def train(self, x, y, steps):
        for _ in range(steps):
            self.zero_grad()
            loss = self.loss(self.forward(x), y)
            loss.backward()
            self.step()
        return loss

    def fwd_bwd(self, x, y):
        self.zero_grad()
        loss = self.loss(self.forward(x), y)
        loss.backward()
        return loss


class NumpyModel:
    """The same MLP by hand on NumPy, float32: forward, MSE, backward, SGD; no autograd at all."""

    def __init__(self, sizes, lr=0.01, seed=0):
        self.layers = [(w.copy(), b.copy()) for w, b in _init_layers(sizes, seed)]
        self.lr = lr
        self.grads = None

    def fwd_bwd(self, x, y):
        acts = [x]
        h = x
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            z = h @ w.T
            z += b
            if i < last:
                np.maximum(z, 0, out=z)
            acts.append(z)
            h = z
        diff = h - y
        loss = float(np.vdot(diff, diff)) / diff.size
        g = diff
        g *= 2.0 / diff.size
        grads = [None] * len(self.layers)
        for i in range(last, -1, -1):
            w, _ = self.layers[i]
            a = acts[i]
            gw = g.T @ a
            gb = g.sum(axis=0)
            grads[i] = (gw, gb)
            if i > 0:
                g = g @ w
                g *= a > 0
            acts[i + 1] = None
        self.grads = grads
        return loss

    def train(self, x, y, steps):
        lr = self.lr
        for _ in range(steps):
            loss = self.fwd_bwd(x, y)
            for (w, b), (gw, gb) in zip(self.layers, self.grads):
                gw *= lr
                w -= gw
                gb *= lr
                b -= gb
        return loss


def mlp_flops(sizes, batch):
    """Matmul FLOPs of forward + backward (no gradient for the input: the first layer has no dX)."""
    total = 0
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        mm = 2 * batch * a * b
        total += mm * (2 if i == 0 else 3)
    return total


# ----------------------------------------------------------------------------- 50 elementwise ops

OPS50 = ("sin", "mul", "tanh", "add", "exp") * 10


def elementwise50(T, x):
    """50 elementwise ops (sin, *1.01, tanh, +0.1, exp, ...) then sum().backward()."""
    y = x
    for op in OPS50:
        if op == "mul":
            y = y * 1.01
        elif op == "add":
            y = y + 0.1
        else:
            y = getattr(T, op)(y)
    loss = y.sum()
    del y
    loss.backward()
    return loss


def numpy_elementwise50(x):
    """The floor: forward keeping only what each derivative needs, backward freeing as it goes."""
    saved = []
    y = x
    for op in OPS50:
        if op == "mul":
            y = y * np.float32(1.01)
            saved.append(None)
        elif op == "add":
            y = y + np.float32(0.1)
            saved.append(None)
        elif op == "sin":
            saved.append(y)
            y = np.sin(y)
        else:
            y = getattr(np, op)(y)
            saved.append(y)
    loss = float(y.sum(dtype=np.float64))
    del y
    g = np.ones_like(x)
    for op in reversed(OPS50):
        s = saved.pop()
        if op == "mul":
            g *= np.float32(1.01)
        elif op == "sin":
            g *= np.cos(s)
        elif op == "tanh":
            t = s * s
            np.subtract(1, t, out=t)
            g *= t
            del t
        elif op == "exp":
            g *= s
        del s
    return loss, g

