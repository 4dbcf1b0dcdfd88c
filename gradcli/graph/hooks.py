"""Attach the walkthrough (--explain), the finite-difference check (--check) and anomaly mode
(--detect-anomaly) to one GradScript run: the runner enters :class:`RunHooks` around the run when
one of its options is set.

Each finished backward pass is handed to ``session.on_pass(kind, record)`` when the session sets
that callback (``kind`` is "explain" or "check"; the CLI and the REPL render it on stderr), and is
kept in ``hooks.explain`` / ``hooks.checks`` for the RunResult (the ``--json`` document).
"""
from __future__ import annotations

import warnings

from ..render.diagnostics import source_lines


class _Fanout:
    """Several backward observers as one (in order); end() reaches all even if one raises."""

    def __init__(self, observers):
        self.observers = observers

    def begin(self, *args):
        for o in self.observers:
            o.begin(*args)

    def node(self, node, grads, in_grads):
        for o in self.observers:
            o.node(node, grads, in_grads)

    def leaf(self, node, grad, accumulate):
        for o in self.observers:
            o.leaf(node, grad, accumulate)

    def end(self, results, error):
        raised = None
        for o in self.observers:
            try:
                o.end(results, error)
            except BaseException as e:  # noqa: BLE001 - re-raised below, after every observer ended
                if raised is None:
                    raised = e
        if raised is not None:
            raise raised


class _Quiet:
    """An observer whose own work (--check's float64 replays, the walkthrough's reads) warns nothing: a
    replay's warning is not the script's (torch computes no replay), so it must neither be shown nor
    meet the script's warnings filters (an "error" filter would fail the run; a record list would grow)."""

    def __init__(self, inner):
        self.inner = inner

    def _quietly(self, name, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(self.inner, name)(*args)

    def begin(self, *args):
        return self._quietly("begin", *args)

    def node(self, *args):
        return self._quietly("node", *args)

    def leaf(self, *args):
        return self._quietly("leaf", *args)

    def end(self, *args):
        return self._quietly("end", *args)

    def __call__(self, *args):  # a node observer (the tape, the walkthrough's inputs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.inner(*args)


def _chain_nodes(fns):
    fns = [f for f in fns if f is not None]
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]

    def both(node, inputs, outputs):
        for f in fns:
            f(node, inputs, outputs)
    return both


class RunHooks:
    """A context manager: the observers of one run (see the module docstring)."""

    def __init__(self, session, options, source: str | None = None):
        self.session = session
        self.explain_on = bool(options.explain)
        self.check_on = bool(options.check)
        self.anomaly_on = bool(options.detect_anomaly)
        self.lines = source_lines(source or "")
        self.explain: list = []
        self.checks: list = []
        self._prev = None

    def _site(self):
        from ..engine import autograd  # noqa: PLC0415

        hook = autograd.site_hook[0]
        return hook() if hook is not None else None

    def _scope(self):
        try:
            return self.session.variables()
        except Exception:  # noqa: BLE001
            return {}

    def _emit(self, kind, record):
        (self.explain if kind == "explain" else self.checks).append(record)
        if self.session.on_pass is not None:
            self.session.on_pass(kind, record)

    def __enter__(self):
        from ..engine import autograd, autograd_modes  # noqa: PLC0415

        observers, node_fns = [], []
        if self.check_on:
            from .check import Checker  # noqa: PLC0415
            from .tape import Tape  # noqa: PLC0415

            tape = Tape()
            node_fns.append(_Quiet(tape))
            observers.append(_Quiet(Checker(tape, self.lines, self._site, lambda r: self._emit("check", r),
                                            self._scope)))
        if self.explain_on:
            from .explain import Explainer  # noqa: PLC0415

            ex = Explainer(self._scope, self.lines, self._site, lambda r: self._emit("explain", r))
            node_fns.append(_Quiet(ex.inputs))
            # the walkthrough first: it shows the steps up to a node that --check or anomaly mode stops at
            observers.insert(0, _Quiet(ex))
        prev_obs = autograd.backward_observer[0]
        prev_node = autograd.node_observer[0]
        self._prev = (prev_obs, prev_node, autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan)
        if observers:
            if prev_obs is not None:
                observers.insert(0, prev_obs)
            autograd.set_backward_observer(observers[0] if len(observers) == 1 else _Fanout(observers))
        if node_fns:
            autograd.set_node_observer(_chain_nodes([prev_node, *node_fns]))
        if self.anomaly_on:
            autograd_modes.anomaly_mode.enabled = True
            autograd_modes.anomaly_mode.check_nan = True
        return self

    def __exit__(self, *exc):
        from ..engine import autograd, autograd_modes  # noqa: PLC0415

        prev_obs, prev_node, enabled, check_nan = self._prev
        autograd.set_backward_observer(prev_obs)
        autograd.set_node_observer(prev_node)
        if self.anomaly_on:
            autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan = enabled, check_nan
        return False
