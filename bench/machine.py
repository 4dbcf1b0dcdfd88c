"""What the numbers were measured on: CPU, cores, memory, Python, NumPy and its BLAS, threads."""
from __future__ import annotations

import datetime
import os
import platform
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
               "OPENBLAS_L2_SIZE")


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_total_gib():
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _numpy_blas():
    import numpy as np  # noqa: PLC0415

    info = {"numpy": np.__version__}
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        info["blas"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
        if blas.get("openblas configuration"):
            info["blas_config"] = blas["openblas configuration"]
    except Exception:  # noqa: BLE001 - old NumPy: no dict mode
        info["blas"] = "unknown (numpy.show_config has no dict mode)"
    try:
        import threadpoolctl  # noqa: PLC0415

        pools = []
        for p in threadpoolctl.threadpool_info():
            pools.append({k: p.get(k) for k in ("user_api", "internal_api", "prefix", "version",
                                                 "num_threads", "architecture", "threading_layer")})
        info["threadpools"] = pools
    except ImportError:
        info["threadpools"] = "threadpoolctl not installed"
    return info


def load_average():
    """The 1-minute load average: above ~0.5 on 2 cores, something else was running during the run."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def describe():
    try:
        affinity = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    info = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": affinity,
        "memory_gib": _mem_total_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        "env": {k: os.environ.get(k) for k in THREAD_VARS if os.environ.get(k) is not None},
        "loadavg_start": load_average(),
        "nice": os.nice(0) if hasattr(os, "nice") else None,
    }
    info.update(_numpy_blas())
    try:
        import torch  # noqa: PLC0415

        info["torch"] = f"{torch.__version__} (intra-op threads {torch.get_num_threads()}, " \
                        f"inter-op {torch.get_num_interop_threads()})"
    except ImportError:
        info["torch"] = "not installed"
    try:
        import lark  # noqa: PLC0415

        info["lark"] = lark.__version__
    except ImportError:
        info["lark"] = "not installed"
    return info


def render(info):
    lines = [
        f"date:    {info['date']}",
        f"cpu:     {info['cpu']}, {info['logical_cores']} logical cores ({info['usable_cores']} usable), "
        f"{info['memory_gib']} GiB",
        f"os:      {info['os']}",
        f"python:  {info['python']}",
        f"numpy:   {info['numpy']}, BLAS {info.get('blas', '?')}",
    ]
    pools = info.get("threadpools")
    if isinstance(pools, list):
        for p in pools:
            extra = f", kernel {p['architecture']}" if p.get("architecture") else ""
            lines.append(f"         threadpool {p['internal_api']} ({p['prefix']}) {p['num_threads']} threads{extra}")
    else:
        lines.append(f"         threadpools: {pools}")
    lines.append(f"torch:   {info['torch']}")
    lines.append(f"lark:    {info['lark']}")
    lines.append(f"load:    1-min load average {info['loadavg_start']} at the start"
                 + (f", {info['loadavg_end']} at the end" if info.get("loadavg_end") is not None else "")
                 + " (other processes share these cores when it is well above 0)"
                 + (f"; the suite ran at nice {info['nice']}" if info.get("nice") else ""))
    if info["env"]:
        lines.append("env:     " + ", ".join(f"{k}={v}" for k, v in info["env"].items()))
    else:
        lines.append("env:     no thread or OpenBLAS variables set")
    return "\n".join(lines)
