"""torch.get_num_threads / torch.set_num_threads: the intra-op thread count that at::parallel_for
splits reductions and some kernels over (``numerics.NUM_THREADS``).

torch's default (OpenMP build): ATen's ``init_num_threads`` takes ``mkl_get_max_threads()``, i.e.
``MKL_NUM_THREADS``, else ``OMP_NUM_THREADS`` (its first entry), else the physical cores; at most
the physical cores unless ``MKL_DYNAMIC`` is ``false``. Invalid or non-positive values are ignored.
The cores are counted from sysfs (cheap: no import beyond ``os``).

A script may ask for any count up to 2**31 - 1 (torch's C int); get_num_threads answers it, while
the reductions split over at most ``SPLIT_CAP`` (their per-thread buffers stay small; the split of
a tensor under 2**31 elements is the same, since parallel_for gives each thread 32768 or more),
and MKL runs at most ``MKL_CAP`` threads (a script cannot make it start thousands).
"""
from __future__ import annotations

import numbers
import os
import sys

from . import errors


def _positive(text):
    head = (text or "").split(",", 1)[0].strip()
    return int(head) if head.isdigit() and int(head) > 0 else None


def physical_cores() -> int:
    """Distinct (package, core) pairs among the CPUs this process may run on."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f1, open(base + "core_id") as f2:
                cores.add((f1.read().strip(), f2.read().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))
    return max(1, len(cores))


def default_num_threads(environ=None) -> int:
    env = os.environ if environ is None else environ
    cores = physical_cores()
    wanted = _positive(env.get("MKL_NUM_THREADS")) or _positive(env.get("OMP_NUM_THREADS")) or cores
    if env.get("MKL_DYNAMIC", "").strip().lower() == "false":
        return wanted
    return min(wanted, cores)


DEFAULT = default_num_threads()  # numerics.NUM_THREADS starts here
SPLIT_CAP = 65536
MKL_CAP = 256
_requested = [DEFAULT]


def _mkl():
    """mkl_backend once it is imported (set_threads is a no-op until it loads MKL)."""
    return sys.modules.get(__package__ + ".mkl_backend")


def _one_argument(name, args, kwargs, count):
    """torch's checks of a METH_O / METH_NOARGS function's arguments."""
    if kwargs:
        raise errors.type_error(f"torch.{name}() takes no keyword arguments")
    if len(args) != count:
        takes = "exactly one argument" if count else "no arguments"
        raise errors.type_error(f"torch.{name}() takes {takes} ({len(args)} given)")


def get_num_threads(*args, **kwargs) -> int:
    _one_argument("get_num_threads", args, kwargs, 0)
    return _requested[0]


def set_num_threads(*args, **kwargs) -> None:
    """torch.set_num_threads: also MKL's count (mkl_set_num_threads_local, dynamic mode off)."""
    _one_argument("set_num_threads", args, kwargs, 1)
    n = args[0]
    if type(n) is bool or not isinstance(n, numbers.Integral):
        from .argcheck import typename
        raise errors.runtime(f"set_num_threads expects an int, but got {typename(n)}")
    if not -2 ** 31 <= n < 2 ** 31:
        raise errors.value("Overflow when unpacking long")
    if n <= 0:
        raise errors.runtime("set_num_threads expects a positive integer")
    from . import numerics
    _requested[0] = int(n)
    numerics.NUM_THREADS = min(int(n), SPLIT_CAP)
    apply_to_mkl()


def apply_to_mkl() -> None:
    """MKL's thread count as torch.set_num_threads left it (mkl_backend calls this once loaded)."""
    mkl = _mkl()
    if mkl is not None:
        mkl.set_threads(None if _requested[0] == DEFAULT else min(_requested[0], MKL_CAP))


def reset() -> None:
    """Back to the default for a new run (MKL too: its own count, its dynamic mode as loaded)."""
    from . import numerics
    _requested[0] = numerics.NUM_THREADS = DEFAULT
    apply_to_mkl()


def snapshot():
    """The count now, for :func:`restore` (the count asked for, and the one the reductions use)."""
    from . import numerics
    return _requested[0], numerics.NUM_THREADS


def restore(state) -> None:
    from . import numerics
    if state[0] == DEFAULT:
        reset()
    else:
        set_num_threads(state[0])
    numerics.NUM_THREADS = state[1]


TORCH = {"get_num_threads": get_num_threads, "set_num_threads": set_num_threads}
