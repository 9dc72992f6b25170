"""Test reports uploaded as workflow-run artifacts: the first source of a failed job's failing tests.

For each workflow run with a failed job: ``GET /repos/{o}/{r}/actions/runs/{run_id}/artifacts`` (one request),
then, for at most :data:`MAX_ARTIFACTS` artifacts whose name says test results (``junit``, ``test-results``,
``surefire-reports``, ``ctrf``, ``trx``, …) and whose zip is at most :data:`MAX_ZIP_BYTES`,
``GET …/actions/artifacts/{id}/zip`` through the gh gateway (GitHub answers 302 to a short-lived blob URL that
gh follows; the zip streams to a spooled file, cut off at the size bound). Inside the zip, files that look
like reports are read with bounded reads (:data:`MAX_UNZIPPED_BYTES` in all, whatever sizes the zip claims,
so a zip bomb costs at most that) and parsed by :mod:`pr_agent.ci.reports` (hardened XML). Nothing is
written to disk under the archive's names.

A run's reports are attributed to one of its jobs: the job whose name the artifact's name carries
(``test-results-ubuntu-3.11`` → ``test (ubuntu, 3.11)``), else the run's only failed job. The report's
failures then merge with what the log and annotations gave (:func:`merge`): one entry per test, the report's
message, ``source: "artifact"``, ``confidence: "high"``.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from pr_agent.ci.analyze import Analysis, step_url
from pr_agent.ci.reports import MAX_REPORT_BYTES, NotAReport, UnsafeReport, looks_like_report, parse_report
from pr_agent.ci.repro import reproduce_command
from pr_agent.ci.rollup import Check
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.refs import PRRef

MAX_RUNS = 4  # workflow runs whose artifacts are listed
MAX_ARTIFACTS = 5  # report artifacts downloaded per run
MAX_ZIP_BYTES = 20 << 20
MAX_UNZIPPED_BYTES = 64 << 20
MAX_ENTRIES = 500
_ARTIFACT_HINT = re.compile(r"junit|xunit|nunit|surefire|failsafe|test|report|result|ctrf|trx", re.I)
_SKIP_EXT = (".py", ".js", ".ts", ".html", ".css", ".png", ".jpg", ".map")
_WORD = re.compile(r"[a-z0-9]+")


class _TooBig(Exception):
    pass


@dataclass
class RunReports:
    """What the artifacts of one run gave: (artifact name, report failures, flaky tests) and notes."""

    reports: list[tuple[str, list[dict[str, Any]], list[str]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    requests: int = 0


class _Bounded:
    """A write-only file that refuses to grow past ``limit`` bytes (gh's body is streamed into it)."""

    def __init__(self, inner: IO[bytes], limit: int) -> None:
        self.inner, self.limit = inner, limit

    def write(self, data: bytes) -> int:
        if self.inner.tell() + len(data) > self.limit:
            raise _TooBig
        return self.inner.write(data)

    def tell(self) -> int:
        return self.inner.tell()

    def seek(self, pos: int, whence: int = 0) -> int:
        return self.inner.seek(pos, whence)

    def truncate(self, size: int | None = None) -> int:
        return self.inner.truncate(size)


def is_report_artifact(a: dict[str, Any]) -> bool:
    return bool(_ARTIFACT_HINT.search(str(a.get("name") or ""))) and not a.get("expired")


def read_zip(raw: IO[bytes]) -> tuple[list[tuple[str, Any]], list[str]]:
    """(path, Report) of every test report in a zip, and notes on what was refused. Bounded whatever the
    archive claims: at most :data:`MAX_ENTRIES` names looked at, :data:`MAX_REPORT_BYTES` read per file and
    :data:`MAX_UNZIPPED_BYTES` in all."""
    found: list[tuple[str, Any]] = []
    notes: list[str] = []
    try:
        zf = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, OSError, ValueError):
        return [], ["not a zip archive"]
    budget = MAX_UNZIPPED_BYTES
    with zf:
        for info in zf.infolist()[:MAX_ENTRIES]:
            name = info.filename
            if info.is_dir() or name.lower().endswith(_SKIP_EXT) or not looks_like_report(name):
                continue
            if budget <= 0:
                notes.append("more report files than the size bound allows were skipped")
                break
            try:
                with zf.open(info) as member:
                    data = member.read(min(MAX_REPORT_BYTES, budget) + 1)
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
                notes.append(f"{name[:120]}: unreadable ({type(exc).__name__})")
                continue
            budget -= len(data)
            if len(data) > MAX_REPORT_BYTES or budget < 0:
                notes.append(f"{name[:120]}: over the size bound, skipped")
                continue
            try:
                found.append((name, parse_report(name, data)))
            except UnsafeReport as exc:
                notes.append(f"{name[:120]}: {exc}")
            except NotAReport:
                continue
    return found, notes


def list_artifacts(ctx: Context, ref: PRRef, run_id: int) -> tuple[list[dict[str, Any]] | None, list[str]]:
    """A run's artifacts (one request), or None and a note when GitHub refuses to list them (404/403)."""
    try:
        pages = ctx.gh.rest_pages(f"repos/{ref.full_name}/actions/runs/{run_id}/artifacts", hostname=ref.host,
                                  max_pages=1)
    except PrAgentError as err:
        if err.code in ("not_found", "forbidden"):
            return None, [f"the artifacts of run {run_id} could not be listed ({err.code})"]
        raise
    return [a for p in pages if isinstance(p, dict) for a in p.get("artifacts") or [] if isinstance(a, dict)], []


def fetch_run_reports(ctx: Context, ref: PRRef, run_id: int) -> RunReports:
    """The test reports in one run's artifacts (GitHub's refusals become notes, never a failed call)."""
    artifacts, notes = list_artifacts(ctx, ref, run_id)
    if artifacts is None:
        return RunReports(notes=notes)
    out = download_reports(ctx, ref, [a for a in artifacts if is_report_artifact(a)])
    out.requests += 1
    return out


def download_reports(ctx: Context, ref: PRRef, picked: list[dict[str, Any]]) -> RunReports:
    """Download and read report artifacts (at most :data:`MAX_ARTIFACTS`, each within the size bounds)."""
    out = RunReports()
    for a in picked[MAX_ARTIFACTS:]:
        out.notes.append(f"artifact {str(a.get('name'))[:80]!r} not read (at most {MAX_ARTIFACTS} per run)")
    for a in picked[:MAX_ARTIFACTS]:
        name = str(a.get("name") or "")[:200]
        size = a.get("size_in_bytes")
        if isinstance(size, int) and size > MAX_ZIP_BYTES:
            out.notes.append(f"artifact {name!r} not read: {size >> 20} MB is over the {MAX_ZIP_BYTES >> 20} MB bound")
            continue
        spool = tempfile.SpooledTemporaryFile(max_size=4 << 20)  # noqa: SIM115 (closed below)
        try:
            try:
                ctx.gh.download(f"repos/{ref.full_name}/actions/artifacts/{int(a['id'])}/zip",
                                _Bounded(spool, MAX_ZIP_BYTES), hostname=ref.host)  # type: ignore[arg-type]
            except _TooBig:
                out.notes.append(f"artifact {name!r} not read: over the {MAX_ZIP_BYTES >> 20} MB bound")
                continue
            except PrAgentError as err:
                if err.code in ("not_found", "forbidden") or err.details.get("status") == 410:
                    out.notes.append(f"artifact {name!r} could not be downloaded ({err.code})")
                    continue
                raise
            finally:
                out.requests += 1
            spool.seek(0)
            files, notes = read_zip(spool)  # type: ignore[arg-type]
        finally:
            spool.close()
        out.notes.extend(f"artifact {name!r}: {n}" for n in notes)
        failures = [f for _, r in files for f in r.failures]
        flaky = [t for _, r in files for t in r.flaky]
        if files:
            out.reports.append((name, failures, flaky))
    return out


# ------------------------------------------------------------------ attribution and merging
def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def owner(artifact: str, names: Iterable[str]) -> str | None:
    """The job name an artifact's name carries: every word of it in the artifact's name, the longest such
    name winning (``test-results-ubuntu-3.11`` → ``test (ubuntu, 3.11)``); None when none does."""
    words = _words(artifact)
    named = [n for n in names if _words(n) and _words(n) <= words]
    return max(named, key=lambda n: len(_words(n))) if named else None


def attribute(artifact: str, run_checks: list[Check], failed: list[Analysis]) -> Analysis | None:
    """The failed job a run's artifact belongs to: the job whose every name word the artifact's name carries
    (the longest such name wins), else the run's only failed job; None when a passed job matches or it is
    ambiguous."""
    best = owner(artifact, [c.name for c in run_checks])
    if best is not None:
        ids = {c.check_run_id for c in run_checks if c.name == best}
        return next((a for a in failed if a.check.check_run_id in ids), None)
    return failed[0] if len(failed) == 1 else None


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^\w]+", name.lower()) if t and t not in ("py", "js", "ts", "tsx", "jsx", "cs")]


def same_test(x: str, y: str) -> bool:
    """The same test named by two sources (``tests/test_a.py::test_b`` and JUnit's ``tests.test_a.test_b``):
    the same last word, and every word of the shorter name in the longer one."""
    tx, ty = _tokens(x), _tokens(y)
    if not tx or not ty or tx[-1] != ty[-1]:
        return False
    small, big = sorted((tx, ty), key=len)
    return set(small) <= set(big)


def merge(a: Analysis, artifact: str, found: Iterable[dict[str, Any]], flaky: Iterable[str]) -> None:
    """Put a report's failures first in ``a.failures``, each test once: a failure the log or an annotation
    also found keeps that source's runner id (what reproduces it) and gains the report's message."""
    existing = list(a.failures)
    used: set[int] = set()
    merged: list[dict[str, Any]] = []
    url = step_url(a.job_url, a.step)
    for f in found:
        item = dict(f)
        match = next((i for i, g in enumerate(existing) if i not in used and same_test(g["test_name"],
                                                                                   item["test_name"])), None)
        if match is not None:
            used.add(match)
            g = existing[match]
            if g.get("runner"):  # the log's id is the runner's own (what its reproduce command takes)
                item.update(test_name=g["test_name"], runner=g["runner"], suite=g.get("suite") or item.get("suite"))
            item["file_path"] = item.get("file_path") or g.get("file_path")
            item["line_number"] = item.get("line_number") or g.get("line_number")
        if any(same_test(m["test_name"], item["test_name"]) for m in merged):
            continue
        item.update(check_name=a.check.display_name, log_url=url, job_id=a.job_id,
                    step_name=a.step.name if a.step else None, artifact=artifact,
                    reproduce_command=reproduce_command(item.get("runner") or "", item["test_name"],
                                                        suite=item.get("suite"), file_path=item.get("file_path"),
                                                        runners=a.runners))
        merged.append(item)
    a.failures = merged + [g for i, g in enumerate(existing) if i not in used]
    a.flaky_tests = list(dict.fromkeys([*a.flaky_tests, *flaky]))
    a.reports.append(artifact)
    if merged and a.non_test is not None and a.non_test.get("kind") == "unknown":
        a.non_test = None  # the report says which tests failed: not an unexplained failure any more


def apply_reports(ctx: Context, ref: PRRef, analyses: list[Analysis], checks: list[Check], pre: Any = None) -> int:
    """Read the report artifacts of the runs with a failed Actions job and merge them into ``analyses``
    (``pre``, a :class:`pr_agent.ci.prefetch.Prefetch`: the runs whose reads it already started). Returns the
    number of requests made."""
    by_run: dict[int, list[Analysis]] = {}
    for a in analyses:
        if a.is_actions and a.check.run_id is not None and a.check.bucket == "failed":
            by_run.setdefault(a.check.run_id, []).append(a)
    runs = list(by_run)[:MAX_RUNS]
    for run_id in list(by_run)[MAX_RUNS:]:
        for a in by_run[run_id]:
            a.note = _join(a.note, f"test-report artifacts not read (at most {MAX_RUNS} workflow runs)")
    def one(run_id: int) -> RunReports:
        got = pre.reports(run_id) if pre is not None else None
        return got if got is not None else safe_reports(ctx, ref, run_id)

    results = ctx.gh.map(one, runs, max_workers=4)
    requests = 0
    for run_id, got in zip(runs, results, strict=True):
        requests += got.requests
        failed = by_run[run_id]
        run_checks = [c for c in checks if c.run_id == run_id and c.check_run_id is not None]
        for name, found, flaky in got.reports:
            target = attribute(name, run_checks, failed)
            if target is None:
                if found:
                    for a in failed:
                        a.note = _join(a.note, f"the test report in artifact {name!r} could not be matched to one job")
                continue
            merge(target, name, found, flaky)
        for note in got.notes[:5]:
            for a in failed:
                a.note = _join(a.note, note)
    return requests


def safe_reports(ctx: Context, ref: PRRef, run_id: int) -> RunReports:
    """:func:`fetch_run_reports`, with GitHub's failures (after the gateway's retries) as a note: the reports
    are extra, the log's findings still stand."""
    try:
        return fetch_run_reports(ctx, ref, run_id)
    except PrAgentError as err:
        if err.code == "cancelled":
            raise
        return RunReports(notes=[f"the test-report artifacts of run {run_id} could not be read ({err.code})"])


def _join(note: str | None, text: str) -> str:
    return f"{note}; {text}" if note else text
