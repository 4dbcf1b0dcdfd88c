"""Build gradcli's C extensions (csrc/NAME.c -> gradcli/_native_NAME*.so) in place, for development and
the tests (tests/conftest.py runs `--if-stale` once a session).

    python3 tools/build_native.py [--if-stale]

--if-stale builds only a module whose .so for this interpreter is missing or was built from other
sources: its SOURCE_DIGEST (setup.py's sha256 of csrc/NAME.c and csrc/*.h, compiled into the .so as a
string) is looked for in the file's bytes, so nothing stale is imported. Prints one line a module and
exits 1 when a module could not be built (no compiler: gradcli then runs its NumPy code)."""
from __future__ import annotations

import argparse
import importlib.util
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_setup():
    spec = importlib.util.spec_from_file_location("gradcli_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines the helpers; setup() runs only as __main__
    return module


def so_path(name: str) -> Path:
    return ROOT / "gradcli" / f"_native_{name}{sysconfig.get_config_var('EXT_SUFFIX')}"


def fresh(name: str, setup_module) -> bool:
    path = so_path(name)
    return path.exists() and setup_module.source_digest(name).encode() in path.read_bytes()


def build(names, setup_module) -> None:
    """setuptools' build_ext --inplace for those modules (optional ones: a failure is only a warning)."""
    from setuptools import Distribution  # noqa: PLC0415
    exts = [e for e in setup_module.extensions() if e.name.rsplit("_native_", 1)[1] in names]
    dist = Distribution({"name": "gradcli", "ext_modules": exts, "script_name": "setup.py"})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True
    with tempfile.TemporaryDirectory(prefix="gradcli-native-") as tmp:
        cmd.build_temp = tmp
        import os  # noqa: PLC0415
        cwd = os.getcwd()
        os.chdir(ROOT)  # the sources are named relative to the root
        try:
            dist.run_command("build_ext")
        finally:
            os.chdir(cwd)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--if-stale", action="store_true", help="build only missing or out-of-date modules")
    args = ap.parse_args(argv)
    setup_module = load_setup()
    names = setup_module.native_names()
    todo = [n for n in names if not (args.if_stale and fresh(n, setup_module))]
    if todo:
        try:
            build(todo, setup_module)
        except Exception as exc:  # noqa: BLE001 - no compiler, no setuptools: reported below
            print(f"build_native: build failed: {exc}", file=sys.stderr)
    status = 0
    for name in names:
        ok = fresh(name, setup_module)
        print(f"gradcli._native_{name}: {'built' if name in todo else 'up to date'}" if ok
              else f"gradcli._native_{name}: NOT BUILT")
        status |= not ok
    return status


if __name__ == "__main__":
    sys.exit(main())
