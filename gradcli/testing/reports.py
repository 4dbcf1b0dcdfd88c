"""The reports of `gradcli test`: one record per script, rendered as text lines, one JSON document
(schema ``gradcli-test/1``, gradcli/render/schema.json's gradcli-test-1), JUnit XML and GitHub Actions
annotations. Standard library only. The text lines and the annotations show a script's text (its
printed lines in a diff, an error's message) with control characters escaped (``visible``): they
go to a terminal or a CI log, which would act on them."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..render.diagnostics import visible

PASSED, FAILED, NO_EXPECTATION, UPDATED = "passed", "failed", "no expectation", "updated"
TEST_SCHEMA = "gradcli-test/1"


@dataclass
class Record:
    """One script's line in every report."""
    file: str                    # the path as shown (relative to where the command ran, '/' separated)
    status: str                  # PASSED, FAILED, NO_EXPECTATION or UPDATED
    seconds: float
    problems: list = field(default_factory=list)   # one line each ('' for a pass)
    diff: str = ""                                  # unified diff of the expected and actual stdout
    line: int | None = None                         # the script line a failure points at
    error: dict | None = None                       # the script's error: type, message, line
    stdout: str = ""

    @property
    def failed(self) -> bool:
        return self.status == FAILED


def summary(records, seconds: float) -> dict:
    count = {status: sum(1 for r in records if r.status == status)
             for status in (PASSED, FAILED, NO_EXPECTATION, UPDATED)}
    return {"scripts": len(records), "passed": count[PASSED], "failed": count[FAILED],
            "no_expectation": count[NO_EXPECTATION], "updated": count[UPDATED], "seconds": round(seconds, 3)}


def summary_line(records, seconds: float) -> str:
    s = summary(records, seconds)
    parts = [f"{s['passed']} passed", f"{s['failed']} failed"]
    if s["no_expectation"]:
        parts.append(f"{s['no_expectation']} without expectation")
    if s["updated"]:
        parts.append(f"{s['updated']} updated")
    noun = "script" if s["scripts"] == 1 else "scripts"
    return f"{s['scripts']} {noun}: {', '.join(parts)} in {seconds:.2f} s"


_COLORS = {PASSED: "32", FAILED: "1;31", NO_EXPECTATION: "33", UPDATED: "36"}


def text_line(record: Record, color: bool = False) -> str:
    """The script's line: 'passed  FILE  (0.05 s)', then a problem per line for the others."""
    status = record.status.upper() if record.failed else record.status
    word = f"\x1b[{_COLORS[record.status]}m{status}\x1b[0m" if color else status
    pad = " " * (len(NO_EXPECTATION) - len(status))
    lines = [f"{word}{pad}  {visible(record.file)}  ({record.seconds:.2f} s)"]
    lines += [f"    {visible(problem)}" for problem in record.problems]
    return "\n".join(lines) + "\n" + visible(record.diff)


# ------------------------------------------------------------------------------------- JSON
def json_doc(records, seconds: float, exit_code: int, error: dict | None = None) -> dict:
    return {
        "schema": TEST_SCHEMA,
        "command": "test",
        "ok": exit_code == 0,
        "exit_code": exit_code,
        "summary": summary(records, seconds),
        "scripts": [{"file": r.file, "status": r.status, "seconds": round(r.seconds, 4), "problems": list(r.problems),
                     "diff": r.diff or None, "line": r.line, "error": r.error, "stdout": r.stdout}
                    for r in records],
        "error": error,
    }


# ------------------------------------------------------------------------------------- JUnit
def _xml_text(text: str) -> str:
    """Characters XML 1.0 cannot hold (control characters, lone surrogates) as visible escapes."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\t\n\r" or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000:
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def junit_xml(records, seconds: float, suite: str = "gradcli") -> bytes:
    """A JUnit XML report (the common dialect GitLab, Jenkins and GitHub's test reporters read):
    one <testcase> per script, a <failure> with the problems and the diff, <skipped> for a script
    without expectation (a <failure> under --strict is already a FAILED record)."""
    import datetime  # noqa: PLC0415
    import socket  # noqa: PLC0415
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    s = summary(records, seconds)
    attrs = {"name": suite, "tests": str(s["scripts"]), "failures": str(s["failed"]), "errors": "0",
             "skipped": str(s["no_expectation"]), "time": f"{seconds:.3f}"}
    root = ET.Element("testsuites", attrs)
    suite_el = ET.SubElement(root, "testsuite", {
        **attrs, "timestamp": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "hostname": _xml_text(socket.gethostname())})
    for r in records:
        folder, _, name = r.file.rpartition("/")
        case = ET.SubElement(suite_el, "testcase", {
            "classname": _xml_text(folder.strip("/").replace("/", ".") or "."), "name": _xml_text(name),
            "file": _xml_text(r.file), "time": f"{r.seconds:.3f}"})
        if r.line is not None:
            case.set("line", str(r.line))
        if r.status == FAILED:
            failure = ET.SubElement(case, "failure", {"message": _xml_text("; ".join(r.problems)), "type": "mismatch"})
            failure.text = _xml_text("\n".join(r.problems) + ("\n\n" + r.diff if r.diff else ""))
        elif r.status == NO_EXPECTATION:
            ET.SubElement(case, "skipped", {"message": _xml_text("; ".join(r.problems) or NO_EXPECTATION)})
        if r.stdout:
            ET.SubElement(case, "system-out").text = _xml_text(r.stdout)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


# ------------------------------------------------------------------------------------- GitHub
def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(record: Record) -> str | None:
    """The workflow command for a failed script (an ::error at the first differing output's
    statement or at the error's line) or one without expectation (a ::warning); None for a pass."""
    if record.status not in (FAILED, NO_EXPECTATION):
        return None
    kind = "error" if record.status == FAILED else "warning"
    props = [f"file={_escape_property(record.file)}"]
    if record.line is not None:
        props.append(f"line={record.line}")
    props.append(f"title={_escape_property('gradcli test: ' + record.status)}")
    message = "\n".join(record.problems) + ("\n" + record.diff if record.diff else "")
    return f"::{kind} {','.join(props)}::{_escape_data(visible(message.rstrip()))}"
