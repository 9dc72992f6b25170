"""Real test reports (``fixtures/reports/real``): files written by the tools themselves, found in public
repositories (each ``*.source.json`` names the repository, commit and path). ``*.expected.json`` was written
by reading each file by hand (counts checked against the file's own ``<testcase>``/``outcome`` entries), not
by running the parser: the test id is the one the test's runner takes to rerun it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pr_agent.ci.reports import parse_report

REAL = Path(__file__).resolve().parents[3] / "fixtures" / "reports" / "real"
CASES = sorted(p for p in REAL.rglob("*") if p.suffix in (".xml", ".trx", ".json")
               and not p.name.endswith((".source.json", ".expected.json")))


def _stem(p: Path) -> Path:
    return p.with_name(p.name.rsplit(".", 1)[0])


def _id(p: Path) -> str:
    return p.relative_to(REAL).as_posix()


@pytest.mark.parametrize("path", CASES, ids=_id)
def test_real_report(path: Path) -> None:
    exp = json.loads(_stem(path).with_suffix(".expected.json").read_text(encoding="utf-8"))
    r = parse_report(exp["path_in_artifact"], path.read_bytes())
    assert (r.kind, r.passed, r.skipped, r.flaky) == (exp["kind"], exp["passed"], exp["skipped"], exp["flaky"])
    got = [{k: f[k] for k in ("test_name", "runner", "suite", "file_path", "line_number")} for f in r.failures]
    assert got == [{k: v for k, v in f.items() if k != "message_starts"} for f in exp["failures"]]
    for f, e in zip(r.failures, exp["failures"], strict=True):
        assert f["error_message"].startswith(e["message_starts"]), (f["test_name"], f["error_message"])
        assert "\x1b" not in f["error_message"] and (f["confidence"], f["source"]) == ("high", "artifact")


@pytest.mark.parametrize("path", CASES, ids=_id)
def test_real_report_has_its_source(path: Path) -> None:
    source = json.loads(_stem(path).with_suffix(".source.json").read_text(encoding="utf-8"))
    assert set(source) == {"source", "captured", "format", "notes"}
    repo, _, where = source["source"].partition("@")
    commit, _, file = where.partition(":")
    assert repo.count("/") == 1 and len(commit) == 40 and file, source["source"]
    assert _id(path) in (REAL.parent / "README.md").read_text(encoding="utf-8")


def test_the_corpus_covers_the_formats_and_dialects() -> None:
    exp = [json.loads(_stem(p).with_suffix(".expected.json").read_text(encoding="utf-8")) for p in CASES]
    assert {e["kind"] for e in exp} == {"junit", "trx", "xunit", "ctrf"}
    runners = {f["runner"] for e in exp for f in e["failures"]}
    assert runners >= {"pytest", "jest", "maven", "gradle", "go", "nextest", "dotnet", "junit"}
    assert any(e["flaky"] for e in exp) and any(e["skipped"] for e in exp) and any(not e["failures"] for e in exp)
