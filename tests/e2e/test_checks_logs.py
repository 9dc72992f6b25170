"""get_failing_tests when a job log is not the usual readable file: expired (HTTP 410) and a failed job inside
a workflow run that is still going (real gh, fakehub)."""

from __future__ import annotations

import shlex
from typing import Any

import orjson

from tests.e2e.ci_worlds import FAST, expired_world, live_world


def run_json(a: Any, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = a.cli("checks", "acme/widgets#7", *args, "--json", env=a.env(**FAST))
    return proc.returncode, orjson.loads(proc.stdout), proc.stderr


def test_an_expired_log_is_named_with_what_is_left_and_a_rerun_that_works(agent) -> None:
    a = agent(expired_world(age_days=2))
    code, out, err = run_json(a)
    assert code == 1, err
    failed = {fc["check_name"]: fc for fc in out["failed_checks"]}
    e2e, unit = failed["CI / e2e"], failed["CI / unit"]
    assert e2e["log_status"] == "log_expired" and unit["log_status"] == "read"
    assert "log_expired" in e2e["note"] and "validation_failed" not in orjson.dumps(out).decode()
    # no command that cannot work: the expired log cannot be printed
    assert "full_log_command" not in e2e and "full_log_resource" not in e2e
    assert shlex.split(unit["full_log_command"]) == ["gh", "pr-agent", "checks", "acme/widgets#7", "--log", "203"]
    # what is left: the failed step's name and the annotations
    assert e2e["failed_step"] == "Run npm run e2e" and e2e["failed_step_number"] == 2
    lines = e2e["non_test_failure"]["decisive_lines"]
    assert "failed step 2: Run npm run e2e" in lines
    assert "e2e/cart.spec.ts:31: TimeoutError: locator.click: Timeout 30000ms exceeded." in lines
    assert "expired" in e2e["non_test_failure"]["summary"]
    first = out["instructions"]["priority"][0]
    assert first["test"] == "CI / e2e" and "re-run the job" in first["reason"] and "until this is fixed" not in \
        first["reason"]
    # the rerun command is exact and works against the API
    rerun = e2e["rerun_command"]
    assert shlex.split(rerun) == ["gh", "run", "rerun", "--job", "202", "--repo", "acme/widgets"]
    ran = a.shell(rerun)
    assert ran.returncode == 0, ran.stderr
    assert [r.status for r in a.hub.find_requests("POST", "/repos/acme/widgets/actions/jobs/202/rerun")] == [201]
    # the log was asked for once; never a retry of a 410
    assert len(a.hub.find_requests("GET", "/repos/acme/widgets/actions/jobs/202/logs")) == 1
    text = a.cli("checks", "acme/widgets#7", env=a.env(**FAST)).stdout
    assert "re-run job: gh run rerun --job 202 --repo acme/widgets" in text
    assert "--log 202" not in text and "--log 203" in text
    # --log on the expired job: a typed error that says so, no traceback
    log = a.cli("checks", "acme/widgets#7", "--log", "202", "--json", env=a.env(**FAST))
    assert log.returncode == 3 and "Traceback" not in log.stderr
    assert orjson.loads(log.stdout)["error"]["code"] == "log_expired"


def test_an_expired_log_of_a_run_too_old_to_rerun_offers_no_rerun(agent) -> None:
    a = agent(expired_world(age_days=45))
    code, out, _ = run_json(a)
    failed = {fc["check_name"]: fc for fc in out["failed_checks"]}
    assert code == 1 and failed["CI / e2e"]["log_status"] == "log_expired"
    assert "rerun_command" not in failed["CI / e2e"] and "rerun_command" not in failed["CI / unit"]
    assert "push a commit" in out["instructions"]["priority"][0]["reason"]
    # GitHub (and fakehub) refuse it: the command we did not emit would have failed
    refused = a.shell("gh run rerun --job 202 --repo acme/widgets")
    assert refused.returncode != 0 and "cannot be rerun" in refused.stderr
    assert [r.status for r in a.hub.find_requests("POST", "/repos/acme/widgets/actions/jobs/202/rerun")] == [403]


def test_a_failed_job_inside_a_running_run_is_analysed_from_its_own_log(agent) -> None:
    a = agent(live_world())
    code, out, err = run_json(a)
    assert code == 1, err
    assert out["status"] == "failed" and out["poll_info"] is not None  # the run is still going
    assert [f["test_name"] for f in out["failures"]] == ["tests/test_invoice.py::test_total_includes_shipping"]
    assert {c["name"] for c in out["checks"] if c["bucket"] == "pending"} == {"CI / integration (1)",
                                                                              "CI / integration (2)"}
    assert {c["run_id"] for c in out["failed_checks"]} == {9001}
    # the running jobs' logs are never asked for; wait + bail_on_first answers at the first poll
    code, out, _ = run_json(a, "--wait")
    assert code == 1 and out["wait_info"]["ended"] == "first_failure" and out["wait_info"]["polls"] == 1
    assert out["failures"][0]["source"] == "log"
    logs = {r.path for r in a.hub.find_requests("GET", "/repos/acme/widgets/actions/jobs/")}
    assert logs == {"/repos/acme/widgets/actions/jobs/701/logs"}
