"""Test reports from artifacts (pr_agent/ci/reports.py, pr_agent/ci/artifacts.py): formats, hardening, bounds,
attribution to a job and merging with the log's findings. Expected values are read off the fixtures by hand."""

from __future__ import annotations

import io
import shlex
import zipfile
from pathlib import Path

import pytest

from pr_agent.ci import artifacts
from pr_agent.ci.analyze import Analysis
from pr_agent.ci.reports import NotAReport, UnsafeReport, looks_like_report, parse_report
from pr_agent.ci.rollup import Check

FIX = Path(__file__).resolve().parents[3] / "fixtures" / "reports"


def report(name: str):  # type: ignore[no-untyped-def]
    return parse_report(name, (FIX / name).read_bytes())


def test_pytest_junit_gives_node_ids_messages_and_locations() -> None:
    r = report("pytest_junit.xml")
    assert r.kind == "junit" and r.passed == 2
    assert [(f["test_name"], f["file_path"], f["line_number"], f["runner"]) for f in r.failures] == [
        ("tests/test_invoice.py::test_total_includes_shipping", "tests/test_invoice.py", 9, "pytest"),
        ("tests/test_tax.py::test_rounding[0.005-0.01]", "tests/test_tax.py", 21, "pytest")]
    assert r.failures[0]["error_message"].startswith("AssertionError: assert Decimal('12.50') == Decimal('17.49')")
    assert {f["confidence"] for f in r.failures} == {"high"} and {f["source"] for f in r.failures} == {"artifact"}


def test_ctrf_trx_xunit_and_surefire_flaky() -> None:
    ctrf = report("jest_ctrf.json")
    assert ctrf.kind == "ctrf" and ctrf.tool == "jest" and ctrf.flaky == ["Cart adds an item"]
    assert [(f["test_name"], f["file_path"], f["line_number"], f["runner"]) for f in ctrf.failures] == [
        ("Button renders the label passed as children", "src/components/Button.test.tsx", 12, "jest"),  # from the trace
        ("Cart shows the empty state", "src/components/Cart.test.tsx", 27, "jest")]
    trx = report("dotnet.trx")
    assert trx.kind == "trx" and trx.passed == 1
    assert [f["test_name"] for f in trx.failures] == ["Acme.Billing.Tests.InvoiceTests.Total_IncludesShipping"]
    assert trx.failures[0]["error_message"].startswith("Assert.Equal() Failure: Values differ")
    xunit = report("xunit_v2.xml")
    assert xunit.kind == "xunit" and xunit.passed == 1
    assert [(f["test_name"], f["runner"]) for f in xunit.failures] == [("Acme.Billing.Tests.TaxTests.Rounds_HalfCent",
                                                                        "dotnet")]
    surefire = report("surefire_flaky.xml")
    assert surefire.flaky == ["com.acme.cart.CartServiceTest.addsItem"]
    assert [f["test_name"] for f in surefire.failures] == ["com.acme.cart.CartServiceTest.removesItem"]


@pytest.mark.parametrize("name", ["billion_laughs.xml", "external_entity.xml"])
def test_a_doctype_is_refused_before_any_entity_is_expanded(name: str) -> None:
    with pytest.raises(UnsafeReport, match="DOCTYPE"):
        report(name)


def test_other_documents_are_not_reports() -> None:
    for data in (b"<html><body/></html>", b'{"coverage": 91}', b"plain text", b"<testsuites><unclosed"):
        with pytest.raises(NotAReport):
            parse_report("x.xml", data)
    with pytest.raises(UnsafeReport, match="deeper"):
        parse_report("x.xml", b"<testsuites>" + b"<a>" * 100 + b"</a>" * 100 + b"</testsuites>")
    assert looks_like_report("build/test-results/test/TEST-com.acme.FooTest.xml")
    assert looks_like_report("ctrf/ctrf-report.json") and not looks_like_report("package.json")


def _zip(entries: dict[str, bytes]) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    buf.seek(0)
    return buf


def test_a_zip_bomb_costs_at_most_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "MAX_UNZIPPED_BYTES", 2 << 20)
    bomb = b"<testsuites>" + b" " * (200 << 20) + b"</testsuites>"  # 200 MB of spaces: ~200 KB compressed
    found, notes = artifacts.read_zip(_zip({"junit.xml": bomb, "more/junit2.xml": bomb}))  # type: ignore[arg-type]
    assert found == [] and any("size bound" in n for n in notes)
    found, notes = artifacts.read_zip(_zip({"reports/junit.xml": (FIX / "pytest_junit.xml").read_bytes(),  # type: ignore[arg-type]
                                            "reports/evil-test.xml": (FIX / "billion_laughs.xml").read_bytes(),
                                            "src/app.py": b"x"}))
    assert [name for name, _ in found] == ["reports/junit.xml"] and any("DOCTYPE" in n for n in notes)
    assert artifacts.read_zip(io.BytesIO(b"not a zip")) == ([], ["not a zip archive"])  # type: ignore[arg-type]


def _check(name: str, job: int) -> Check:
    return Check(name=name, kind="check_run", state="FAILURE", bucket="failed", workflow="CI", app="github-actions",
                 check_run_id=job, run_id=1)


def test_attribution_by_the_artifact_name_else_the_only_failed_job() -> None:
    unit, web, docs = _check("unit (3.11)", 1), _check("web", 2), _check("docs", 3)
    failed = [Analysis(unit), Analysis(web)]
    assert artifacts.attribute("test-results-unit-3.11", [unit, web, docs], failed) is failed[0]
    assert artifacts.attribute("web-ctrf-report", [unit, web, docs], failed) is failed[1]
    assert artifacts.attribute("docs-junit", [unit, web, docs], failed) is None  # a passed job's report
    assert artifacts.attribute("junit", [unit, web, docs], failed) is None  # ambiguous
    assert artifacts.attribute("junit", [unit, docs], failed[:1]) is failed[0]


def test_merge_keeps_one_entry_per_test_and_the_runners_own_id() -> None:
    a = Analysis(_check("unit", 1), runners=["pytest"])
    a.non_test = {"kind": "unknown", "summary": "x", "decisive_lines": []}
    a.failures = [{"test_name": "tests/test_invoice.py::test_total_includes_shipping", "error_message": "short",
                   "file_path": None, "line_number": None, "runner": "pytest", "suite": None, "confidence": "medium",
                   "source": "log"},
                  {"test_name": "tests/test_log_only.py::test_x", "error_message": "boom", "file_path": None,
                   "line_number": None, "runner": "pytest", "suite": None, "confidence": "high", "source": "log"}]
    artifacts.merge(a, "test-results", report("pytest_junit.xml").failures, [])
    assert [(f["test_name"], f["source"]) for f in a.failures] == [
        ("tests/test_invoice.py::test_total_includes_shipping", "artifact"),
        ("tests/test_tax.py::test_rounding[0.005-0.01]", "artifact"),
        ("tests/test_log_only.py::test_x", "log")]
    assert a.failures[0]["error_message"].startswith("AssertionError") and a.failures[0]["line_number"] == 9
    assert shlex.split(a.failures[0]["reproduce_command"]) == ["pytest",
                                                               "tests/test_invoice.py::test_total_includes_shipping"]
    assert a.reports == ["test-results"] and a.non_test is None
    assert artifacts.same_test("tests.test_invoice.test_total_includes_shipping",
                               "tests/test_invoice.py::test_total_includes_shipping")
    assert not artifacts.same_test("tests/test_a.py::test_one", "tests/test_a.py::test_two")


def test_a_huge_system_out_and_surefire_reruns_that_never_passed() -> None:
    out = b"x" * (12 << 20)  # 12 MB of captured output: kept up to the text bound, the failure still found
    data = (b'<testsuite name="com.acme.FooTest"><testcase classname="com.acme.FooTest" name="a">'
            b'<failure message="boom" type="java.lang.AssertionError">trace</failure>'
            b'<rerunFailure message="boom again" type="java.lang.AssertionError"><stackTrace>t2</stackTrace>'
            b'</rerunFailure><system-out><![CDATA[' + out + b']]></system-out></testcase>'
            b'<testcase classname="com.acme.FooTest" name="b"><skipped/></testcase></testsuite>')
    r = parse_report("target/surefire-reports/TEST-com.acme.FooTest.xml", data)
    assert [(f["test_name"], f["runner"], f["error_message"]) for f in r.failures] == [
        ("com.acme.FooTest.a", "maven", "boom")]  # failed every rerun: a failure, not flaky
    assert (r.flaky, r.passed, r.skipped) == ([], 0, 1)


def test_a_retry_that_passed_is_flaky_but_a_later_row_that_failed_is_not() -> None:
    case = '<testcase classname="com.acme.FooTest" name="{}" time="0.1">{}</testcase>'
    fail = '<failure message="no">trace</failure>'
    doc = "<testsuite>" + "".join(case.format(n, body) for n, body in
                                  [("retried", fail), ("retried", ""), ("row", ""), ("row", fail)]) + "</testsuite>"
    gradle = parse_report("build/test-results/test/TEST-com.acme.FooTest.xml", doc.encode())
    assert gradle.flaky == ["com.acme.FooTest.retried"]  # Gradle's test-retry plugin lists every attempt
    assert [f["test_name"] for f in gradle.failures] == ["com.acme.FooTest.row"] and gradle.passed == 1
    surefire = parse_report("target/surefire-reports/TEST-com.acme.FooTest.xml", doc.encode())
    assert [f["test_name"] for f in surefire.failures] == ["com.acme.FooTest.retried", "com.acme.FooTest.row"]
