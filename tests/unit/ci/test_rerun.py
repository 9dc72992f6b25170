"""rerun_command: offered only where GitHub accepts a re-run, and always a command that splits back exactly."""

from __future__ import annotations

import shlex
from datetime import datetime, timezone

from pr_agent.ci.report import rerun_command
from pr_agent.ci.rollup import Check
from pr_agent.refs import PRRef

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def check(**kw: object) -> Check:
    base: dict[str, object] = {"name": "e2e", "kind": "check_run", "state": "FAILURE", "bucket": "failed",
                               "app": "github-actions", "check_run_id": 202, "run_id": 9001,
                               "started_at": "2026-11-30T10:00:00Z"}
    return Check(**{**base, **kw})  # type: ignore[arg-type]


def test_recent_failed_job_gets_an_exact_command_with_the_host_when_not_github_com() -> None:
    got = rerun_command(PRRef("acme", "widgets", 7, "ghe.example.com"), check(), NOW)
    assert got is not None
    assert shlex.split(got) == ["gh", "run", "rerun", "--job", "202", "--repo", "ghe.example.com/acme/widgets"]
    plain = rerun_command(PRRef("acme", "widgets", 7, "github.com"), check(), NOW)
    assert plain is not None and shlex.split(plain)[-1] == "acme/widgets"


def test_no_command_where_github_would_refuse_or_nothing_can_be_rerun() -> None:
    ref = PRRef("acme", "widgets", 7, None)
    assert rerun_command(ref, check(started_at="2026-10-31T11:59:00Z"), NOW) is None  # over 30 days
    assert rerun_command(ref, check(started_at="2026-11-01T12:01:00Z"), NOW) is not None  # just inside
    assert rerun_command(ref, check(bucket="pending", state="IN_PROGRESS"), NOW) is None
    assert rerun_command(ref, check(run_id=None), NOW) is None
    assert rerun_command(ref, check(check_run_id=None), NOW) is None
    assert rerun_command(ref, check(started_at=None, completed_at=None), NOW) is None
    assert rerun_command(ref, check(started_at="yesterday"), NOW) is None
