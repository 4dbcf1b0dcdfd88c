"""torch.distributions.constraints (engine/distributions_constraints.py): every public constraint's repr, class
name, is_discrete, event_dim and check() on the same values as torch's, the families' supports and arg_constraints
as those objects (their bounds readable), the dependent constraint's errors; the script-level golden is
tests/golden/scripts/distributions_constraints.grad."""
from __future__ import annotations

import pytest

from gradcli.engine import api as engine_torch


def _facts(lib):
    c = lib.distributions.constraints
    x = lib.tensor([[-1.0, 0.0, 0.5], [1.0, 2.0, float("nan")]])
    out = []
    for con in (c.real, c.real_vector, c.positive, c.nonnegative, c.unit_interval, c.boolean, c.nonnegative_integer,
                c.positive_integer, c.simplex, c.one_hot, c.interval(-1.0, 1.0), c.half_open_interval(-1, 1),
                c.greater_than(0.5), c.greater_than_eq(0.5), c.less_than(1.0), c.integer_interval(0, 2),
                c.independent(c.positive, 1), c.multinomial(3), c.MixtureSameFamilyConstraint(c.real)):
        out.append((repr(con), type(con).__name__, con.is_discrete, con.event_dim, con.check(x).tolist()))
    m = lib.tensor([[2.0, 0.5], [0.5, 1.0]])
    for con in (c.lower_triangular, c.lower_cholesky, c.corr_cholesky, c.square, c.symmetric, c.positive_semidefinite,
                c.positive_definite):
        out.append((repr(con), con.event_dim, [con.check(v).tolist() for v in (m, lib.eye(2), m.tril(), -m)]))
    cat = c.cat([c.positive, c.real], dim=0, lengths=[1, 2])
    stack = c.stack([c.positive, c.real], dim=0)
    out.append((repr(cat), cat.event_dim, cat.check(lib.tensor([1.0, -2.0, 3.0])).tolist(), repr(stack),
                stack.check(lib.tensor([-1.0, -2.0])).tolist()))
    dep = c.dependent(is_discrete=True, event_dim=1)
    out.append((repr(c.dependent), c.is_dependent(c.dependent), c.is_dependent(c.real), dep.is_discrete,
                dep.event_dim, isinstance(c.real, c.Constraint), c.greater_than(2.0).lower_bound))
    d = lib.distributions
    uniform = d.Uniform(lib.tensor([0.0]), lib.tensor([2.0]))
    for dist in (d.Normal(0.0, 1.0), uniform, d.Binomial(5, lib.tensor([0.3])), d.Categorical(lib.ones(3)),
                 d.Multinomial(4, lib.ones(3)), d.Pareto(2.0, 1.0), d.NegativeBinomial(3.0, 0.5),
                 d.MultivariateNormal(lib.zeros(2), lib.eye(2)), d.Dirichlet(lib.ones(3)), d.VonMises(0.0, 1.0),
                 d.MixtureSameFamily(d.Categorical(lib.ones(2)), d.Normal(lib.zeros(2), 1.0))):
        out.append((repr(dist.support), str(dist.arg_constraints), dist.support.event_dim,
                    dist.support.is_discrete))
    out.append(uniform.support.lower_bound.tolist())
    return out


def test_constraints_are_torchs():
    torch = pytest.importorskip("torch")
    assert _facts(engine_torch) == _facts(torch)


def test_dependent_refuses_check_and_static_attributes():
    c = engine_torch.distributions.constraints
    with pytest.raises(NotImplementedError, match="event_dim cannot be determined statically"):
        _ = c.dependent.event_dim
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        c.dependent.check(engine_torch.zeros(1))
