"""Timing, rows and the printed table.

A case returns a list of rows (plain dicts, so they go to JSON and through a subprocess as they
are). A row holds one measure (a time per op, a time per step, a peak memory, GFLOP/s) for every
contender, the median of the repeats and the repeats themselves, the target of issue 9 and notes.
"""
from __future__ import annotations

import gc
import statistics
import time
import traceback

SKIP = "skip"
ERROR = "error"


class Skip(Exception):
    """A contender that cannot run here (not installed, not written yet): reported, not an error."""


def describe_error(exc):
    if isinstance(exc, Skip):
        return SKIP, str(exc)
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {tb[-1].filename.split('/')[-1]}:{tb[-1].lineno})" if tb else ""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return ERROR, f"{type(exc).__name__}: {text}"[:160] + where


def alternate(contenders, repeats, warmup=1):
    """Run every contender `repeats` times, alternating them (the order rotates each repeat).

    contenders: {name: callable() -> dict of measures (floats)} (the callable times itself, so
    that it can leave out its own set-up). Returns {name: {"samples": {measure: [..]}}} or
    {name: {"status": "skip"|"error", "reason": text}} for one that raised.
    """
    results = {name: {"samples": {}} for name in contenders}
    live = list(contenders)
    for name in list(live):
        for _ in range(warmup):
            try:
                contenders[name]()
            except Exception as exc:  # noqa: BLE001 - a contender's failure is reported, not fatal
                status, reason = describe_error(exc)
                results[name] = {"status": status, "reason": reason}
                live.remove(name)
                break
    for rep in range(repeats):
        k = rep % len(live) if live else 0
        order = live[k:] + live[:k]
        for name in order:
            if "status" in results[name]:
                continue
            gc.collect()
            try:
                measures = contenders[name]()
            except Exception as exc:  # noqa: BLE001
                status, reason = describe_error(exc)
                results[name] = {"status": status, "reason": reason}
                continue
            for key, value in measures.items():
                results[name]["samples"].setdefault(key, []).append(value)
    return results


def timed(fn):
    """fn() -> elapsed seconds of one call (perf_counter)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def clocked(fn):
    """fn() -> (wall seconds, CPU seconds of this process, all its threads) of one call. On a shared
    machine the CPU time of a single-threaded run moves much less than its wall time."""
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def make_row(case, key, title, unit, results, measure, *, scale=1.0, ref="torch", floor="numpy",
             target=None, target_text="", higher_is_better=False, notes=(), contenders=None, cpu_measure=None):
    """One table row from alternate()'s results: median of `measure` per contender, times scale."""
    values, samples, missing = {}, {}, {}
    for name in contenders or results:
        res = results.get(name)
        if res is None:
            continue
        if "status" in res:
            missing[name] = {"status": res["status"], "reason": res["reason"]}
            continue
        vals = res["samples"].get(measure)
        if not vals:
            continue
        vals = [v * scale for v in vals]
        samples[name] = vals
        values[name] = statistics.median(vals)
    notes = list(notes)
    cpu = {}
    if cpu_measure:
        for name in contenders or results:
            vals = results.get(name, {}).get("samples", {}).get(cpu_measure)
            if vals:
                cpu[name] = statistics.median(vals) * scale
        if cpu:
            text = ", ".join(f"{n} {fmt(v, unit)}" for n, v in cpu.items())
            ratios = [f"gradcli/{o} {cpu['gradcli'] / cpu[o]:.2f}" for o in (ref, floor)
                      if "gradcli" in cpu and cpu.get(o)]
            notes.append(f"CPU time (process_time, all threads; less sensitive to other load than wall time), "
                         f"{unit}: {text}" + (f"; {', '.join(ratios)}" if ratios else ""))
    return {
        "case": case, "key": key, "title": title, "unit": unit, "values": values, "samples": samples,
        "missing": missing, "ref": ref, "floor": floor, "target": target, "target_text": target_text,
        "higher_is_better": higher_is_better, "notes": notes, "cpu_values": cpu,
    }


def ratio(row, other):
    g, o = row["values"].get("gradcli"), row["values"].get(other)
    if g is None or o is None or o == 0:
        return None
    return g / o


def cpu_ratio(row, other):
    cpu = row.get("cpu_values") or {}
    g, o = cpu.get("gradcli"), cpu.get(other)
    if g is None or not o:
        return None
    return g / o


def cpu_verdict(row):
    """The same target judged on CPU time (single-threaded cases), or '' where there is none."""
    target = row.get("target")
    if not target or target.get("kind") != "ratio":
        return ""
    r = cpu_ratio(row, target["vs"])
    if r is None:
        return ""
    return f"by CPU time {r:.2f}x: {'met' if r <= target['max'] else 'not met'}"


def verdict(row):
    """'yes' / 'no' / '' (no target) / 'n/a' (a side is missing), and the gap text when not met."""
    target = row.get("target")
    if target is None:
        return "", ""
    if callable(target):  # not used in JSON rows; kept for symmetry
        return "", ""
    kind = target.get("kind")
    if kind == "ratio":
        r = ratio(row, target["vs"])
        if r is None:
            return "n/a", f"cannot judge: no {target['vs']} measurement"
        if r <= target["max"]:
            return "yes", ""
        return "no", f"{r:.2f}x {target['vs']} vs <= {target['max']:g}x: {r / target['max']:.1f}x too slow/large"
    if kind == "parse":
        g = row["values"].get("gradcli")
        if g is None:
            return "n/a", "cannot judge: no gradcli measurement"
        gaps = []
        if g > target["max_s"]:
            gaps.append(f"{g:.2f} s > {target['max_s']:g} s")
        lark = row["values"].get("lark")
        if lark is None:
            gaps.append("no Lark measurement for the 4x part")
        elif g * target["min_speedup"] > lark:
            gaps.append(f"only {lark / g:.2f}x faster than Lark (>= {target['min_speedup']:g}x needed)")
        if not gaps:
            return "yes", ""
        return ("n/a" if lark is None and g <= target["max_s"] else "no"), "; ".join(gaps)
    return "", ""


def fmt(value, unit):
    if value is None:
        return "-"
    if value == 0:
        return "0"
    a = abs(value)
    if a >= 1000:
        return f"{value:,.0f}"
    if a >= 100:
        return f"{value:.0f}"
    if a >= 10:
        return f"{value:.1f}"
    if a >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def cell(row, name):
    v = row["values"].get(name)
    if v is not None:
        return fmt(v, row["unit"])
    miss = row["missing"].get(name)
    if miss:
        return miss["status"]
    return "-"


def ratio_cell(row, other):
    r = ratio(row, other)
    return "-" if r is None else f"{r:.2f}"


def render_table(rows, columns):
    """columns: list of (header, function(row) -> str). A plain, pipe-separated text table
    (valid Markdown)."""
    header = [c[0] for c in columns]
    body = [[c[1](r) for c in columns] for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for b in body:
        lines.append("| " + " | ".join(x.ljust(w) for x, w in zip(b, widths)) + " |")
    return "\n".join(lines)


def engine_columns(ref="torch", floor="numpy"):
    return [
        ("case", lambda r: r["key"]),
        ("measure", lambda r: r["title"]),
        ("unit", lambda r: r["unit"]),
        ("gradcli", lambda r: cell(r, "gradcli")),
        (ref, lambda r: cell(r, r["ref"])),
        (floor, lambda r: cell(r, r["floor"])),
        (f"gradcli/{ref}", lambda r: ratio_cell(r, r["ref"])),
        (f"gradcli/{floor}", lambda r: ratio_cell(r, r["floor"])),
        (f"CPU gradcli/{ref}", lambda r: "-" if cpu_ratio(r, r["ref"]) is None else f"{cpu_ratio(r, r['ref']):.2f}"),
        ("target", lambda r: r["target_text"]),
        ("met", lambda r: verdict(r)[0]),
    ]


# ----------------------------------------------------------------------------- isolated contenders

class _Worker:
    """One contender in a process of its own (bench.worker serve), driven line by line."""

    def __init__(self, case, name, quick, param, env, cwd):
        import json  # noqa: PLC0415
        import subprocess  # noqa: PLC0415
        import sys  # noqa: PLC0415
        import tempfile  # noqa: PLC0415

        self._json = json
        self.name = name
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.worker", "serve", str(case), name, "1" if quick else "0",
             json.dumps(param)],
            cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True, bufsize=1)

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            self.err.seek(0)
            tail = [ln for ln in self.err.read().splitlines() if ln.strip()]
            return {"status": ERROR, "reason": "worker died: " + (tail[-1][:200] if tail else "no message")}
        return self._json.loads(line)

    def ready(self):
        return self._read()

    def run(self):
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def alternate_isolated(case, names, quick, repeats, warmup=1, param=None, env=None, cwd=None, gap=0.05):
    """Like alternate(), each contender living in its own process: a process loads only its own
    library (torch's import and its OpenMP threads, which spin after a parallel op and slow the
    BLAS of anything else in the process, stay out of gradcli's and NumPy's way; the garbage
    collector sees only the contender's own objects). Returns (results, infos)."""
    workers = {name: _Worker(case, name, quick, param, env, cwd) for name in names}
    results = {name: {"samples": {}} for name in names}
    infos = {}
    try:
        live = []
        for name, w in workers.items():
            msg = w.ready()
            if "status" in msg:
                results[name] = msg
            else:
                infos[name] = msg.get("info", {})
                live.append(name)
        for name in list(live):
            for _ in range(warmup):
                msg = workers[name].run()
                if "status" in msg:
                    results[name] = msg
                    live.remove(name)
                    break
        for rep in range(repeats):
            k = rep % len(live) if live else 0
            for name in live[k:] + live[:k]:
                if "status" in results[name]:
                    continue
                time.sleep(gap)
                msg = workers[name].run()
                if "status" in msg:
                    results[name] = msg
                    continue
                for key, value in msg["measures"].items():
                    results[name]["samples"].setdefault(key, []).append(value)
    finally:
        for w in workers.values():
            w.close()
    return results, infos
