"""The goldens were recorded from torch running 2 intra-op threads (torch.get_num_threads() on the
2-core machine that made them), and a reduction's bits depend on that count. gradcli takes torch's
default count from the environment and the cores (gradcli/engine/threads.py), so the suite pins it
for itself and the processes it starts: OMP_NUM_THREADS=2 (at most the cores: 1 on a 1-core machine),
MKL_NUM_THREADS and MKL_DYNAMIC unset. Tests of the default rule build their own environments.

The C extensions (csrc/, gradcli/native.py) are built in place once a session when missing or stale
(tools/build_native.py --if-stale, in a child process: quick when they are fresh), so every checkout
tests its own C; the `native_module` fixture hands a test a built module, or skips it with the reason
(fails instead under GRADCLI_REQUIRE_NATIVE=1, as .ci/run sets)."""
import fcntl
import os
import subprocess
import sys
from pathlib import Path

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


ROOT = Path(__file__).resolve().parent.parent
_native_build = {}


def _native_fresh():
    """Whether every csrc module's .so for this Python holds its sources' digest (no child process)."""
    import importlib.util  # noqa: PLC0415
    spec = importlib.util.spec_from_file_location("gradcli_build_native", ROOT / "tools" / "build_native.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    setup = tool.load_setup()
    return all(tool.fresh(name, setup) for name in setup.native_names())


def _build_native():
    """(ok, what the build said), once a session; a lock keeps two sessions of one checkout from building
    at once."""
    if not _native_build and _native_fresh():
        _native_build.update(ok=True, said="up to date")
    if not _native_build:
        (ROOT / "build").mkdir(exist_ok=True)
        with open(ROOT / "build" / ".native.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            proc = subprocess.run([sys.executable, str(ROOT / "tools" / "build_native.py"), "--if-stale"],
                                  capture_output=True, text=True, cwd=ROOT, timeout=600)
        _native_build.update(ok=proc.returncode == 0, said=(proc.stdout + proc.stderr)[-2000:])
    return _native_build


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # once (the controller, under xdist)
        _build_native()


@pytest.fixture
def native_module():
    """native_module(NAME): the built module gradcli._native_NAME (loaded whatever GRADCLI_NATIVE says),
    or the test is skipped (failed under GRADCLI_REQUIRE_NATIVE=1) when it could not be built."""
    import importlib  # noqa: PLC0415

    def get(name):
        build = _build_native()
        try:
            return importlib.import_module(f"gradcli._native_{name}")
        except ImportError as exc:
            reason = f"gradcli._native_{name} is not built ({exc}); build_native said: {build['said']}"
        if os.environ.get("GRADCLI_REQUIRE_NATIVE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return get
