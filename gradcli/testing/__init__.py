"""Checking `.grad` scripts against their expectation files (`NAME.out`, `NAME.err`).

- :mod:`gradcli.testing.golden`: the expectation files and the comparison (used by the project's
  own tests, by `gradcli test` and by the pytest plugin);
- :mod:`gradcli.testing.execute`: runs scripts, each in its own child process, several at a time;
- :mod:`gradcli.testing.reports`: the text, JSON, JUnit XML and GitHub Actions reports;
- :mod:`gradcli.testing.pytest_plugin`: the pytest plugin (entry point ``pytest11``).

Kept light: importing this package loads nothing (pytest imports the plugin at every start-up).
"""
