"""run_plain's walk of a scalar chain (autograd_engine.py): `y = y * 1.01 + 1e-3` in a loop, then
`y.backward()`. Each node of such a chain takes a 0-d float32/float64 gradient and gives its first input
`g * number` (MulBackward0 with a Python number) or `g` itself (AddBackward0 and SubBackward0 with a
number or a tensor that needs no gradient). The general step builds a Tensor per product (the 0-d
operator of elementwise_common.py) and routes each gradient through run_plain's buffers; here the
gradient is carried as a Python float from node to node while the next node is the next to run and fed
by this one alone, and becomes a Tensor once, where the run stops.

The bits are the 0-d operator's: the product of the float32 (or float64) value and the number as an
operand of the dtype (elementwise_common.number_operand) on doubles, rounded to float32 by a C cast
(struct's 'f', as NumPy's assignment casts); a product that would round to infinity stops the run
before its node (the general step computes it, NumPy's warning included). The nodes are declared in
arithmetic.py (register); tests/test_engine_fastpaths.py holds the walk to the general engine's bits, and
its C form (csrc/chain.c, used where it is built) to this loop.
"""
from __future__ import annotations

from struct import Struct

import numpy as np

from .. import dtypes
from ..autograd import Node, forward_level
from ..autograd_engine import native_collect, scalar_walks
from ..tensor import wrap
from .elementwise_common import number_operand

SCALE = "scale"  # the first input's gradient is g * the saved number (MulBackward0's saved ((), number))
PASS = "pass"  # the first input's gradient is g (AddBackward0 / SubBackward0 of a 0-d first input)

_KINDS = {}
_F32 = Struct("f")
_pack, _unpack = _F32.pack, _F32.unpack
_FLOAT32, _FLOAT64 = dtypes.float32, dtypes.float64


def register(cls, kind):
    """cls's nodes run in scalar chains as `kind` (SCALE or PASS) when their inputs allow it."""
    _KINDS[cls] = kind
    _TYPES[kind] = tuple(c for c, k in _KINDS.items() if k is kind)
    scalar_walks[cls] = walk


_TYPES = {SCALE: (), PASS: ()}
# csrc/chain.c's scalar_walk (the loop below in C: the same bits and the same stops), looked up at the
# first walk; None when not built or GRADCLI_NATIVE=0 (tests set [None] to run the Python loop, the reference)
_NATIVE = []
# a graph of fewer function nodes runs the Python loop: a short backward (`gradcli grad "w*x + b"`) does not
# load the C module (gradcli.native; hashlib for its digest in a checkout: tests/test_startup.py)
NATIVE_FROM = 64
_SLOTS = tuple(Node.__dict__[name] for name in ("_seq", "_out_dtype", "_fns", "_saved", "_kw"))


def _native():
    if not _NATIVE:
        from ... import native  # noqa: PLC0415  (not at start-up: a script that never runs backward loads no C)
        module = native.load("chain", needs=("scalar_walk", "collect_plain"))
        _NATIVE.append(module.scalar_walk if module is not None else None)
        if module is not None:
            native_collect[0] = module.collect_plain  # run_plain's graph walk, from the next backward on
    return _NATIVE[0]


def walk(node, g, free, buffers, size):
    """Run node (g: its gradient) and the chain below it while each next node can be carried to.
    Returns None when node itself cannot (nothing done), else (m, last, gk): m more nodes run after
    node (the caller's order skips them: each was the next to run), last the last node run (its
    saved values freed when `free`), gk its first input's gradient (g itself when no node scaled it),
    which the caller routes along last's edges as a node's result. size: the graph's function nodes
    (the C walk from NATIVE_FROM on)."""
    d = g._data
    if d.__class__ is not np.ndarray or d.ndim or forward_level[0] is not None:
        return None
    dt = g.dtype
    if dt is _FLOAT32:
        f32 = True
    elif dt is _FLOAT64:
        f32 = False
    else:
        return None
    nat = (_NATIVE[0] if _NATIVE else _native()) if size >= NATIVE_FROM else None
    if nat is not None:
        r = nat(node, float(d), f32, dt, free, buffers, number_operand, _SLOTS, _TYPES[SCALE], _TYPES[PASS])
        if r is None:
            return None
        last, v, scaled, m = r
        return m, last, wrap(np.array(v, dt.np), dt) if scaled else g
    return _walk(node, g, free, buffers, f32, dt)


def _walk(node, g, free, buffers, f32, dt):
    """walk's loop in Python (csrc/chain.c's scalar_walk is its C form)."""
    kinds = _KINDS
    pack, unpack = _pack, _unpack
    v = float(g._data)
    scaled = False
    last = None
    first = want = node._seq  # the next node to run has the next lower sequence number (order is by it)
    last_b = last_y = None
    # The attribute reads are repeated in each branch on purpose: CPython specializes each read site
    # for one class, and a chain alternates MulBackward0 and AddBackward0 nodes
    while True:
        kind = kinds.get(node.__class__)
        if kind is SCALE:
            fns = node._fns
            # the next to run, fed by the last node alone, its gradient of dt (no conversion), a number saved
            if node._seq != want or node._out_dtype is not dt or fns[1] is not None or (buffers and node in buffers):
                break
            try:
                s0, b = node._saved  # (None once freed: the general step raises torch's error)
            except (TypeError, ValueError):
                break
            bc = b.__class__
            if s0.__class__ is not tuple or s0 or (bc is not float and bc is not int):
                break
            if b is not last_b:
                try:
                    last_y = number_operand(b, dt)
                except (OverflowError, ValueError):
                    break
                last_b = b
            w = v * last_y
            if f32:
                try:
                    w = unpack(pack(w))[0]
                except OverflowError:  # rounds to infinity: the general step (NumPy's cast warns)
                    break
            v = w
            scaled = True
            if free:
                node._saved = None
        elif kind is PASS:
            kw = node._kw
            fns = node._fns
            if (node._seq != want or node._out_dtype is not dt or fns[1] is not None or kw[0] != ()
                    or (buffers and node in buffers)):
                break
            if free:
                node._saved = None
        else:
            break
        last = node
        want -= 1
        node = fns[0]
    if last is None:
        return None
    m = first - last._seq
    return m, last, wrap(np.array(v, dt.np), dt) if scaled else g
