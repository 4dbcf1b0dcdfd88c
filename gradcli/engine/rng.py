"""PyTorch's CPU generator (torch._C.Generator), bit for bit: the MT19937 engine of
ATen/core/MT19937RNGEngine.h with its seeding, the 32- and 64-bit draws, the cached normal samples
and the 5,056-byte state of torch.get_rng_state(). The words come in bulk from NumPy's MT19937 bit
generator (`random_raw`), whose seeding and twist are the same algorithm: ATen's state
(`left`, `next`, 624 words) maps to NumPy's (`key`, `pos`), see `_to_numpy` / `get_state_bytes`.
The transforms (uniform, normal, integers, ...) live in rng_ops.py and rng_math.py."""
from __future__ import annotations

import builtins
import os
import struct

import numpy as np

DEFAULT_SEED = 67280421310721  # c10's default_rng_seed_val: a fresh torch.Generator()'s seed
STATE_SIZE = 5056             # sizeof(at::CPUGeneratorImplState)
_N = 624
_HEAD = struct.Struct("<QiiQ")  # the_initial_seed, left, seeded, next
_TAIL = struct.Struct("<dddi4xfB3x")  # normal_x, normal_y, normal_rho, normal_is_valid, float sample, its flag


def _init_key(seed32: int) -> np.ndarray:
    """init_genrand: MT19937's standard seeding of the 624 words (sequential by definition)."""
    key = [seed32]
    prev = seed32
    for j in range(1, _N):
        prev = (1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF
        key.append(prev)
    return np.array(key, np.uint32)


def wrap_seed(seed) -> int:
    """The seed as torch keeps it: an int in [-2**63, 2**64), negatives taken mod 2**64."""
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed & 0xFFFFFFFFFFFFFFFF


def nondeterministic_seed() -> int:
    """c10::detail::getNonDeterministicRandom for the CPU: 64 bits of /dev/urandom."""
    return int.from_bytes(os.urandom(8), "little")


class Generator:
    """torch.Generator (CPU): the engine plus the cached double and float normal samples."""
    __slots__ = ("_bg", "_ints", "_seed", "_fresh", "_next0", "normal_double", "normal_float", "device")

    def __init__(self, device="cpu"):
        from .device import CPU, canonical  # noqa: PLC0415 - device imports this module's users
        self.device = CPU if device == "cpu" or device is CPU else canonical(device)
        self._set_seed(DEFAULT_SEED)

    # ------------------------------------------------------------------ seeding
    def _set_seed(self, seed):
        self._seed = seed
        self._bg = None        # NumPy's bit generator, made at the first draw (importing numpy.random costs)
        self._ints = None      # a numpy.random.Generator over it: its full-range integers are raw words
        self._fresh = True     # ATen: left 1, next 0, the seeded (untwisted) words
        self._next0 = 0
        self.normal_double = None
        self.normal_float = None

    def manual_seed(self, seed):
        if isinstance(seed, builtins.bool) or not isinstance(seed, (builtins.int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._set_seed(wrap_seed(builtins.int(seed)))
        return self

    def seed(self):
        s = nondeterministic_seed()
        self._set_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    # ------------------------------------------------------------------ draws
    def _engine(self):
        bg = self._bg
        if bg is None:
            bg = self._bg = np.random.MT19937()
            bg.state = {"bit_generator": "MT19937",
                        "state": {"key": _init_key(self._seed & 0xFFFFFFFF), "pos": _N}}
        return bg

    def words(self, n: int) -> np.ndarray:
        """n tempered 32-bit words (`random()`), as uint64."""
        if n:
            self._fresh = False
        return self._engine().random_raw(n)

    def _integers(self):
        ints = self._ints
        if ints is None or ints.bit_generator is not self._engine():
            ints = self._ints = np.random.Generator(self._engine())
        return ints

    def words32(self, n: int) -> np.ndarray:
        """n tempered 32-bit words (`random()`), as uint32: NumPy's full-range uint32 integers are the
        bit generator's next32 words, one each, in order (the same words as random_raw)."""
        if n:
            self._fresh = False
        return self._integers().integers(0, 1 << 32, size=n, dtype=np.uint32)

    def words64(self, n: int) -> np.ndarray:
        """n `random64()` values: (first << 32) | second, which is MT19937's next64 in NumPy: its
        full-range uint64 integers, in one C loop."""
        if n:
            self._fresh = False
        return self._integers().integers(0, (1 << 64) - 1, size=n, dtype=np.uint64, endpoint=True)

    # ------------------------------------------------------------------ state bytes
    def get_state_bytes(self) -> bytes:
        if self._bg is None:
            key, pos = _init_key(self._seed & 0xFFFFFFFF), _N
        else:
            st = self._bg.state["state"]
            key, pos = st["key"], st["pos"]
        if self._fresh:
            left, nxt = 1, self._next0
        elif pos >= _N:
            left, nxt = 1, _N
        else:
            left, nxt = _N + 1 - pos, pos
        d, f = self.normal_double, self.normal_float
        return b"".join((
            _HEAD.pack(self._seed, left, 1, nxt),
            np.asarray(key, np.uint64).tobytes(),
            _TAIL.pack(0.0, 0.0 if d is None else d, 0.0, d is not None, 0.0 if f is None else f, f is not None)))

    def set_state_bytes(self, data: bytes):
        if len(data) != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                               f"state size to be {len(data)}")
        seed, left, seeded, nxt = _HEAD.unpack_from(data, 0)
        if not (seeded != 0 and 0 < left <= _N and (nxt & 0xFFFFFFFF) <= _N):
            raise RuntimeError("Invalid mt19937 state")
        nxt &= 0xFFFFFFFF
        key = (np.frombuffer(data, np.uint64, _N, _HEAD.size) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        _x, y, _rho, valid, f, fvalid = _TAIL.unpack_from(data, _HEAD.size + 8 * _N)
        self._seed = seed
        # left == 1: the next draw twists first (NumPy's pos 624); else `next` is the position read next
        pos = _N if left == 1 else nxt
        self._fresh = left == 1 and nxt != _N
        self._next0 = nxt
        bg = self._bg = np.random.MT19937()
        bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self.normal_double = y if valid else None
        self.normal_float = np.float32(f) if fvalid & 0xFF else None
        return self

    def get_state(self):
        from .factory import tensor_from_numpy_value  # noqa: PLC0415 - factory builds tensors
        return tensor_from_numpy_value(np.frombuffer(self.get_state_bytes(), np.uint8).copy())

    def set_state(self, new_state):
        from . import dtypes  # noqa: PLC0415
        if getattr(new_state, "dtype", None) is not dtypes.uint8 or getattr(new_state, "device", None) is None \
                or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        from .device import host  # noqa: PLC0415
        self.set_state_bytes(np.ascontiguousarray(host(new_state._data)).reshape(-1).tobytes())
        return self

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"


Generator.__module__ = "torch._C"  # <class 'torch._C.Generator'>, as PyTorch prints it
