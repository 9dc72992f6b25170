"""History verdicts from what GitHub said (pr_agent/ci/history.assign): pure, no network. The e2e worlds
(tests/e2e/test_checks_history.py) cover the same verdicts through real gh; these cover the corners."""

from __future__ import annotations

from pr_agent.ci.analyze import Analysis
from pr_agent.ci.history import Base, Gathered, Run, assign
from pr_agent.ci.rollup import Check

BASE_RUN = {"id": 8001, "html_url": "https://github.com/o/r/actions/runs/8001",
            "run_started_at": "2026-11-29T08:00:00Z"}


def _analysis(name: str, tests: list[str], flaky: list[str] | None = None) -> Analysis:
    check = Check(name=name, kind="check_run", state="FAILURE", bucket="failed", workflow="CI", app="github-actions",
                  check_run_id=1, run_id=9001)
    a = Analysis(check, flaky_tests=flaky or [])
    a.failures = [{"test_name": t} for t in tests]
    return a


def _gathered(jobs: dict[str, dict], logs: dict[int, list[str] | None] | None = None) -> Gathered:
    return Gathered(runs={9001: Run(9001, {"workflow_id": 5, "run_attempt": 1})},
                    bases={5: Base(BASE_RUN, jobs)}, base_logs=logs or {}, base="main")


def test_a_test_that_passed_on_a_rerun_inside_the_job_is_flaky() -> None:
    a = _analysis("unit", ["tests/test_a.py::test_x", "tests/test_a.py::test_y"], flaky=["tests.test_a.test_x"])
    assign([a], _gathered({"unit": {"id": 1, "conclusion": "success"}}))
    assert [f["history"]["verdict"] for f in a.failures] == ["flaky", "new_in_this_pr"]
    assert a.history["verdict"] == "new_in_this_pr" and a.history["run_date"] == "2026-11-29T08:00:00Z"  # type: ignore[index]


def test_a_base_job_whose_failures_are_unreadable_or_unrecognisable_gives_unknown() -> None:
    unread, empty = _analysis("unit", ["t::a"]), _analysis("unit", ["t::a"])
    assign([unread], _gathered({"unit": {"id": 11, "conclusion": "failure"}}, {11: None}))
    assign([empty], _gathered({"unit": {"id": 11, "conclusion": "failure"}}, {11: []}))
    assert unread.history["verdict"] == empty.history["verdict"] == "failing_on_base"  # type: ignore[index]
    assert unread.failures[0]["history"]["verdict"] == "unknown" and "could not be read" in \
        unread.failures[0]["history"]["reason"]
    assert empty.failures[0]["history"]["verdict"] == "unknown"


def test_a_cancelled_base_job_or_a_missing_one_is_unknown() -> None:
    cancelled, missing = _analysis("unit", ["t::a"]), _analysis("lint", [])
    assign([cancelled, missing], _gathered({"unit": {"id": 11, "conclusion": "cancelled"}}))
    assert cancelled.history["verdict"] == "unknown" and "cancelled" in cancelled.history["reason"]  # type: ignore[index]
    assert missing.history["verdict"] == "unknown" and "no job named 'lint'" in missing.history["reason"]  # type: ignore[index]


def test_runs_beyond_the_bound_are_said_to_be_unread() -> None:
    a = _analysis("unit", ["t::a"])
    assign([a], Gathered(base="main"))
    assert a.history["verdict"] == "unknown" and "at most" in a.history["reason"]  # type: ignore[index]
    assert a.failures[0]["history"]["verdict"] == "unknown"


def test_which_base_run_reports_are_read() -> None:
    from pr_agent.ci.base_reports import picks

    jobs = {"unit (3.11)": {"id": 1, "conclusion": "failure"}, "web": {"id": 2, "conclusion": "failure"},
            "docs": {"id": 3, "conclusion": "success"}}
    arts = [{"id": 10, "name": "test-results-unit-3.11"}, {"id": 11, "name": "docs-junit"},
            {"id": 12, "name": "web-ctrf-report"}, {"id": 13, "name": "junit"}]
    got = [(a["id"], job) for a, job in picks(arts, jobs, ["unit (3.11)", "web"])]
    assert got == [(10, 1), (12, 2)]  # a passed job's report and an unattributable one are not read
    assert [(a["id"], j) for a, j in picks(arts, jobs, ["web"])] == [(12, 2)]  # only the PR's failed jobs
    one = {"unit": {"id": 1, "conclusion": "failure"}, "lint": {"id": 4, "conclusion": "success"}}
    assert [(a["id"], j) for a, j in picks(arts, one, ["unit"])] == [(10, 1), (11, 1), (12, 1), (13, 1)]
    many = [{"id": 20 + k, "name": f"junit-{k}"} for k in range(7)]
    assert [a["id"] for a, _ in picks(many, one, ["unit"], first=(26,))] == [26, 20, 21, 22, 23]  # the bound
    assert picks(None, jobs, ["web"]) == [] and picks(arts, jobs, []) == []


def test_a_base_run_report_named_otherwise_than_its_job() -> None:
    from pr_agent.ci.base_reports import picks

    jobs = {"Unit Tests (ubuntu-latest, 3.11)": {"id": 1, "conclusion": "failure"},
            "E2E": {"id": 2, "conclusion": "failure"}, "lint": {"id": 3, "conclusion": "success"}}
    wanted = ["Unit Tests (ubuntu-latest, 3.11)", "E2E"]
    # the job's words in another case, order or separators, with more words around them: that job's
    for name in ("unit-tests_ubuntu-latest_3.11", "Test Results (Unit Tests, 3.11, ubuntu-latest)",
                 "junit-UNIT-TESTS-ubuntu-latest-3.11.xml"):
        assert [j for _, j in picks([{"id": 1, "name": name}], jobs, wanted)] == [1], name
    assert [j for _, j in picks([{"id": 2, "name": "report-e2e"}], jobs, wanted)] == [2]
    # only some of the job's words ("3.11" but not "ubuntu-latest"), two failed jobs: nobody's, not read
    assert picks([{"id": 4, "name": "test-results-unit-3.11"}], jobs, wanted) == []
    # ... but the base run's only failed job owns it, whatever it is called
    alone = {"Unit Tests (ubuntu-latest, 3.11)": {"id": 1, "conclusion": "failure"}, "lint": jobs["lint"]}
    assert [j for _, j in picks([{"id": 4, "name": "test-results-unit-3.11"}], alone, wanted[:1])] == [1]
    # a name that carries the passed job's words belongs to it, even where one job failed: not read
    assert picks([{"id": 5, "name": "lint-report"}], alone, wanted[:1]) == []
