"""What ``get_failing_tests`` says about one failed check (issue 19 mutation survivors of ci/analyze.py): the
failing test a reporter annotated, with the log's runner and a link to the failed step; the failed step of a
job that timed out; what is left when the log expired; the last lines of a failure nothing recognises; the
whole log read again when the failed step's cut shows nothing; and the failed step of a log too long to keep.
Input: a job log (bytes, as GitHub serves it), the check run's steps and annotations as the API gives them."""

from __future__ import annotations

import io

import pytest

from pr_agent.ci.analyze import analyze_check
from pr_agent.ci.details import CheckDetails
from pr_agent.ci.rollup import Check
from pr_agent.errors import PrAgentError

JOB_URL = "https://github.com/acme/widgets/actions/runs/3/job/7"


def actions_check(state: str = "FAILURE") -> Check:
    return Check(name="test", kind="check_run", state=state, bucket="failed", workflow="CI", app="github-actions",
                 url=JOB_URL, check_run_id=7, run_id=3)


def step(number: int, name: str, conclusion: str, start: str, end: str) -> dict[str, object]:
    return {"number": number, "name": name, "status": "completed", "conclusion": conclusion,
            "started_at": f"2026-11-30T{start}Z", "completed_at": f"2026-11-30T{end}Z"}


STEPS = [step(1, "Set up job", "success", "10:00:00", "10:00:01"),
         step(2, "Install", "success", "10:00:02", "10:00:09"),
         step(3, "Run tests", "failure", "10:00:10", "10:00:30"),
         step(4, "Post checkout", "success", "10:00:31", "10:00:32")]


def log(*lines: tuple[str, str]) -> io.BytesIO:
    return io.BytesIO("".join(f"2026-11-30T{t}.0000000Z {text}\n" for t, text in lines).encode())


PYTEST_RUN = (("10:00:10", "##[group]Run pytest"), ("10:00:11", "tests/test_cart.py::test_total FAILED"),
              ("10:00:12", "FAILED tests/test_cart.py::test_total - assert 3 == 4"),
              ("10:00:12", "========= 1 failed, 9 passed in 0.50s ========="),
              ("10:00:13", "##[error]Process completed with exit code 1."))


def test_an_annotated_test_failure_keeps_the_reporters_message_the_logs_runner_and_the_step_link() -> None:
    reporter = {"path": "tests/test_cart.py", "start_line": 12, "end_line": 12, "annotation_level": "failure",
                "title": "Failed test: tests/test_cart.py::test_total",
                "message": "assert 3 == 4\n  where 3 = total([1, 2])\n", "raw_details": ""}
    a = analyze_check(actions_check(), log(*PYTEST_RUN), CheckDetails(steps=STEPS, annotations=[reporter]))
    assert [(f["test_name"], f["error_message"], f["file_path"], f["line_number"], f["runner"], f["source"])
            for f in a.failures] == [("tests/test_cart.py::test_total", "assert 3 == 4\nwhere 3 = total([1, 2])",
                                      "tests/test_cart.py", 12, "pytest", "annotation")]
    only = a.failures[0]
    assert (only["log_url"], only["step_name"], only["job_id"]) == (f"{JOB_URL}#step:3:1", "Run tests", 7)
    assert only["reproduce_command"] == "pytest tests/test_cart.py::test_total"
    assert a.annotations[0]["title"] == "Failed test: tests/test_cart.py::test_total"
    assert a.note is None  # steps and annotations were read: nothing is missing


def test_an_annotation_on_line_1_keeps_its_line_and_line_0_means_none() -> None:
    def at(line: int, name: str) -> dict[str, object]:
        return {"path": "tests/test_io.py", "start_line": line, "end_line": line, "annotation_level": "failure",
                "title": name, "message": "boom"}

    a = analyze_check(actions_check(), log(*PYTEST_RUN), CheckDetails(
        steps=STEPS, annotations=[at(1, "tests/test_io.py::test_first"), at(0, "tests/test_io.py::test_whole")]))
    assert [(f["test_name"], f["line_number"], f["confidence"]) for f in a.failures] == [
        ("tests/test_io.py::test_first", 1, "high"), ("tests/test_io.py::test_whole", None, "medium")]


def test_a_check_run_of_another_app_points_at_its_page() -> None:
    """Not an Actions job: no log is read, no job id, and no note about steps GitHub never has for it."""
    check = Check(name="lint", kind="check_run", state="FAILURE", bucket="failed", app="circleci-checks",
                  url="https://circleci.com/gh/acme/widgets/88", check_run_id=88)
    a = analyze_check(check, None, CheckDetails(steps=None, annotations=[]))
    assert a.note == "External CI (circleci-checks): its details are on the linked page."
    assert a.job_id is None and a.job_url == "https://circleci.com/gh/acme/widgets/88"


def test_an_unrecognised_failure_ends_with_its_last_fifteen_lines() -> None:
    lines = [("10:00:10", "##[group]Run ./ci/check.sh")] + [(f"10:00:2{i % 10}", f"checking part {i}")
                                                            for i in range(40)]
    a = analyze_check(actions_check(), log(*lines), CheckDetails(steps=STEPS, annotations=[]))
    assert a.failures == []
    assert a.non_test == {"kind": "unknown", "summary": "Unrecognised failure: checking part 39",
                          "decisive_lines": [f"checking part {i}" for i in range(25, 40)]}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_a_cause_outside_the_failed_steps_times_is_found_by_reading_the_whole_log(encoding: str) -> None:
    """GitHub's step times and the log's can disagree; then the cut shows nothing and the whole log is read."""
    text = "".join(f"2026-11-30T{t}.0000000Z {body}\n" for t, body in [
        ("10:00:03", "##[group]Run npm ci"), ("10:00:04", "npm ERR! code ERESOLVE"),
        ("10:00:04", "npm ERR! ERESOLVE unable to resolve dependency tree"),
        ("10:00:05", "##[error]Process completed with exit code 1."), ("10:00:20", "Cleaning up")])
    a = analyze_check(actions_check(), io.BytesIO(text.encode(encoding)), CheckDetails(steps=STEPS, annotations=[]))
    assert a.non_test is not None
    assert (a.non_test["kind"], a.non_test["decisive_lines"][0]) == ("dependency_install", "npm ERR! code ERESOLVE")


def test_a_timed_out_job_names_the_step_it_stopped_in() -> None:
    """A job over its time limit: its running step is cancelled (not failed) and the check is TIMED_OUT."""
    steps = [*STEPS[:2], step(3, "Run tests", "cancelled", "10:00:10", "10:00:30")]
    a = analyze_check(actions_check("TIMED_OUT"), log(("10:00:10", "##[group]Run make e2e"),
                                                      ("10:00:15", "waiting for the server")),
                      CheckDetails(steps=steps, annotations=[]))
    assert a.step is not None and (a.step.number, a.step.name) == (3, "Run tests")
    assert a.non_test is not None
    assert (a.non_test["kind"], a.non_test["summary"]) == ("timeout", "The job hit its time limit (conclusion "
                                                                      "TIMED_OUT)")


def test_an_expired_log_leaves_the_failed_step_and_the_annotations() -> None:
    runner_line = {"path": ".github", "start_line": 1, "annotation_level": "failure", "title": "",
                   "message": "Process completed with exit code 1."}
    mypy = {"path": "src/app.py", "start_line": 4, "annotation_level": "failure", "title": "mypy",
            "message": "Incompatible types in assignment"}
    expired = PrAgentError("log_expired", "The job log has expired.", suggestion="Re-run the job.")
    a = analyze_check(actions_check(), expired, CheckDetails(steps=STEPS, annotations=[runner_line, mypy]))
    assert (a.log_status, a.final, a.failures) == ("log_expired", True, [])
    assert a.step is not None and a.step.number == 3
    assert a.non_test is not None and a.non_test["decisive_lines"] == [
        "failed step 3: Run tests", "Process completed with exit code 1.",
        "src/app.py:4: mypy: Incompatible types in assignment"]


def test_a_failed_step_too_long_to_keep_is_read_in_full_within_its_times() -> None:
    """A step longer than a cut keeps is parsed streamed, line by line within the step's window: a failure on
    its last second counts, one logged two seconds before it started (an earlier step) does not."""
    steps = [step(1, "Set up job", "success", "10:00:00", "10:00:01"),
             step(2, "Lint tests", "success", "10:00:02", "10:00:08"),
             step(3, "Run tests", "failure", "10:00:10", "10:05:00")]
    head = ("2026-11-30T10:00:08.0000000Z FAILED tests/test_style.py::test_quotes - lint found 1 issue\n"
            "2026-11-30T10:00:10.0000000Z ##[group]Run pytest\n")
    body = "2026-11-30T10:01:00.0000000Z tests/test_m.py::test_ok PASSED\n" * 100_010
    tail = ("2026-11-30T10:05:00.0000000Z FAILED tests/test_m.py::test_bad - assert 1 == 2\n"
            "2026-11-30T10:05:00.0000000Z ========= 1 failed, 100010 passed in 290.00s =========\n")
    a = analyze_check(actions_check(), io.BytesIO((head + body + tail).encode()),
                      CheckDetails(steps=steps, annotations=[]), timeout=600)
    assert [f["test_name"] for f in a.failures] == ["tests/test_m.py::test_bad"]
    assert a.step is not None and a.step.number == 3


def test_a_check_with_nothing_to_read_is_answered_without_its_log_and_the_log_is_closed() -> None:
    """A cancelled job reported no test results; a commit status has no job: neither log is parsed."""
    cancelled = Check(name="test", kind="check_run", state="CANCELLED", bucket="cancelled", app="github-actions",
                      url=JOB_URL, check_run_id=7, run_id=3)
    a = analyze_check(cancelled, None, None)
    assert (a.note, a.failures, a.job_url) == ("The check was cancelled; it reported no test results.", [], JOB_URL)
    status = Check(name="ci/jenkins", kind="status_context", state="FAILURE", bucket="failed",
                   url="https://jenkins.example.com/job/9")
    raw = log(*PYTEST_RUN)
    a = analyze_check(status, raw, None)
    assert a.note == "External CI (commit status): its details are on the linked page." and a.failures == []
    assert raw.closed
