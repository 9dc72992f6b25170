"""CI on the large PR (issue 7: >= 60 checks, >= 12 failed GitHub Actions jobs), in fakehub's scenario format
(``checks`` and ``ci`` on a pull request, ``branch_rules`` on the repository: fixtures/scenarios/README.md,
"Merge state, checks and branch rules" and "CI").

Every failed Actions job serves a raw job log with real failures: the runner fixtures of ``fixtures/logs``
(pytest, unittest, jest, vitest, mocha, go, cargo, nextest, rspec, Gradle, Maven, a tsc compile error and a
ruff lint failure) and one multi-megabyte monorepo log from ``bench/gen_log.py`` (five runners, three
failures deep inside). Around them: passing matrix jobs, skipped jobs, a cancelled job, a job still running
and a failing external commit status. The failed jobs are spread over the check list, so with more than
100 checks some of them are only on the second rollup page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
T0, T1 = "2026-11-30T10:00:00Z", "2026-11-30T10:07:00Z"
JOB_IDS = 7_000_001
MONOREPO = ("CI", "monorepo (all runners)")
# (workflow, job name, log fixture) of the failed jobs, in the order they appear.
FAILED: tuple[tuple[str, str, str], ...] = (
    ("CI", "pytest (ubuntu-latest, 3.12)", "pytest/xdist_verbose"),
    ("Frontend", "jest", "jest/multiple_suites"),
    ("CI", "typecheck", "nontest/tsc_compile_error"),
    ("Go", "go test (linux)", "go/verbose_subtests"),
    ("CI", "pytest (macos-latest, 3.12)", "pytest/single_failure"),
    ("Rust", "cargo test", "cargo/multiple_targets"),
    ("Frontend", "vitest", "vitest/multiple"),
    ("CI", "lint", "nontest/ruff_lint"),
    ("Ruby", "rspec", "rspec/multiple"),
    ("JVM", "gradle test", "gradle/full_exceptions"),
    ("CI", "unittest (django)", "unittest/django_errors"),
    ("Frontend", "mocha (api)", "mocha/nested_hooks"),
    ("Rust", "nextest", "nextest/new_format_multiple"),
    ("JVM", "maven verify", "maven/multi_module_errors"),
)
REQUIRED = ("pytest (ubuntu-latest, 3.12)", "lint", "build")
OTHER = ({"name": "deploy-preview", "workflow": "Deploy", "conclusion": "CANCELLED"},
         {"name": "e2e (chromium)", "workflow": "E2E", "status": "IN_PROGRESS"},
         {"name": "docs-preview", "workflow": "Docs", "conclusion": "SKIPPED"},
         {"name": "release-notes", "workflow": "Docs", "conclusion": "SKIPPED"},
         {"kind": "status", "name": "ci/circleci: integration", "state": "FAILURE",
          "description": "Your tests failed on CircleCI", "url": "https://circleci.example/gh/acme/widgets/4242"})


@dataclass(frozen=True)
class CiSize:
    checks: int  # total, >= failed + len(OTHER)
    failed: int  # failed Actions jobs with logs: FAILED[:failed - 1] + the monorepo log
    monorepo_mb: float


FULL = CiSize(checks=128, failed=15, monorepo_mb=4.0)
SMOKE = CiSize(checks=12, failed=3, monorepo_mb=0.2)


def ruleset() -> dict[str, Any]:
    """main's ruleset: one approval, resolved conversations and three required checks (strict)."""
    return {"id": 4242, "name": "main protection", "rules": [
        {"type": "pull_request", "parameters": {
            "required_approving_review_count": 1, "required_review_thread_resolution": True,
            "dismiss_stale_reviews_on_push": False, "require_code_owner_review": False,
            "require_last_push_approval": False}},
        {"type": "required_status_checks", "parameters": {
            "required_status_checks": [{"context": c} for c in REQUIRED],
            "strict_required_status_checks_policy": True}}]}


def _job(name: str, workflow: str, job_id: int, run_ids: dict[str, int], **kw: Any) -> dict[str, Any]:
    status = kw.pop("status", "COMPLETED")
    return {"name": name, "id": job_id, "run_id": run_ids.setdefault(workflow, 9_100 + len(run_ids)),
            "workflow": workflow, "status": status,
            "conclusion": kw.pop("conclusion", "SUCCESS") if status == "COMPLETED" else None,
            "started_at": T0, "completed_at": T1 if status == "COMPLETED" else None, **kw}


def _passing_names(n: int) -> list[tuple[str, str]]:
    out = [("CI", "build")]
    oses, pys = ("ubuntu-latest", "macos-latest", "windows-latest"), ("3.9", "3.10", "3.11", "3.13")
    out += [("CI", f"pytest ({o}, {p})") for o in oses for p in pys]
    k = 0
    while len(out) < n:
        out.append(("Matrix", f"integration (shard {k + 1:02d})"))
        k += 1
    return out[:n]


def _history(failed: list[tuple[str, str, str]], run_ids: dict[str, int]) -> dict[str, Any]:
    """History for the verdicts (README, "Is it mine?"): ``main``'s latest CI run failed the first pytest job the
    same way (failing_on_base) and passed the PR's other CI jobs (new_in_this_pr); the Rust run is a re-run whose
    first attempt passed ``cargo test`` (flaky); the other workflows never ran on ``main`` (unknown). That failed
    ``main`` run uploaded the failed job's JUnit report (read) and a passed job's (not read)."""
    ci_jobs = [name for workflow, name, _ in failed if workflow == "CI"]
    out: dict[str, Any] = {"base_runs": [{"id": 8_900, "workflow": "CI", "created_at": "2026-11-29T08:00:00Z",
                                          "jobs": [{"name": n, "id": 8_901 + k, "conclusion": "failure" if k == 0
                                                    else "success", **({"log": f"fixtures/logs/{FAILED[0][2]}.log"}
                                                                       if k == 0 else {})}
                                                   for k, n in enumerate(ci_jobs)]}]}
    if ci_jobs:
        junit = "fixtures/reports/real/pytest/01-skips-xfail-properties.xml"
        out["artifacts"] = [{"name": f"junit {n}", "run_id": 8_900, "files": [{"path": "junit.xml", "file": junit}]}
                            for n in ci_jobs[:2]]
    if "Rust" in run_ids:
        out["attempts"] = [{"run_id": run_ids["Rust"], "attempt": 1,
                            "jobs": [{"name": "cargo test", "id": 8_950, "conclusion": "success"}]}]
    return out


def ci_section(pr: dict[str, Any], size: CiSize, workdir: Path) -> dict[str, int]:
    """Fill ``pr["checks"]`` and ``pr["ci"]``; returns counts for ``describe()``."""
    from bench import gen_log

    failed = [*FAILED[: size.failed - 1], (*MONOREPO, "")]
    extra = list(OTHER)
    passing = _passing_names(size.checks - len(failed) - len(extra))
    slots = size.checks
    step = max(1, (slots - 1) // max(1, len(failed) - 1))
    failed_at = {min(slots - 1, i * step): f for i, f in enumerate(failed)}
    fillers = iter([*extra, *({"name": n, "workflow": w} for w, n in passing)])
    run_ids: dict[str, int] = {}
    checks, runs = [], []
    for i in range(slots):
        job_id = JOB_IDS + i
        if i in failed_at:
            workflow, name, fixture = failed_at[i]
            checks.append(_job(name, workflow, job_id, run_ids, conclusion="FAILURE"))
            if fixture:
                runs.append({"check": name, "log": f"fixtures/logs/{fixture}.log"})
            else:
                path, _ = gen_log.cached(workdir, size.monorepo_mb, seed=11)
                runs.append({"check": name, "log_text": path.read_text(encoding="utf-8")})
            continue
        spec = dict(next(fillers))
        if spec.get("kind") == "status":
            checks.append(spec)
        else:
            checks.append(_job(spec.pop("name"), spec.pop("workflow"), job_id, run_ids, **spec))
    pr["checks"], pr["ci"] = checks, {"runs": runs, **_history(failed, run_ids)}
    expected = sum(len(json.loads((ROOT / "fixtures/logs" / f"{fx}.expected.json").read_text())["failures"])
                   for _, _, fx in failed if fx) + len(gen_log.FAIL_AT)
    return {"checks": len(checks), "failed_actions_jobs": len(runs),
            "failed_jobs_on_rollup_page_2": sum(1 for i in failed_at if i >= 100),
            "expected_test_failures": expected,
            "monorepo_log_bytes": int(size.monorepo_mb * 1024 * 1024)}
