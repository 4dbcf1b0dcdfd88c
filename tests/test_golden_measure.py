"""tools/make_goldens.py --measure-here: a real machine of another CPU class widens a golden's NAME.cpu
marking to what its torch prints (docs/goldens.md), and the variants' rewrites keep that measurement."""
from __future__ import annotations

from gradcli.testing.cpu import CpuMarking, compare_text, read_marking
from tool_modules import load_tool

MG = load_tool("make_goldens")
AMD = "AuthenticAMD AVX2"
MARK = CpuMarking(cpu="GenuineIntel AVX512", ulp=64, unit="float32", differs_under=("avx2-mkl-avx2",),
                  ulp_by_capability=(("AVX2", 64), ("AVX512", 64)))
GOLDEN = "loss 281.4254150390625 at step 3\n"
HERE = "loss 281.4278564453125 at step 3\n"   # 80 float32 ulps away: beyond the marking's 64


def test_a_marking_too_tight_for_this_machine_is_widened_for_its_capability_only():
    assert not compare_text(HERE, GOLDEN, MARK, AMD).ok
    marking, problem = MG.measured_marking(MARK, HERE, GOLDEN, AMD)
    assert problem is None
    assert dict(marking.ulp_by_capability) == {"AVX2": 256, "AVX512": 64}   # 2 * 80, a power of two
    assert marking.cpu == MARK.cpu and marking.unit == "float32"
    assert "measured: AuthenticAMD AVX2" in marking.differs_under and "avx2-mkl-avx2" in marking.differs_under
    assert compare_text(HERE, GOLDEN, marking, AMD).ok
    assert not compare_text(HERE, GOLDEN, marking, "GenuineIntel AVX512").ok   # still exact at home


def test_within_the_marking_or_identical_nothing_changes():
    assert MG.measured_marking(MARK, GOLDEN, GOLDEN, AMD) == (None, None)
    near = "loss 281.4254455566406 at step 3\n"   # one ulp
    assert MG.measured_marking(MARK, near, GOLDEN, AMD) == (None, None)
    assert MG.measured_marking(None, GOLDEN, GOLDEN, AMD) == (None, None)


def test_an_unmarked_golden_that_differs_gets_a_marking_from_the_home_machine():
    marking, problem = MG.measured_marking(None, HERE, GOLDEN, AMD)
    assert problem is None and marking.cpu == MG.HOME_CPU
    assert dict(marking.ulp_by_capability) == {"AVX2": 256}
    assert not compare_text(HERE, GOLDEN, marking, MG.HOME_CPU).ok


def test_text_differences_and_the_home_machine_are_refused():
    marking, problem = MG.measured_marking(MARK, "loss at step 4\n", GOLDEN, AMD)
    assert marking is None and "more than digits" in problem
    marking, problem = MG.measured_marking(MARK, HERE, GOLDEN, MARK.cpu)
    assert marking is None and "own" in problem


def test_rewriting_with_the_variants_keeps_the_measured_tolerance(tmp_path):
    widened, _ = MG.measured_marking(MARK, HERE, GOLDEN, AMD)
    cpu_file = tmp_path / "x.cpu"
    cpu_file.write_text(widened.to_json(), encoding="utf-8")
    MG._write_marking(cpu_file, MARK, list(MG.CPU_VARIANTS))   # a full rerun measures 64 for AVX2 again
    kept = read_marking(cpu_file)
    assert dict(kept.ulp_by_capability) == {"AVX2": 256, "AVX512": 64}
    assert "measured: AuthenticAMD AVX2" in kept.differs_under
