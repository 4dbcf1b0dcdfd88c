#!/usr/bin/env python3
"""Write gradcli/engine/torch_signatures.py from real PyTorch: for every torch.X function of the
engine that PyTorch implements in C++ (its argument parser), the signatures that parser knows,
so that the engine can raise PyTorch's TypeError when the first argument has the wrong type
(``torch.exp(3)``: "exp(): argument 'input' (position 1) must be Tensor, not int").

    python tools/gen_torch_signatures.py          (a Python with torch==2.13.0)
    python tools/gen_torch_signatures.py --check  (writes nothing; exit 1 when the file is stale)

Each entry is ``name: (signature, ...)`` with ``signature = (min_args, max_args, first_name,
first_type, text)``: ``text`` is the line PyTorch lists under "expected one of:" (None when it
has a single signature, where it reports the bad argument instead). ``METHOD_SIGNATURES`` holds the same
for the Tensor methods whose parser lists several signatures (x.lerp(2., .5): without ``input``);
``NOT_PARSED`` names the engine's torch.X functions looked at that have none (no C++ binding, or a
parser that says nothing), so that tests/test_torch_signatures.py can tell a new op that was never
looked at (the file is stale) without torch. ``NUMBER_FIRST`` names the
functions that also take a Python number first, through overloads the parser does not list. A development tool, never
part of the gradcli package.
"""
from __future__ import annotations

import argparse
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "gradcli" / "engine" / "torch_signatures.py"


def split_params(text):
    """A signature's parameters: split at the commas outside braces (dim = {-2,-1} is one default)."""
    inner = text.strip()[1:-1]
    params, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        depth += ch in "{[(" and 1 or (-1 if ch in "}])" else 0)
        if ch == "," and depth == 0:
            params.append(inner[start:i])
            start = i + 1
    params.append(inner[start:])
    return [p.strip() for p in params if p.strip()]


def parse_signature(text):
    params = [p for p in split_params(text) if p != "*"]
    required = sum(1 for p in params if " = " not in p)
    first = params[0].split(" = ")[0] if params else ""
    first_type, _, first_name = first.rpartition(" ")
    return (required, len(params), first_name, first_type, text.strip())


def signatures(fn, name):
    try:
        fn()
    except TypeError as e:
        message = str(e)
    except Exception:  # noqa: BLE001 - not the argument parser
        return None
    else:
        return None
    if "received an invalid combination of arguments" in message:
        lines = [line[3:] for line in message.splitlines() if line.startswith(" * (")]
        if lines:
            return tuple(parse_signature(line) for line in lines)
    m = re.match(r'\w+\(\) missing (\d+) required positional arguments?: (.*)', message)
    if not m:
        return None
    required = int(m.group(1))
    try:
        fn(object())
    except TypeError as e:
        detail = str(e)
    except Exception:  # noqa: BLE001
        return None
    else:
        return None
    d = re.match(r"\w+\(\): argument '(\w+)' \(position 1\) must be (.+), not object$", detail)
    if not d:
        return None
    max_args = None
    try:
        fn(*([object()] * 12))
    except Exception as e:  # noqa: BLE001
        many = str(e)
        t = re.search(r"takes (?:from \d+ to )?(\d+) positional arguments? but", many)
        if t:
            max_args = int(t.group(1))
        e2 = re.search(r"but expected (\(.*\))$", many.splitlines()[0])
        if e2:
            return (parse_signature(e2.group(1))[:4] + (None,),)
    return ((required, max_args, d.group(1), d.group(2), None),)


def numbers_first(fn):
    """Does torch.name take a Python number as its first argument (hidden Scalar overloads: mul, div)?"""
    import torch
    for args in ((2.0,), (2.0, torch.ones(2)), (2.0, torch.ones(2), torch.ones(2))):
        try:
            fn(*args)
        except TypeError:
            continue
        except Exception:  # noqa: BLE001 - parsed, then failed elsewhere
            return True
        return True
    return False


class _Probe:
    """A value of a type no torch function takes: its name shows where torch reports it."""


class _Probe2:
    pass


def functional_errors(fn):
    """What torch.nn.functional.name raises for a non-Tensor first argument (input), by the number
    of arguments given ({n: (type, message template with {} for the type name)}), and for a
    non-Tensor second argument (target, weight) when torch requires a Tensor there; and whether
    torch looks at the second argument first."""
    import torch
    t = torch.ones(2, 3)

    def probe(args, marker):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001
            text = str(e).splitlines()[0] if str(e) else ""
            if marker in text and not re.search(marker + r"\w", text) and (
                    "must be Tensor" in text or "object has no attribute" in text):
                return (type(e).__name__, text.replace(marker, "{}"))
        return None

    first = {}
    for n, candidates in ((1, [()]), (2, [(t,), (0,), (1,), ((1, 1),)]), (3, [(t, t), (0, 0), (2, 2), (1, 1)])):
        for rest in candidates:
            found = probe((_Probe(),) + rest, "_Probe")
            if found:
                first[n] = found
                break
    second = probe((t, _Probe()), "_Probe")
    target_first = False
    if first.get(2) and second:
        try:
            fn(_Probe(), _Probe2())
        except Exception as e:  # noqa: BLE001
            target_first = "_Probe2" in str(e)
    return first, second, target_first


def engine_functions():
    """The names of the engine's torch.X functions (every op family bound), as the generator and
    tests/test_torch_signatures.py list them."""
    from gradcli.engine import api, methods
    methods.load_all()  # the op families that load on first use
    return [name for name in sorted(vars(api))
            if not name.startswith("_") and callable(getattr(api, name)) and not isinstance(getattr(api, name), type)]


NAMESPACES = ("linalg", "special")  # torch.linalg.X, torch.special.X: their parser names them linalg_X, special_X


def engine_namespace_functions():
    """The engine's torch.linalg.X and torch.special.X functions, as "linalg.X" and "special.X"."""
    from gradcli.engine import api, methods
    methods.load_all()
    return [f"{ns}.{name}" for ns in NAMESPACES for name in dir(getattr(api, ns))
            if not name.startswith("_") and callable(getattr(getattr(api, ns), name))
            and not isinstance(getattr(getattr(api, ns), name), type)]


def engine_methods():
    """The names of the engine's public Tensor methods (every op family bound)."""
    from gradcli.engine import methods
    from gradcli.engine.tensor import Tensor
    methods.load_all()
    return sorted(name for name in dir(Tensor) if not name.startswith("_") and callable(getattr(Tensor, name, None)))


def method_signatures(name):
    """The signatures torch's parser lists for the Tensor method name, when it lists several (probed with
    0 to 3 arguments no signature takes), else None."""
    import torch
    for n in range(4):
        fn = getattr(torch.ones(2, 2), name, None)
        if not isinstance(fn, types.BuiltinMethodType):
            return None
        try:
            fn(*([_Probe()] * n))
        except Exception as e:  # noqa: BLE001 - whatever it raises, only its listing counts
            message = str(e)
        else:
            continue
        if "received an invalid combination of arguments" in message:
            lines = [line[3:] for line in message.splitlines() if line.startswith(" * (")]
            if lines:
                return tuple(parse_signature(line) for line in lines)
    return None


def takes_no_arguments(name):
    """Is the Tensor method name a C method taking no argument (Python's own "takes no arguments" error)?"""
    import torch
    fn = getattr(torch.ones(2, 2), name, None)
    if not isinstance(fn, types.BuiltinMethodType):
        return False
    try:
        fn(_Probe())
    except TypeError as e:
        return str(e).endswith("() takes no arguments (1 given)")
    except Exception:  # noqa: BLE001 - any other failure: it took the argument
        return False
    return False


def _entry_lines(name, sigs):
    """One `name: (signature, ...)` entry of a generated table."""
    return [f"    {name!r}: (", *(f"        {s!r}," for s in sigs), "    ),"]


def build():
    """The text of torch_signatures.py, from the torch this runs with."""
    import warnings
    warnings.simplefilter("ignore")
    import torch
    table = {}
    numeric = []
    not_parsed = []
    for name in engine_functions():
        fn = getattr(torch, name, None)
        sigs = signatures(fn, name) if isinstance(fn, types.BuiltinFunctionType) else None
        if sigs:
            table[name] = sigs
            if numbers_first(fn):
                numeric.append(name)
        else:
            not_parsed.append(name)
    lines = ['"""Generated by tools/gen_torch_signatures.py from PyTorch 2.13: do not edit.',
             "",
             "name -> the signatures of torch.name that PyTorch's argument parser lists:",
             "(min_args, max_args, first_name, first_type, text); max_args None: unknown;",
             'text None: the only signature (PyTorch then names the bad argument).',
             'NUMBER_FIRST: the functions that also take a Python number first; METHOD_SIGNATURES: the Tensor',
             'methods listing several signatures; NOT_PARSED: the torch.X functions without any."""', "",
             "SIGNATURES = {"]
    for name, sigs in table.items():
        lines.extend(_entry_lines(name, sigs))
    lines.append("}")
    lines.append("")
    import torch.nn.functional as TF
    from gradcli.engine.nn import functional as GF
    lines.append("")
    lines.append("# torch.nn.functional.name with a non-Tensor input / target: (type, message with {} for")
    lines.append("# the value's type name) or None, and whether torch looks at the target first")
    lines.append("FUNCTIONAL = {")
    for name in sorted(GF.NAMES):
        fn = getattr(TF, name, None)
        if fn is None:
            continue
        first, second, target_first = functional_errors(fn)
        if first or second:
            lines.append(f"    {name!r}: ({first!r}, {second!r}, {target_first!r}),")
    lines.append("}")
    lines.append("")
    lines.append("# these also take a Python number first (torch.mul(2, t)): overloads the parser does not list")
    lines.append("NUMBER_FIRST = frozenset({")
    for name in numeric:
        lines.append(f"    {name!r},")
    lines.append("})")
    lines.append("")
    lines.append("# the Tensor methods whose parser lists several signatures, as it lists them (without input)")
    lines.append("METHOD_SIGNATURES = {")
    for name in engine_methods():
        sigs = method_signatures(name)
        if sigs:
            lines.extend(_entry_lines(name, sigs))
    lines.append("}")
    lines.append("")
    lines.append("# the Tensor methods that take no argument (METH_NOARGS): x.t(1) is \"TensorBase.t() takes no arguments (1 given)\"")
    lines.append("NOARGS_METHODS = frozenset({")
    for name in engine_methods():
        if takes_no_arguments(name):
            lines.append(f"    {name!r},")
    lines.append("})")
    lines.append("")
    namespace_table = {}
    namespace_not_parsed = []
    for qualified in engine_namespace_functions():
        ns, name = qualified.split(".")
        fn = getattr(getattr(torch, ns), name, None)
        sigs = signatures(fn, f"{ns}_{name}") if isinstance(fn, types.BuiltinFunctionType) else None
        if sigs:
            namespace_table[qualified] = sigs
        else:
            namespace_not_parsed.append(qualified)
    lines.append("# the same for torch.linalg.X and torch.special.X (\"linalg.X\": torch names them linalg_X())")
    lines.append("NAMESPACE_SIGNATURES = {")
    for name, sigs in namespace_table.items():
        lines.extend(_entry_lines(name, sigs))
    lines.append("}")
    lines.append("")
    lines.append("NAMESPACE_NOT_PARSED = frozenset({")
    for name in namespace_not_parsed:
        lines.append(f"    {name!r},")
    lines.append("})")
    lines.append("")
    lines.append("# the engine's torch.X functions looked at that torch's argument parser gives no signatures for")
    lines.append("NOT_PARSED = frozenset({")
    for name in not_parsed:
        lines.append(f"    {name!r},")
    lines.append("})")
    return "\n".join(lines) + "\n", len(table)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file is stale")
    options = parser.parse_args(argv)
    text, count = build()
    if options.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run tools/gen_torch_signatures.py")
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date ({count} functions)")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {count} functions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
