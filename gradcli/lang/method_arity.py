"""torch's words for a Tensor method called with arguments it takes none of. torch binds those methods
(x.t(), x.exp(), x.numel(), ...: torch_signatures.NOARGS_METHODS) as C methods without arguments, so
Python itself refuses `x.t(5)` with "TensorBase.t() takes no arguments (1 given)" and `x.t(k=1)` with
"TensorBase.t() takes no keyword arguments"; gradcli's methods are Python functions of the tensor, whose
refusal Python words "t() takes 1 positional argument but 2 were given". runtime.tag rewords it at the
call that raised it (an exception raised by the call itself, not inside the method), when the call is
written `obj.name(...)` and the function Python names is the Tensor method `name`.
"""
from __future__ import annotations

import re

from . import ast as A

_TOO_MANY = re.compile(r"(?:Tensor\.)?(\w+)\(\) takes 1 positional argument but (\d+) were given")
_KEYWORD = re.compile(r"(?:Tensor\.)?(\w+)\(\) got an unexpected keyword argument '\w+'")


def reworded(exc, node):
    """torch's message for exc raised by the call node, or None."""
    if type(exc) is not TypeError or type(node) is not A.Call or type(node.func) is not A.Attribute:
        return None
    tb = exc.__traceback__
    if tb is None or len(exc.args) != 1 or type(exc.args[0]) is not str:
        return None
    from ..engine.function import FORWARDER_CODES  # noqa: PLC0415 - only for the error
    inner, t = [], tb.tb_next  # the frames below the call, but out_variant's pass-through ones (x.abs(1))
    while t is not None:
        if t.tb_frame.f_code not in FORWARDER_CODES:
            inner.append(t)
        t = t.tb_next
    # none: raised by the call itself; an in-place form's wrapper calling the op: one frame
    if inner and (len(inner) > 1 or not node.func.attr.endswith("_")):
        return None
    from ..engine.torch_signatures import NOARGS_METHODS  # noqa: PLC0415 - only for the error
    name = node.func.attr
    if name not in NOARGS_METHODS or any(type(a) is A.Starred for a in node.args) or any(
            k.arg is None for k in node.keywords):
        return None
    from ..engine.tensor import Tensor  # noqa: PLC0415
    method = Tensor.__dict__.get(name)
    text = exc.args[0]
    m = (_KEYWORD if node.keywords else _TOO_MANY).fullmatch(text)
    # the function Python names is the method's (an alias's: acos for arccos), or the in-place wrapper's op
    if m is None or getattr(method, "__name__", None) != (m.group(1) if not inner else name):
        return None
    if node.keywords:
        return f"TensorBase.{name}() takes no keyword arguments"
    if int(m.group(2)) != len(node.args) + 1:  # (self among those Python counts: a method call)
        return None
    return f"TensorBase.{name}() takes no arguments ({len(node.args)} given)"
