"""A non-leaf tensor's .grad warns as TensorBody.h's grad() does: only while no gradient is there
(none retained, none set); backward(inputs=[h]) makes h retain its grad (no warning after)."""
import warnings

import gradcli.engine.api as torch


def _warnings_of(read):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = read()
    return value, [w for w in seen if "not a leaf Tensor" in str(w.message)]


def test_undefined_grad_warns_once_defined_grad_does_not():
    w = torch.ones(3, requires_grad=True)
    k = w * 2
    value, seen = _warnings_of(lambda: k.grad)
    assert value is None and len(seen) == 1
    k.grad = torch.ones(3)
    value, seen = _warnings_of(lambda: k.grad)
    assert value is not None and seen == []


def test_backward_inputs_makes_a_non_leaf_retain():
    w = torch.ones(3, requires_grad=True)
    h = w.exp()
    assert not h.retains_grad
    (h * h).sum().backward(inputs=[h])
    assert h.retains_grad
    value, seen = _warnings_of(lambda: h.grad)
    assert seen == [] and value.tolist() == (2 * h.detach()).tolist()
    assert w.grad is None
