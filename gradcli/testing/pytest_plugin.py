"""The pytest plugin of gradcli (entry point ``pytest11``, installed with gradcli): off until asked
for with ``pytest --gradcli`` or ``gradcli = true`` in the ini file; then every ``NAME.grad`` with
an expectation beside it (``NAME.out``, ``NAME.err``) is a test item, checked as `gradcli test`
checks it (gradcli.testing.golden), each script in its own sandboxed child process (the memory cap
and seccomp filter of `gradcli run`) with its timeout (ini ``gradcli_timeout``, seconds, default 60).

pytest imports this module at every start-up once gradcli is installed, so it imports nothing of
gradcli at module level: the runner and the engine load only when a script runs.
"""
from __future__ import annotations

import pytest

DEFAULT_TIMEOUT = 60.0


def pytest_addoption(parser) -> None:
    group = parser.getgroup("gradcli", "gradcli: check .grad scripts against NAME.out / NAME.err")
    group.addoption("--gradcli", action="store_true", default=False,
                    help="collect every NAME.grad that has NAME.out or NAME.err beside it as a test "
                         "(also: 'gradcli = true' in the ini file)")
    parser.addini("gradcli", type="bool", default=False,
                  help="collect .grad scripts with expectations as tests (as --gradcli)")
    parser.addini("gradcli_timeout", default=str(DEFAULT_TIMEOUT),
                  help="seconds each .grad script may run (default 60)")


def _enabled(config) -> bool:
    return bool(config.getoption("gradcli") or config.getini("gradcli"))


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".grad" or not _enabled(parent.config):
        return None
    if not (file_path.with_suffix(".out").is_file() or file_path.with_suffix(".err").is_file()):
        return None
    return GradScriptFile.from_parent(parent, path=file_path)


class GradScriptFile(pytest.File):
    """A ``.grad`` script: one item, its expected output."""

    def collect(self):
        yield GradScriptItem.from_parent(self, name=self.path.name)


class ExpectationMismatch(Exception):
    """The script's output or error is not what its expectation files say."""

    def __init__(self, verdict) -> None:
        super().__init__("\n".join(verdict.problems))
        self.verdict = verdict


class GradScriptItem(pytest.Item):
    def runtest(self) -> None:
        from gradcli.lang.runner import RunOptions  # noqa: PLC0415
        from gradcli.testing import execute, golden  # noqa: PLC0415

        timeout = _timeout(self.config)
        name = self.nodeid.split("::")[0]
        from gradcli.cli.isolate import default_max_memory  # noqa: PLC0415

        root = str(self.config.rootpath)  # nothing read through a link out of the tree pytest tests
        (finished,) = execute.run_scripts([(self.path, name, root)], RunOptions(seed=0, timeout=timeout), jobs=1,
                                          max_memory=default_max_memory())
        verdict = golden.compare(golden.read_expectation(self.path, root), finished.actual, name)
        if not verdict.passed:
            raise ExpectationMismatch(verdict)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExpectationMismatch):
            from gradcli.render.diagnostics import visible  # noqa: PLC0415 - a script's text: no control characters

            verdict = excinfo.value.verdict
            where = f" (line {verdict.line})" if verdict.line is not None else ""
            text = f"{self.path.name}{where}: " + "\n".join(verdict.problems)
            return visible(text + ("\n" + verdict.diff if verdict.diff else ""))
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"gradcli script {self.path.name}"


def _timeout(config) -> float:
    text = config.getini("gradcli_timeout")
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"gradcli_timeout = {text!r}: expected a number of seconds") from None
    if not 0 < seconds < float("inf"):
        raise pytest.UsageError(f"gradcli_timeout = {text!r}: expected a positive number of seconds")
    return seconds
