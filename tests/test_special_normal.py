"""torch.special's normal-distribution functions (gradcli/engine/ops/special_normal.py): erfcx is ATen's kernel
step for step (bit-equal to torch in float32 and float64); identities that need no torch."""
import math

import numpy as np
import pytest

from gradcli.engine import dtypes
from gradcli.engine.factory import tensor
from gradcli.engine.ops import special  # noqa: F401  (the family: binds the ops' declarations)
from gradcli.engine.ops import special_normal as SN


def _sweep():
    rng = np.random.default_rng(7)
    return np.concatenate([rng.uniform(-30, 60, 6000), rng.normal(0, 3, 3000), rng.uniform(50, 1e8, 500),
                           10.0 ** rng.uniform(-20, 0, 300),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 5e7, 6e7, -26.7, -6.1, 50, 50.5, -27.0]])


def test_erfcx_identity_float64():
    x = np.linspace(-5, 5, 41)
    got = SN.erfcx(tensor(x))._data
    want = np.array([math.exp(v * v) * math.erfc(v) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert SN.erfcx(tensor([-30.0, np.inf, 1e9], dtype=dtypes.float64))._data.tolist() == [np.inf, 0.0, SN._ISPI / 1e9]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_erfcx_bits_match_torch(dt):
    torch = pytest.importorskip("torch")
    a = _sweep().astype(dt)
    want = torch.special.erfcx(torch.from_numpy(a)).numpy()
    got = SN.erfcx(tensor(a.copy()))._data
    assert got.dtype == want.dtype
    same = (got.view(np.uint8) == want.view(np.uint8)).reshape(len(a), -1).all(1) | (np.isnan(got) & np.isnan(want))
    assert same.all(), a[~same][:5]


def test_erfcx_half_refused():
    with pytest.raises(NotImplementedError, match="\"erfcx_cpu\" not implemented for 'Half'"):
        SN.erfcx(tensor([1.0], dtype=dtypes.float16))
