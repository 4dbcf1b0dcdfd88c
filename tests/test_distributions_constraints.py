"""torch.distributions.constraints (engine/distributions_constraints.py): every public constraint's repr, class
name, is_discrete, event_dim and check() on the same values as torch's, the families' supports and arg_constraints
as those objects (their bounds readable), the dependent constraint's errors; biject_to and transform_to
(engine/distributions_registry.py) give torch's transforms for each constraint, and the transforms they add
(IndependentTransform, SoftmaxTransform, LowerCholeskyTransform, PositiveDefiniteTransform, CatTransform,
StackTransform, CorrCholeskyTransform) against float64 central differences and torch's values and gradients; the
script-level goldens are tests/golden/scripts/distributions_constraints.grad, distributions_constraint_registry.grad,
distributions_cat_stack_transforms.grad and distributions_corr_cholesky.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import case_table_tests, refused_script

X = [[-1.0, 0.5, 2.0], [0.3, -0.2, 1.5]]
M = [[0.5, 0.1], [-1.0, 0.2]]


def _jacobian_sum(t, x):
    return t(x) + t.log_abs_det_jacobian(x, t(x)).unsqueeze(-1)


def _elementwise_jacobian_sum(t, x):
    return t(x) + t.log_abs_det_jacobian(x, t(x))


def _corr_cholesky_sum(t, x):
    y = t(x)
    return y.sum((-2, -1)) + t.log_abs_det_jacobian(x, y) + (t.inv(y) * x).sum(-1)


CASES = {
    "softmax_transform": (lambda t, x: t.distributions.SoftmaxTransform()(x)
                          + t.distributions.SoftmaxTransform().inv(x.exp()), [X], []),
    "lower_cholesky_transform": (lambda t, m: t.distributions.LowerCholeskyTransform()(m)
                                 + t.distributions.LowerCholeskyTransform().inv(m.exp().tril()), [M], []),
    "positive_definite_transform": (lambda t, m: t.distributions.PositiveDefiniteTransform()(m), [M], []),
    "independent_transform": (lambda t, x: _jacobian_sum(t.distributions.IndependentTransform(
        t.distributions.SigmoidTransform(), 1), x), [X], []),
    "transform_to_interval": (lambda t, x: _jacobian_sum(t.distributions.transform_to(
        t.distributions.constraints.independent(t.distributions.constraints.interval(-1.0, 2.0), 1)), x), [X], []),
    "cat_transform": (lambda t, x: _elementwise_jacobian_sum(t.distributions.biject_to(
        t.distributions.constraints.cat([t.distributions.constraints.positive,
                                         t.distributions.constraints.interval(0.0, 2.0)], dim=1, lengths=[1, 2])), x),
        [X], []),
    "stack_transform": (lambda t, x: t.distributions.transform_to(t.distributions.constraints.stack(
        [t.distributions.constraints.positive, t.distributions.constraints.unit_interval], dim=0))(x)
        + t.distributions.StackTransform([t.distributions.ExpTransform(), t.distributions.SigmoidTransform()])
        .log_abs_det_jacobian(x, x.exp()), [X], []),
    "corr_cholesky_transform": (lambda t, x: _corr_cholesky_sum(t.distributions.CorrCholeskyTransform(), x), [X], []),
}

test_gradcheck, test_matches_torch = case_table_tests(CASES)


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


def _registry_facts(lib):
    d = lib.distributions
    c = d.constraints
    x = lib.tensor([[-1.0, 0.5, 2.0], [0.3, -0.2, 1.5]], dtype=lib.float64)  # float32 log is not SLEEF's to the ulp
    out = []
    for con in (c.real, c.positive, c.nonnegative, c.greater_than(1.5), c.greater_than_eq(-2.0), c.less_than(3.0),
                c.unit_interval, c.interval(-1.0, 2.0), c.half_open_interval(0.0, 1.0), c.interval(0, 1),
                c.real_vector, c.independent(c.positive, 1), c.simplex, c.lower_cholesky, c.positive_definite,
                c.positive_semidefinite, c.boolean, c.corr_cholesky):
        for registry in (d.biject_to, d.transform_to):
            try:
                t = registry(con)
            except NotImplementedError as err:
                out.append(str(err))
                continue
            out.append((repr(t), repr(t.domain), repr(t.codomain), t.bijective))
            if t.domain.event_dim < 2 and con is not c.corr_cholesky:
                y = t(x)
                # to 12 digits: sigmoid's float64 last bit is not torch's everywhere (a separate matter)
                out.append((np.round(y.tolist(), 12).tolist(), np.round(t.inv(y).tolist(), 12).tolist()))
    return out


def test_biject_to_transform_to_are_torchs():
    torch = pytest.importorskip("torch")
    np.testing.assert_equal(_registry_facts(engine_torch), _registry_facts(torch))


def test_scripts_cannot_register_factories():
    """register would change the registry for every later run in the process: scripts only call it."""
    refused_script("import torch\nfrom torch.distributions import biject_to, constraints\n", "<registry>",
                   "biject_to.register(constraints.real, lambda c: None)\n", "AttributeError")
    refused_script("import torch\nfrom torch.distributions import biject_to, constraints\n", "<registry>",
                   "biject_to._registry.clear()\n", "AttributeError")
