"""torch.__version__: torch.torch_version.TorchVersion, a str that compares as a PEP 440 version with strings
and tuples (`torch.__version__ >= "2.2"` is True for 2.13, where plain strings would say False), and falls back
to str's comparison where the other side is no version ('parrot'), as torch's does. torch uses its vendored
packaging.version; this is the part of PEP 440's ordering that its normal forms need (release, a/b/rc, post,
dev, local), with packaging's sort key."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

_VERSION = re.compile(r"v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d*))?"
                      r"(?:-(\d+)|[-_.]?(?:post|rev|r)[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?"
                      r"(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?", re.IGNORECASE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def version_key(text):
    """packaging.version.Version(text)'s sort key, or None where text is no valid version."""
    m = _VERSION.fullmatch(text.strip())
    if m is None:
        return None
    epoch, release, pre_l, pre_n, post_a, post_b, dev, local = m.groups()
    parts = [int(p) for p in release.split(".")]
    while len(parts) > 1 and parts[-1] == 0:  # 2.0 == 2
        parts.pop()
    post = post_a if post_a is not None else post_b
    if pre_l is None and post is None and dev is not None:
        pre_key = (-math.inf,)  # 1.0.dev0 sorts before 1.0a0
    elif pre_l is None:
        pre_key = (math.inf,)
    else:
        pre_key = (_PRE[pre_l.lower()], int(pre_n or 0))
    post_key = -math.inf if post is None else int(post or 0)
    dev_key = math.inf if dev is None else int(dev or 0)
    if local is None:
        local_key = ()  # before every local part, as packaging's NegativeInfinity
    else:
        local_key = tuple((int(p), "") if p.isdigit() else (-math.inf, p.lower()) for p in re.split(r"[-_.]", local))
    return int(epoch or 0), tuple(parts), pre_key, post_key, dev_key, local_key


def _other_key(other):
    if isinstance(other, str):
        return version_key(other)
    if isinstance(other, Iterable):  # (2, 1) -> "2.1"
        return version_key(".".join(str(item) for item in other))
    return None


def _comparison(name):
    str_method = getattr(str, name)

    def compare(self, other):
        mine, theirs = version_key(self), _other_key(other)
        if mine is None or theirs is None:
            return str_method(self, other)
        return getattr(mine, name)(theirs)
    compare.__name__ = name
    return compare


class TorchVersion(str):
    __slots__ = ()
    __hash__ = str.__hash__
    __lt__, __le__, __gt__, __ge__ = (_comparison(n) for n in ("__lt__", "__le__", "__gt__", "__ge__"))
    __eq__ = _comparison("__eq__")  # != stays str's, as in torch (it overrides these five only)


TorchVersion.__module__ = "torch.torch_version"  # <class 'torch.torch_version.TorchVersion'>, as torch prints it
__version__ = TorchVersion("2.13.0+cpu")  # as the reference build (the CPU wheel) prints torch.__version__
