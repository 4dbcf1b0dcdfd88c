"""Write docs/coverage.md: the public callables of PyTorch 2.13's `torch`, `torch.Tensor`,
`torch.nn.functional` and `torch.autograd` (the namespaces whose functions take and return tensors),
compared with what gradcli's engine offers under the same names, with what is missing and why.

    python tools/gen_coverage.py            # needs torch 2.13 (pip install '.[oracle]')
    python tools/gen_coverage.py --check    # write nothing, exit 1 if docs/coverage.md is stale

A name counts as covered when gradcli's namespace has it (the facade a script sees is built from
the same engine objects). Why a name is missing comes from REASONS: the first pattern that matches
gives the group; names no pattern matches are "not implemented yet" (candidates for the next sweep).
"""
from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "coverage.md"

# (regex on the name, reason): first match wins; order from specific to general
REASONS = [
    (r"^(q_|quantize|dequantize|fake_quantize|int_repr|qscheme|quantized_|choose_qparams|fbgemm_|"
     r"fused_moving_avg)", "quantization: quantized tensors are not part of the subset"),
    (r"(sparse|coalesce|_indices|indices_copy|^indices$|^values$|dense_dim|to_dense|smm$|^hspmm|^dsmm|^hsmm|spmm|"
     r"^saddmm|sspaddmm|to_mkldnn|is_coalesced)", "sparse layouts: gradcli tensors are strided only"),
    (r"(^cudnn_|^miopen_|^mkldnn_|cuda|^mps|xpu|^ipu$|^mtia$|vulkan|record_stream|pin_memory|is_pinned|"
     r"autocast|^hip)", "backend- or device-specific: gradcli has NumPy (CPU) and CuPy (cuda) only"),
    (r"(complex|^real$|^imag$|^angle$|^polar$|conj|^resolve_|^is_neg$|^chalf|^cfloat|^cdouble|^adjoint$|"
     r"^view_as_real)", "complex numbers: not part of the subset (no complex dtypes)"),
    (r"(storage|data_ptr|share_memory|is_shared|^set_$|^resize|^new$|as_subclass|from_file|frombuffer|"
     r"^load$|^save$|dlpack|module_load|is_set_to|^apply_$|^map_$|^map2_$)",
     "memory, storage, files or Python callbacks into C: outside the sandbox's promise"),
    (r"^(compile|cond|while_loop|fork|wait|parse_|import_ir|unify_type|merge_type|sym_|classproperty|"
     r"compiled_with|thread_safe|get_device_module|prepare_multiprocessing|profiler_|segment_reduce|"
     r"get_file_path|set_default_tensor_type|is_storage|is_distributed|reinforce|"
     r"has_torch_function|handle_torch_function|boolean_dispatch|assert_int_or_pair|Optional|cast$|overload$|"
     r"variable$|kineto_available|is_tensor_like|enforce_grad_layout_policy|hash_tensor|dim_order)",
     "compiler, JIT, tracing and internal plumbing: not autograd on tensors"),
    (r"(^stft$|^istft$|window$|^lobpcg|lowrank|^eig$|^symeig$|^lstsq$|^solve$|^qr$|^svd$|^lu|^cholesky|"
     r"^triangular_solve$|^geqrf$|^orgqr$|^ormqr$|^matrix_rank$|^pinverse$|^matrix_exp$|^nuclear_norm$|"
     r"^frobenius_norm$)", "legacy or advanced linear algebra (torch.linalg has most of what tutorials use)"),
    (r"(_copy$|^unsafe_|^native_|_backward|_elemt$|_stats|_update_stats|^batch_norm_gather|^norm_except_dim|"
     r"^alias_copy$|^slice_inverse$)", "internal op variants (copies, native kernels, backward helpers)"),
    (r"(^rnn_|^lstm|^gru|^rnn|multi_head_attention|scaled_dot_product|_mm$|grouped_mm|^embedding_bag|"
     r"ctc_loss|conv_tbc|conv3d|conv_transpose|max_pool3d|avg_pool3d|adaptive_.*3d|fractional_max|"
     r"max_unpool|lp_pool|grid_sample|affine_grid|interpolate|upsample|fold$|pixel_|channel_shuffle|"
     r"local_response_norm|linear_cross_entropy|convolution$)",
     "neural-network layers beyond the tutorials' MLP/CNN subset (recurrent, attention, 3-d, resampling)"),
    (r"(poisson$|^binomial$|^multinomial$|^bernoulli$|rrelu|gumbel|dropout[123]d$|feature_alpha_dropout|"
     r"^feature_dropout$|^alpha_dropout$)", "random sampling whose stream follows torch's only in part (issue 18)"),
    (r"(deterministic|num_threads|num_interop|float32_matmul_precision|flush_denormal|warn_always|"
     r"^init_num_threads$|^set_anomaly_enabled$|multithreading|view_replay)", "global runtime settings of torch's backends"),
]


def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _callable_names(obj):
    out = []
    for name in _public(obj):
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is not a function
            continue
        if inspect.ismodule(value) or not callable(value):
            continue
        if isinstance(value, type):
            continue  # classes (Generator, Size, Function, no_grad, exceptions, ...) are not tensor functions
        out.append(name)
    return out


def reason(name, missing=()):
    """Why `name` is missing; `missing`: the namespace's other missing names (an in-place form whose
    out-of-place op is missing too is simply not implemented)."""
    for pattern, why in REASONS:
        if re.search(pattern, name):
            return why
    if name.endswith("_") and not name.endswith("__") and name[:-1] not in missing:
        return "in-place form not provided yet (its out-of-place op may be there)"
    return "not implemented yet"


def collect():
    import torch  # noqa: PLC0415 - the oracle

    from gradcli.engine import api  # noqa: PLC0415
    api.nn  # noqa: B018 - loads torch.nn (and nn.functional)
    pairs = [
        ("torch", torch, api),
        ("torch.Tensor", torch.Tensor, api.Tensor),
        ("torch.nn.functional", torch.nn.functional, api.nn.functional),
        ("torch.autograd", torch.autograd, api.autograd),
    ]
    tables = []
    for label, theirs, ours in pairs:
        names = _callable_names(theirs)
        have = set(_public(ours)) if label != "torch.autograd" else set(_public(ours)) | set(vars(ours))
        missing = [n for n in names if n not in have]
        tables.append((label, names, missing))
    return torch.__version__, tables


def render(version, tables):
    lines = ["# Coverage of PyTorch's tensor functions", "",
             f"Generated by `tools/gen_coverage.py` from PyTorch {version} and gradcli's engine; do not edit.",
             "Public callables of each namespace (classes such as dtypes and modules left out), those gradcli has",
             "under the same name, and the missing ones grouped by why they are missing. \"not implemented yet\"",
             "lists the candidates for the next sweep.", "",
             "| namespace | PyTorch | gradcli | missing |", "| --- | --- | --- | --- |"]
    for label, names, missing in tables:
        lines.append(f"| `{label}` | {len(names)} | {len(names) - len(missing)} | {len(missing)} |")
    for label, names, missing in tables:
        lines += ["", f"## `{label}`", ""]
        groups = {}
        for n in missing:
            groups.setdefault(reason(n, set(missing)), []).append(n)
        if not groups:
            lines.append("Everything is there.")
        for why in sorted(groups, key=lambda w: (w != "not implemented yet", w)):
            names_text = ", ".join(f"`{n}`" for n in groups[why])
            lines.append(f"- **{why}** ({len(groups[why])}): {names_text}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/coverage.md is stale")
    args = parser.parse_args(argv)
    text = render(*collect())
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python tools/gen_coverage.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
