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


# python_arg_parser.cpp's type_map and FunctionParameter::type_name: a schema type as the parser's messages name it
_TYPE_NAMES = {"Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
               "complex": "complex", "TensorList": "tuple of Tensors", "c10::List<::std::optional<Tensor>>":
               "tuple of Tensors", "IntArrayRef": "tuple of ints", "SymIntArrayRef": "tuple of ints",
               "ArrayRef<double>": "tuple of floats", "Generator": "torch.Generator", "bool": "bool",
               "Storage": "torch.Storage", "PyObject*": "object", "ScalarType": "torch.dtype", "Layout": "torch.layout",
               "MemoryFormat": "torch.memory_format", "QScheme": "torch.qscheme", "Device": "torch.device",
               "DeviceIndex": "int", "Stream": "torch.Stream", "std::string": "str", "c10::string_view": "str",
               "std::string_view": "str", "Dimname": "name", "DimnameList": "tuple of names",
               "ScalarList": "tuple of Scalars", "DispatchKeySet": "DispatchKeySet"}


def parser_text(signature_str):
    """FunctionSignature::toString of a binding's signature string (torchgen's): each parameter as
    "type name[ = default]", and the names of those whose type is optional ('?': the text drops it)."""
    params = split_params(signature_str[signature_str.index("("):])
    parts, nullable = [], []
    for param in params:
        if param == "*":
            parts.append("*")
            continue
        head, eq, default = param.partition("=")
        kind, _, name = head.strip().rpartition(" ")
        if kind.endswith("?"):
            nullable.append(name)
        kind = "TensorList" if kind.startswith("TensorList") else re.sub(r"\[\d*\]$", "", kind.rstrip("?"))
        parts.append(f"{_TYPE_NAMES[kind]} {name}" + (f" = {default}" if eq else ""))
    return "(" + ", ".join(parts) + ")", tuple(nullable)


def binding_texts(method=False, raw=False):
    """{name: [(text, nullable), ...]}: the signatures torch's Python bindings are made with, from the
    native_functions.yaml that torchgen ships, grouped and ordered as gen_python_functions does
    (name: "X" for torch.X, "linalg.X" / "special.X"; with method, the Tensor methods' without self; with raw,
    torchgen's own signature strings)."""
    import os
    from collections import defaultdict

    import torchgen
    from torchgen.api.python import PythonSignatureNativeFunctionPair, signature
    from torchgen.gen import parse_native_yaml
    from torchgen.model import Variant
    from torchgen.packaged.autograd.gen_python_functions import (group_overloads, should_generate_py_binding,
                                                                 sort_overloads)
    native = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native")
    parsed = parse_native_yaml(os.path.join(native, "native_functions.yaml"), os.path.join(native, "tags.yaml"))
    pairs = defaultdict(list)
    for f in parsed.native_functions:
        module = f.python_module
        variant = Variant.method if method else Variant.function
        if not should_generate_py_binding(f) or (module is None and variant not in f.variants) or (
                method and module is not None):
            continue
        name = str(f.func.name.name)
        key = name if module is None else f"{module}.{name.removeprefix(module + '_')}"
        pairs[key].append(PythonSignatureNativeFunctionPair(signature=signature(f, method=method), function=f))
    text = (lambda t: t) if raw else parser_text
    return {key: [text(g.signature.signature_str(symint=True))
                  for g in sort_overloads(group_overloads(found, symint=True), symint=True)]
            for key, found in pairs.items()}


def single_texts(tables, bindings):
    """{name: (text, nullable)} for the functions of tables (SIGNATURES, NAMESPACE_SIGNATURES) with a single
    signature, whose text torch never shows (it names the bad argument instead); checked against what the
    parser said: the several signatures' texts torch listed must be the bindings' own."""
    singles = {}
    for table in tables:
        for name, sigs in table.items():
            texts = [s[4] for s in sigs]
            found = bindings.get(name)
            if None not in texts:
                if found is not None and [t for t, _ in found] != texts:
                    raise SystemExit(f"torchgen's signatures of {name} are not the parser's: {found} != {texts}")
                continue
            if found is None or len(found) != 1:
                continue
            text, nullable = found[0]
            first = split_params(text)[0].split(" = ")[0]
            if first != f"{sigs[0][3]} {sigs[0][2]}":
                raise SystemExit(f"torchgen's signature of {name} does not start as the parser's: {text}")
            if not numbers_as_tensors(torch_function(name), text):
                singles[name] = (text, nullable)
    return singles


def torch_function(name):
    """torch.name, or torch.linalg.X for "linalg.X"."""
    import torch
    owner, _, short = name.rpartition(".")
    return getattr(getattr(torch, owner) if owner else torch, short)


def numbers_as_tensors(fn, text, method=False):
    """Does the parser take a Python number for the signature's second Tensor parameter (python_arg_parser's
    should_allow_numbers_as_tensors: add, mul, sub, div, copysign...)? Probed with 1.5 there."""
    import torch
    params = split_params(text)
    index = 0 if method else 1
    if len(params) <= index or not params[index].startswith("Tensor "):
        return False
    try:
        fn(1.5) if method else fn(torch.ones(2, 2), 1.5)
    except TypeError as e:
        return "must be Tensor, not float" not in str(e)
    except Exception:  # noqa: BLE001 - parsed, then failed elsewhere
        return True
    return True


def single_method_texts(bindings):
    """{name: (text, nullable)} for the engine's Tensor methods with a single signature that takes a Tensor after
    self (x.diagonal_scatter(1)), whose first parameter is the one torch's parser names for a wrong argument."""
    import torch
    singles = {}
    for name in engine_methods():
        found = bindings.get(name)
        if found is None or len(found) != 1 or method_signatures(name) or "Tensor " not in found[0][0]:
            continue
        try:
            getattr(torch.ones(2, 2), name)(_Probe())
        except TypeError as e:
            m = re.match(rf"{name}\(\): argument '(\w+)' \(position 1\) must be (.+), not _Probe$", str(e))
        else:
            continue
        if m and split_params(found[0][0])[0].split(" = ")[0] == f"{m.group(2)} {m.group(1)}" and not \
                numbers_as_tensors(getattr(torch.ones(2, 2), name), found[0][0], method=True):
            singles[name] = found[0]
    return singles


def method_only_texts(bindings, known):
    """{name: (text, nullable)} for the engine's Tensor methods that are C methods with a single signature that
    the tables above do not give (known: SINGLE_SIGNATURES' and SINGLE_METHOD_SIGNATURES' names; x.expand,
    x.repeat, x.new_zeros, x.addcmul), taking an int list or a Number: their arguments are checked as that
    signature's (arg_single.with_method_only_check)."""
    import torch
    method_only = {}
    for name in engine_methods():
        found = bindings.get(name)
        if found is None or len(found) != 1 or name in known or method_signatures(name):
            continue
        if not isinstance(getattr(torch.ones(2, 2), name, None), types.BuiltinMethodType):
            continue
        if "tuple of ints " in found[0][0] or "Number " in found[0][0]:
            method_only[name] = found[0]
    return method_only


# keywords every function takes through its own wrappers (outarg.with_out) or that the engine does not model
_KEYWORDS_ELSEWHERE = frozenset({"out", "layout", "device", "pin_memory", "requires_grad", "memory_format",
                                 "generator", "names", "out_dtype"})


def _accepted_keywords(fn):
    """The keyword names the engine's implementation takes (None: any, **kwargs; or no signature)."""
    import inspect
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return None
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def keyword_gaps(items):
    """{name: texts} for the (name, implementation, texts) whose torch signatures name a parameter the
    implementation takes by no keyword of that name (torch.dot(x, tensor=y): the engine calls it other)."""
    gaps = {}
    for name, fn, texts in items:
        accepted = _accepted_keywords(fn)
        if accepted is None or not texts:
            continue
        wanted = {param.split(" = ")[0].rpartition(" ")[2] for text in texts for param in split_params(text)
                  if param != "*"}
        if wanted - _KEYWORDS_ELSEWHERE - accepted:
            gaps[name] = tuple(texts)
    return gaps


def _gap_items(table, namespace_table, method_bindings):
    """(name, implementation, texts) of every torch.X, torch.linalg.X / torch.special.X and Tensor method."""
    from gradcli.engine import api
    from gradcli.engine import torch_signatures as current
    from gradcli.engine.tensor import Tensor
    singles = getattr(current, "SINGLE_SIGNATURES", {})
    for name, sigs in (*table.items(), *namespace_table.items()):
        owner, _, short = name.rpartition(".")
        fn = getattr(getattr(api, owner) if owner else api, short, None)
        texts = [s[4] for s in sigs if s[4]] or ([singles[name][0]] if name in singles else [])
        if fn is not None:
            yield name, fn, texts
    for name in engine_methods():
        texts = [s[4] for s in method_signatures(name) or ()] or [t for t, _ in method_bindings.get(name, ())]
        if len(texts) == 1 or method_signatures(name):
            yield "Tensor." + name, getattr(Tensor, name), texts


# torch.nn.functional.X whose arguments torch's parser reads in the binding below (nn.X: torch._C._nn.X), the Python
# wrapper (if any) doing nothing with them first: their every argument is checked as that parser checks it
_PARSED_FUNCTIONAL = {"pad": "nn.pad", "layer_norm": "layer_norm", "max_pool1d": "max_pool1d",
                      "max_pool2d": "max_pool2d", "avg_pool1d": "avg_pool1d", "avg_pool2d": "nn.avg_pool2d",
                      "adaptive_avg_pool1d": "adaptive_avg_pool1d", "adaptive_max_pool1d": "adaptive_max_pool1d",
                      "leaky_relu": "nn.leaky_relu", "elu": "nn.elu", "celu": "celu", "threshold": "threshold",
                      "softplus": "nn.softplus", "cosine_similarity": "cosine_similarity", "one_hot": "nn.one_hot",
                      "softshrink": "nn.softshrink", "hardshrink": "hardshrink"}


def functional_parsed(bindings, raw):
    """{name: (parser name, text, nullable, positional, unsized)} for _PARSED_FUNCTIONAL: positional when F.name is
    a Python wrapper, which passes every argument on by position (so torch's errors give the binding's positions);
    unsized: its int-list parameters of no fixed size (IntArrayRef without a size), which take no single int (the text does not say)."""
    import torch.nn.functional as TF
    out = {}
    for name, key in _PARSED_FUNCTIONAL.items():
        found = bindings.get(key)
        if found is None or len(found) != 1:
            raise SystemExit(f"torchgen has no single signature for {key} (F.{name})")
        positional = not isinstance(getattr(TF, name), types.BuiltinFunctionType)
        unsized = tuple(re.findall(r"(?:Sym)?IntArrayRef\?? (\w+)", raw[key][0]))
        out[name] = (key.rpartition(".")[2], found[0][0], found[0][1], positional, unsized)
    return out


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
    lines.append("# the functions above with a single signature: its text as torch's parser would show it (torchgen's")
    lines.append("# binding signature) and the parameters whose type is optional (the text drops the '?')")
    lines.append("SINGLE_SIGNATURES = {")
    singles = single_texts((table, namespace_table), binding_texts())
    for name, entry in singles.items():
        lines.append(f"    {name!r}: {entry!r},")
    lines.append("}")
    lines.append("")
    lines.append("# the int-list parameters of no fixed size (IntArrayRef without one) of SINGLE_SIGNATURES' functions: they take")
    lines.append("# no single int (torch.flip(x, 0)), which their text does not say")
    lines.append("SINGLE_UNSIZED = {")
    raw = binding_texts(raw=True)
    for name in singles:
        unsized = tuple(re.findall(r"(?:Sym)?IntArrayRef\?? (\w+)", raw[name][0]))
        if unsized:
            lines.append(f"    {name!r}: {unsized!r},")
    lines.append("}")
    lines.append("")
    lines.append("# torch.nn.functional.X checked as torch's parser reads its binding: (parser name, text, nullable,")
    lines.append("# whether the Python wrapper passes every argument by position)")
    lines.append("FUNCTIONAL_PARSED = {")
    for name, entry in functional_parsed(binding_texts(), binding_texts(raw=True)).items():
        lines.append(f"    {name!r}: {entry!r},")
    lines.append("}")
    lines.append("")
    lines.append("# the Tensor methods with a single signature taking a Tensor after self: as SINGLE_SIGNATURES, without self")
    lines.append("SINGLE_METHOD_SIGNATURES = {")
    single_methods = single_method_texts(binding_texts(method=True))
    for name, entry in single_methods.items():
        lines.append(f"    {name!r}: {entry!r},")
    lines.append("}")
    lines.append("")
    lines.append("# the Tensor methods with a single signature and no torch.X function, taking an int list or a Number")
    lines.append("METHOD_ONLY_SIGNATURES = {")
    for name, entry in method_only_texts(binding_texts(method=True), {*singles, *single_methods}).items():
        lines.append(f"    {name!r}: {entry!r},")
    lines.append("}")
    lines.append("")
    lines.append("# the functions (\"Tensor.X\": methods, without self) whose signatures name a parameter their implementation")
    lines.append("# takes by another keyword (torch.dot(x, tensor=y)), with those signatures' texts: arg_single.with_keywords")
    lines.append("KEYWORDS = {")
    for name, texts in keyword_gaps(_gap_items(table, namespace_table, binding_texts(method=True))).items():
        lines.extend(_entry_lines(name, texts))
    lines.append("}")
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
