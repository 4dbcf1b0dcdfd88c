"""gradcli.testing.cpu (through gradcli.testing.golden.compare): exact comparison on the golden's own CPU, numbers within the marking's ulp
tolerance elsewhere, everything else exact (no torch needed)."""
from __future__ import annotations

import pytest

from gradcli.testing.cpu import (CpuMarking, compare_text, compare_with_golden, differing_numbers,
                                    machine_cpu, needed_ulp, read_marking)

MARK = CpuMarking(cpu="GenuineIntel AVX512", ulp=8, unit="float32", differs_under=("avx2-mkl-avx2",))
GOLDEN = " Accuracy: 25.0%, Avg loss: 1.872005 \ntensor([0.2500, 1.0000], grad_fn=<MulBackward0>)\n"
AMD = "AuthenticAMD AVX2"


def test_same_cpu_or_no_marking_is_byte_exact():
    other = GOLDEN.replace("1.872005", "1.872004")
    assert compare_text(GOLDEN, GOLDEN, MARK, cpu=MARK.cpu).ok
    assert not compare_text(other, GOLDEN, MARK, cpu=MARK.cpu).ok            # the machine it came from
    assert not compare_text(other, GOLDEN, None, cpu=AMD).ok                 # an unmarked golden
    result = compare_text(other, GOLDEN, MARK, cpu=AMD)
    assert result.ok and not result.exact                                    # elsewhere: within tolerance


@pytest.mark.parametrize("actual, why", [
    (GOLDEN.replace("Avg loss", "Avg  loss"), "text"),
    (GOLDEN.replace("MulBackward0", "AddBackward0"), "text"),
    (GOLDEN.replace("1.872005", "1.872105"), "ulp"),                          # 100 units: far beyond 8 ulp
    (GOLDEN.replace("25.0%", "25.0% 3"), "text"),                            # one more number
    (GOLDEN.replace("Backward0", "Backward1"), "text"),                      # part of a name
])
def test_elsewhere_only_digits_may_move(actual, why):
    result = compare_text(actual, GOLDEN, MARK, cpu=AMD)
    assert not result.ok and result.problems
    assert ("ulp" in result.message) == (why == "ulp"), result.message


def test_integers_stay_exact_and_addresses_are_masked():
    assert differing_numbers("epoch 3 loss 1.5\n", "epoch 4 loss 1.5\n") is None
    assert not compare_text("epoch 3\n", "epoch 4\n", MARK, cpu=AMD).ok
    a = "(<MulBackward0 object at 0x7f00fd297310>, 0)\n"
    b = "(<MulBackward0 object at 0x7fe7753076a0>, 0)\n"
    assert compare_text(a, b, None).ok


def test_needed_ulp_counts_beyond_the_last_printed_digit():
    assert needed_ulp("1.872004", "1.872005") == 0.0                         # one printed digit apart
    assert needed_ulp("0.25", "0.25") == 0.0
    # float32 values printed in full (tolist): 0.0669987... and 0.0669988... are 5 float32 ulps apart
    assert 4 < needed_ulp("-0.06699877977371216", "-0.06699881702661514") < 6
    assert needed_ulp("169.20079663889723", "169.20079663889726", "float64") < 2
    assert needed_ulp("nan", "nan") == 0.0 and needed_ulp("inf", "1.0") == float("inf")


def test_markings_are_read_from_the_sidecar(tmp_path, monkeypatch):
    out = tmp_path / "a.out"
    out.write_text(GOLDEN, encoding="utf-8")
    assert read_marking(out) is None
    out.with_suffix(".cpu").write_text(MARK.to_json(), encoding="utf-8")
    assert read_marking(tmp_path / "a.grad") == MARK
    other = GOLDEN.replace("1.872005", "1.872004")
    monkeypatch.setenv("GRADCLI_GOLDEN_CPU", AMD)
    assert machine_cpu() == AMD and compare_with_golden(other, out).ok
    monkeypatch.setenv("GRADCLI_GOLDEN_CPU", MARK.cpu)
    assert not compare_with_golden(other, out).ok
    monkeypatch.delenv("GRADCLI_GOLDEN_CPU")
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", "AVX2")                   # kernels changed: not that machine
    assert machine_cpu().endswith("(MKL_ENABLE_INSTRUCTIONS=AVX2)")
    out.with_suffix(".cpu").write_text('{"cpu": "x", "ulp": "8"}', encoding="utf-8")
    with pytest.raises(ValueError):
        read_marking(out)


def test_tolerance_follows_the_capability_it_was_measured_for():
    """A golden that differs only on CPUs without AVX2 (ATen's scalar kernels) stays strict on AVX2
    machines: only a last printed digit may move there."""
    mark = CpuMarking(cpu="GenuineIntel AVX512", ulp=4096, unit="float32", differs_under=("default",),
                      ulp_by_capability=(("DEFAULT", 4096),))
    golden = "2.4556962671340443e-05\n"
    moved = "2.4557113647460938e-05\n"                  # ~83 float32 ulps away
    assert compare_text(moved, golden, mark, cpu="GenuineIntel DEFAULT").ok
    assert not compare_text(moved, golden, mark, cpu="AuthenticAMD AVX2").ok
    assert mark.tolerance("AuthenticAMD AVX2") == 0 and mark.tolerance("GenuineIntel DEFAULT") == 4096
    # kernels changed by environment variables (a simulated CPU): the largest tolerance
    assert mark.tolerance("GenuineIntel AVX512 (OPENBLAS_CORETYPE=Haswell)") == 4096
    assert compare_text("1.5\n", "1.5\n", mark, cpu="AuthenticAMD AVX2").ok
