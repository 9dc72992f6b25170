"""`checks` through the CLI in this process (tests/unit/inproc.py) against fakehub through the real gh: the
failures a user is shown, from the job logs gh downloads, with the commands to reproduce and re-run them."""

from __future__ import annotations

from tests.e2e.ci_worlds import (
    API,
    CART,
    HEAD,
    NEW_HEAD,
    RATE,
    TOTAL,
    annotated_world,
    history_world,
    many_failures_world,
    no_checks_world,
    pending_world,
    stale_world,
    waiting_world,
)
from tests.e2e.ci_worlds import failing_world as failing

# polls 20 times a second, "no checks yet" waited out for 0.3 s: the timelines count polls, not seconds
FAST = {"GH_PR_AGENT_POLL_INTERVAL": "0.05", "GH_PR_AGENT_NO_CHECKS_GRACE": "0.3"}


def test_failures_come_from_the_job_logs_with_how_to_reproduce_them(inproc) -> None:
    a = inproc(failing())
    ran = a.cli("checks", "acme/widgets#7", "--json", **FAST)
    assert ran.code == 1, ran.stderr  # a negative answer: CI failed
    out = ran.json()
    assert out["status"] == "failed" and out["head_sha"] == HEAD
    tests = {f["test_name"]: f for f in out["failures"]}
    assert set(tests) == {"tests/test_invoice.py::test_total_includes_shipping",
                          "Button › renders the label passed as children", "TestAdd"}
    assert tests["TestAdd"]["reproduce_command"] == "go test github.com/acme/calc -run '^TestAdd$'"
    assert tests["TestAdd"]["file_path"] == "calc_test.go" and tests["TestAdd"]["line_number"] == 12
    failed = {c["check_name"]: c for c in out["failed_checks"]}
    assert failed["CI / build"]["non_test_failure"]["kind"] == "compile_error"
    assert failed["CI / pytest"]["failed_step"] == "Run tests"
    assert failed["ci/circleci: integration"]["kind"] == "status"  # another CI: its link, no log to read
    assert out["counts"] == {"failed": 5, "cancelled": 1, "pending": 0, "passed": 1}
    assert out["failures"][0]["check_name"] == "CI / pytest"  # the required check first


def test_text_view_names_each_failure_and_a_job_log_can_be_read_whole(inproc) -> None:
    a = inproc(failing())
    ran = a.cli("checks", "acme/widgets#7", "--detail", "full", **FAST)
    assert ran.code == 1
    assert "✗ CI / pytest (required): failure — step 'Run tests'" in ran.stdout
    assert "⊘ CI / deploy-preview: cancelled" in ran.stdout
    assert "compile_error: Compilation failed" in ran.stdout
    log = a.cli("checks", "acme/widgets#7", "--log", "103", **FAST)
    assert log.code == 0, log.stderr
    assert "Add(2, 2) = 5; want 4" in log.stdout and "\x1b" not in log.stdout
    gone = a.cli("checks", "-R", "acme/widgets", "--log", "999", **FAST)
    assert gone.code == 3 and "not_found" in gone.stderr


def test_annotations_stand_in_for_an_unparseable_log_and_an_expired_log_is_said(inproc) -> None:
    out = inproc(annotated_world()).cli("checks", "acme/widgets#7", "--json", "--detail", "full", **FAST).json()
    unit = {f["test_name"]: f["source"] for f in out["failures"] if f["check_name"] == "CI / unit"}
    assert unit == {"tests/test_cart.py::test_total": "annotation", "App › renders $(id) 'x'": "annotation"}
    failed = {c["check_name"]: c for c in out["failed_checks"]}
    assert failed["CI / e2e"]["non_test_failure"]["kind"] == "unknown"
    assert "buildkite" in failed["buildkite/integration"]["note"]


def test_many_failures_come_in_pages_each_once(inproc) -> None:
    a = inproc(many_failures_world(30))
    first = a.cli("checks", "acme/widgets#7", "--json", "--page-size", "20", **FAST).json()
    rest = a.cli("checks", "acme/widgets#7", "--json", "--page-size", "20", "--cursor", first["nextCursor"],
                 **FAST).json()
    names = [f["test_name"] for f in first["failures"] + rest["failures"]]
    assert names == [f"tests/test_many.py::test_{i:02d}" for i in range(30)]
    assert "nextCursor" not in rest and rest["total_failures"] == 30


def test_a_failure_on_the_base_branch_too_is_marked_as_not_this_prs(inproc) -> None:
    out = inproc(history_world(base_report=True)).cli("checks", "acme/widgets#7", "--json", **FAST).json()
    verdicts = {f["test_name"]: f["history"]["verdict"] for f in out["failures"]}
    assert verdicts == {TOTAL[0]: "new_in_this_pr", RATE[0]: "failing_on_base", API[0]: "new_in_this_pr",
                        CART[0]: "flaky", "tests/test_docs.py::test_links": "unknown"}
    # what the PR broke comes first; what fails on main too comes last, and says so
    priority = out["instructions"]["priority"]
    assert priority[0]["test"] == API[0] and priority[-1]["test"] == RATE[0]
    assert priority[-1]["reason"].startswith("not this PR's fault: ")


def test_wait_stops_at_the_first_failure_and_says_what_still_runs(inproc) -> None:
    a = inproc(waiting_world(fail_at=2, finish_at=4))
    ran = a.cli("checks", "acme/widgets#7", "--wait", "--json", **FAST)
    assert ran.code == 1, ran.stderr
    out = ran.json()
    assert out["wait_info"]["ended"] == "first_failure"
    assert {c["name"] for c in out["checks"] if c["bucket"] == "pending"} == {"CI / jest", "CI / lint"}
    assert out["poll_info"]["retry_after_seconds"] >= 1


def test_a_new_head_while_waiting_marks_the_results_stale(inproc) -> None:
    stale = inproc(stale_world()).cli("checks", "acme/widgets#7", "--wait", "--json", **FAST)
    assert stale.code == 8 and stale.json()["stale_head"]["current_head_sha"] == NEW_HEAD


def test_no_checks_is_unknown_not_success(inproc) -> None:
    ran = inproc(no_checks_world()).cli("checks", "acme/widgets#7", "--wait", "--json", **FAST)
    assert ran.code == 5 and ran.json()["status"] == "unknown"
    assert ran.json()["wait_info"]["ended"] == "no_checks"


def test_a_wait_that_times_out_keeps_the_last_state_and_how_to_wait_again(inproc) -> None:
    ran = inproc(pending_world()).cli("checks", "acme/widgets#7", "--wait", "--timeout-seconds", "1", "--json",
                                      **FAST)
    assert ran.code == 8
    error = ran.json()["error"]
    assert error["code"] == "wait_timeout"
    assert error["details"]["last_state"]["pending_checks"] == ["CI / pytest", "security-scan"]
    assert error["repair"]["command"] == "gh pr-agent checks 'acme/widgets#7' --wait"
    now = inproc(pending_world()).cli("checks", "acme/widgets#7", "--json", **FAST)
    assert now.code == 8 and now.json()["status"] == "running"


def test_more_than_a_page_of_checks_are_all_counted_and_a_missing_pr_is_typed(inproc) -> None:
    from tests.e2e.ci_worlds import job, world

    checks = [job(f"matrix ({i})", 800 + i, "SUCCESS") for i in range(110)] + [job("go test", 999)]
    a = inproc(world(checks, {"runs": [{"check": "go test", "log": "fixtures/logs/go/plain_single.log"}]}))
    ran = a.cli("checks", "acme/widgets#7", "--json", **FAST)
    assert ran.code == 1
    assert ran.json()["counts"] == {"failed": 1, "cancelled": 0, "pending": 0, "passed": 110}
    assert [f["test_name"] for f in ran.json()["failures"]] == ["TestAdd"]
    missing = a.cli("checks", "acme/widgets#404", "--json", **FAST)
    assert missing.code == 3 and missing.json()["error"]["code"] == "pr_not_found"
