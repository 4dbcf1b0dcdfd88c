"""The goldens were recorded from torch running 2 intra-op threads (torch.get_num_threads() on the
2-core machine that made them), and a reduction's bits depend on that count. gradcli takes torch's
default count from the environment and the cores (gradcli/engine/threads.py), so the suite pins it
for itself and the processes it starts: OMP_NUM_THREADS=2 (at most the cores: 1 on a 1-core machine),
MKL_NUM_THREADS and MKL_DYNAMIC unset. Tests of the default rule build their own environments."""
import os

import pytest

os.environ["OMP_NUM_THREADS"] = "2"
for _name in ("MKL_NUM_THREADS", "MKL_DYNAMIC"):
    os.environ.pop(_name, None)


@pytest.fixture
def threads():
    """Set the reduction split's thread count (numerics.NUM_THREADS) to what the goldens (or the live
    torch) were made with: call it with the count; the count before the test comes back after it."""
    from gradcli.engine import numerics
    old = numerics.NUM_THREADS
    yield lambda n: setattr(numerics, "NUM_THREADS", n)
    numerics.NUM_THREADS = old
