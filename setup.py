"""The compiled extensions only (everything else is in pyproject.toml): every csrc/NAME.c is the
module gradcli._native_NAME, optional (without a compiler the install still succeeds and gradcli
runs its NumPy code instead: gradcli/native.py). tools/build_native.py imports this file for the
same list to build them in place (tests/conftest.py runs it)."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"
# -ffp-contract=off: no fused multiply-add unless the code asks for one (the kernels choose their bits)
CFLAGS = ["-O2", "-ffp-contract=off", "-fno-strict-aliasing"]


def source_digest(name: str) -> str:
    """sha256 of csrc/NAME.c and every csrc/*.h (in name order): the module's SOURCE_DIGEST."""
    h = hashlib.sha256()
    for path in [CSRC / f"{name}.c", *sorted(CSRC.glob("*.h"))]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def native_names() -> list[str]:
    return sorted(p.stem for p in CSRC.glob("*.c"))


def extensions():
    from setuptools import Extension
    return [Extension(f"gradcli._native_{name}", [f"csrc/{name}.c"], optional=True,
                      extra_compile_args=CFLAGS, depends=[str(p.relative_to(ROOT)) for p in CSRC.glob("*.h")],
                      define_macros=[("SOURCE_DIGEST", f'"{source_digest(name)}"')])
            for name in native_names()]


def build_py_with_grammar():
    """build_py that also puts grammar/*.lark into the package as gradcli/grammar/ (where
    gradcli/lang/grammar.py looks in an installed copy)."""
    from setuptools.command.build_py import build_py

    class BuildPy(build_py):
        def run(self):
            # pip builds in this tree: a build/lib left from an earlier build would carry modules deleted
            # since into the wheel, so the package is copied afresh (build_ext puts the .so back after)
            shutil.rmtree(Path(self.build_lib) / "gradcli", ignore_errors=True)
            super().run()
            target = Path(self.build_lib) / "gradcli" / "grammar"
            target.mkdir(parents=True, exist_ok=True)
            for src in sorted((ROOT / "grammar").glob("*.lark")):
                shutil.copyfile(src, target / src.name)
    return BuildPy


if __name__ == "__main__":
    from setuptools import setup
    setup(ext_modules=extensions(), cmdclass={"build_py": build_py_with_grammar()})
