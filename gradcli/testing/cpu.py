"""Goldens whose digits depend on the CPU: the ``NAME.cpu`` marking and the comparison that stays
exact on the golden's own CPU and allows a stated tolerance in units in the last place (ulp)
elsewhere (docs/goldens.md).  :func:`gradcli.testing.golden.compare` applies it to a marked
golden; tools/make_goldens.py writes and checks the markings.

A golden ``NAME.out`` is what real PyTorch printed on the machine that generated it.  For most
scripts that is the same on every x86-64 CPU.  For a few it is not: PyTorch's float kernels
(MKL's VML and GEMM, ATen's vectorised loops) pick code paths by CPU, so the last digits of some
printed values differ between, say, an Intel AVX-512 machine and an AMD AVX2 one.  The generator
(tools/make_goldens.py) finds those by re-running every script under other capabilities and
writes a sidecar ``NAME.cpu`` (strict JSON) next to such a golden::

    {"cpu": "GenuineIntel AVX512", "ulp": 16, "unit": "float32",
     "differs_under": ["ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2"]}

On a machine whose :func:`machine_cpu` equals ``cpu`` the comparison stays byte-exact.  Elsewhere
the two texts are split into numbers and the text between them: the text, the count of numbers
and every integer must be identical; two differing decimal numbers ``a``, ``b`` pass when
``|a - b| <= ulp * spacing(unit, max(|a|, |b|)) + 10**-d``, where ``10**-d`` is one unit in the
last printed digit of the shorter of the two (a value one ulp away can print one digit apart).

Public entry points: :func:`compare_text`, :func:`compare_with_golden`, :func:`read_marking`,
:func:`machine_cpu`, :func:`needed_ulp`, :func:`differing_numbers`.  Light: standard library only.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CpuMarking", "Comparison", "compare_with_golden", "compare_text", "read_marking", "machine_cpu",
           "mask_addresses", "needed_ulp", "spacing", "differing_numbers", "MARKING_SUFFIX", "CPU_ENV_VARS",
           "CAPABILITIES"]

MARKING_SUFFIX = ".cpu"
_MAX_MARKING_BYTES = 65536  # a marking is a line of JSON: a huge file is not one
CAPABILITIES = ("AVX512", "AVX2", "DEFAULT")   # ATen's, as machine_cpu names them
# environment variables that change which CPU kernels PyTorch, MKL, NumPy or OpenBLAS run: with
# any of them set this machine does not count as the one a golden was made on
CPU_ENV_VARS = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR", "NPY_DISABLE_CPU_FEATURES",
                "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")
# set to a cpu string ("AuthenticAMD AVX2") to compare as if on that machine
OVERRIDE_ENV = "GRADCLI_GOLDEN_CPU"

_ADDRESS = re.compile(r" object at 0x[0-9a-f]+>")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# unit -> (bits of the significand, including the implicit one; smallest spacing, of the subnormals)
_UNITS = {"float16": (11, 2.0 ** -24), "float32": (24, 2.0 ** -149), "float64": (53, 2.0 ** -1074)}


@dataclass(frozen=True)
class CpuMarking:
    """What a ``NAME.cpu`` sidecar says: the CPU the golden came from and the tolerance elsewhere."""
    cpu: str
    ulp: int
    unit: str = "float32"
    differs_under: tuple[str, ...] = ()
    # capability (AVX512, AVX2, DEFAULT) -> the tolerance measured for machines of that capability;
    # a capability not named here showed no difference: last printed digits only
    ulp_by_capability: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> str:
        doc = {"cpu": self.cpu, "ulp": self.ulp, "unit": self.unit, "differs_under": list(self.differs_under),
               "ulp_by_capability": dict(self.ulp_by_capability)}
        return json.dumps(doc, indent=1, allow_nan=False) + "\n"

    def tolerance(self, cpu: str) -> int:
        """The ulps allowed on the machine ``cpu`` (a :func:`machine_cpu` string): its capability's,
        0 for a capability that showed no difference, the largest for a machine whose kernels were
        changed by environment variables or whose capability is unknown."""
        words = cpu.split()
        capability = words[1] if len(words) > 1 and "(" not in cpu else None
        if capability is None or capability not in CAPABILITIES:
            return self.ulp
        return dict(self.ulp_by_capability).get(capability, 0) if self.ulp_by_capability else self.ulp


@dataclass
class Comparison:
    """The outcome of one comparison. ``exact`` tells whether it was byte-exact (same CPU or no
    marking); ``problems`` lists what differs, first difference first (empty when ``ok``)."""
    ok: bool
    exact: bool
    problems: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        return "; ".join(self.problems[:5]) + (f" (+{len(self.problems) - 5} more)" if len(self.problems) > 5 else "")


def mask_addresses(text: str) -> str:
    """An object's address (``<AddBackward0 object at 0x7f...>``) differs from run to run."""
    return _ADDRESS.sub(" object at 0x...>", text)


def read_marking(out_path: str | os.PathLike) -> CpuMarking | None:
    """The ``NAME.cpu`` sidecar of golden ``NAME.out`` (or of script ``NAME.grad``), or None."""
    path = Path(out_path).with_suffix(MARKING_SUFFIX)
    if not path.is_file():
        return None
    with open(path, "rb") as fh:
        data = fh.read(_MAX_MARKING_BYTES + 1)
    if len(data) > _MAX_MARKING_BYTES:
        raise ValueError(f"{path}: larger than {_MAX_MARKING_BYTES} bytes")
    doc = json.loads(data.decode("utf-8"))
    unit = doc.get("unit", "float32")
    if not isinstance(doc.get("cpu"), str) or not isinstance(doc.get("ulp"), int) or unit not in _UNITS:
        raise ValueError(f"{path}: want {{\"cpu\": str, \"ulp\": int, \"unit\": float16|float32|float64}}")
    by_capability = doc.get("ulp_by_capability", {})
    if not isinstance(by_capability, dict) or not all(isinstance(v, int) for v in by_capability.values()):
        raise ValueError(f"{path}: ulp_by_capability must map a capability to an int")
    return CpuMarking(cpu=doc["cpu"], ulp=doc["ulp"], unit=unit, differs_under=tuple(doc.get("differs_under", ())),
                      ulp_by_capability=tuple(sorted(by_capability.items())))


def _cpuinfo() -> tuple[str, set[str]]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown", set()
    vendor, flags = "unknown", set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "vendor_id" and vendor == "unknown":
            vendor = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    return vendor, flags


def machine_cpu() -> str:
    """This machine as a golden marking names it: ``VENDOR CAPABILITY`` with ATen's capability
    (AVX512 needs avx512f/bw/vl/dq, AVX2 needs avx2 and fma, else DEFAULT), e.g.
    ``GenuineIntel AVX512``.  With one of :data:`CPU_ENV_VARS` set the string ends in
    `` (NAME=VALUE)``, so it matches no marking; ``GRADCLI_GOLDEN_CPU`` overrides it all."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return override
    vendor, flags = _cpuinfo()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        capability = "AVX512"
    elif {"avx2", "fma"} <= flags:
        capability = "AVX2"
    else:
        capability = "DEFAULT"
    changed = [f"{name}={os.environ[name]}" for name in CPU_ENV_VARS if os.environ.get(name)]
    return f"{vendor} {capability}" + (f" ({' '.join(changed)})" if changed else "")


def differing_numbers(actual: str, expected: str) -> list[tuple[str, str]] | None:
    """The (actual, expected) pairs of decimal numbers that are printed differently, in order;
    None when the texts differ otherwise (the text between numbers, their count, an integer)."""
    numbers_a, numbers_e = _NUMBER.findall(actual), _NUMBER.findall(expected)
    if len(numbers_a) != len(numbers_e) or _NUMBER.split(actual) != _NUMBER.split(expected):
        return None
    pairs = [(a, e) for a, e in zip(numbers_a, numbers_e) if a != e]
    if any(_is_integer(a) or _is_integer(e) for a, e in pairs):
        return None
    return pairs


def _is_integer(token: str) -> bool:
    return not any(c in token for c in ".eE")


def _last_digit(token: str) -> float:
    """One unit in the last printed digit of a decimal token: 0.0001 for '1.2345', 1e-9 for '1.5e-08'."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def needed_ulp(a: str, b: str, unit: str = "float32") -> float:
    """How many ulps of ``unit`` (at the larger magnitude) two printed numbers are apart, beyond one
    unit in the last printed digit of the shorter one; 0 when that slack covers it."""
    x, y = float(a), float(b)
    if x == y or (math.isnan(x) and math.isnan(y)):
        return 0.0
    if not (math.isfinite(x) and math.isfinite(y)):
        return math.inf
    slack = max(_last_digit(a), _last_digit(b))
    gap = abs(x - y) - slack
    if gap <= 0:
        return 0.0
    return gap / spacing(max(abs(x), abs(y)), unit)


def spacing(value: float, unit: str = "float32") -> float:
    """The distance from |value| to the next larger number of the float type ``unit``."""
    bits, tiny = _UNITS[unit]
    if value == 0 or not math.isfinite(value):
        return tiny
    exponent = math.frexp(abs(value))[1]          # |value| = m * 2**exponent, 0.5 <= m < 1
    return max(2.0 ** (exponent - bits), tiny)


def compare_text(actual: str, expected: str, marking: CpuMarking | None = None,
                 cpu: str | None = None) -> Comparison:
    """Compare ``actual`` output with ``expected`` golden text (addresses masked on both sides):
    byte-exact unless ``marking`` names a CPU other than ``cpu`` (default: :func:`machine_cpu`),
    then numbers within the marking's tolerance and everything else exact."""
    actual, expected = mask_addresses(actual), mask_addresses(expected)
    if actual == expected:
        return Comparison(ok=True, exact=True)
    here = cpu if cpu is not None else machine_cpu()
    if marking is None or marking.cpu == here:
        return Comparison(ok=False, exact=True, problems=[_first_difference(actual, expected)])
    pairs = differing_numbers(actual, expected)
    if pairs is None:
        return Comparison(ok=False, exact=False,
                          problems=["text, an integer or the count of numbers differs: "
                                    + _first_difference(actual, expected)])
    problems = []
    allowed = marking.tolerance(here)
    for a, e in pairs:
        if needed_ulp(a, e, marking.unit) > allowed:
            problems.append(f"{a} vs golden {e}: {needed_ulp(a, e, marking.unit):.3g} {marking.unit} ulp "
                            f"> {allowed} (golden from {marking.cpu}, this is {here})")
    return Comparison(ok=not problems, exact=False, problems=problems)


def compare_with_golden(actual: str, out_path: str | os.PathLike, cpu: str | None = None) -> Comparison:
    """Compare a script's stdout with its golden ``NAME.out``, honouring a ``NAME.cpu`` marking.
    The golden file is read as UTF-8."""
    path = Path(out_path)
    expected = path.read_bytes().decode("utf-8")
    return compare_text(actual, expected, read_marking(path), cpu)


def _first_difference(actual: str, expected: str) -> str:
    a_lines, e_lines = actual.splitlines(), expected.splitlines()
    for number, (a, e) in enumerate(zip(a_lines, e_lines), 1):
        if a != e:
            return f"line {number}: got {a[:200]!r}, golden {e[:200]!r}"
    if len(a_lines) != len(e_lines):
        return f"got {len(a_lines)} lines, golden {len(e_lines)}"
    return "line endings or trailing newline differ"
