"""Environment and API failures: each a typed error with its exit code (CLI) and envelope (MCP)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import orjson

from tests.e2e.test_mcp import mcp_session
from tests.e2e.worlds import feedback_world


def envelope(proc: Any) -> dict[str, Any]:
    return orjson.loads(proc.stdout)["error"]


def test_not_logged_in(agent) -> None:
    a = agent(feedback_world())
    env = a.env()
    for name in ("GH_TOKEN", "GH_HOST", "GITHUB_TOKEN"):
        env.pop(name, None)
    proc = a.cli("comments", "acme/widgets#7", "--json", env=env)
    assert proc.returncode == 4, proc.stderr
    err = envelope(proc)
    assert err["code"] == "gh_not_authenticated" and err["repair"] == {"command": "gh auth login"}
    assert "gh auth login" in proc.stderr


def test_rejected_token(agent) -> None:
    a = agent(feedback_world())
    proc = a.cli("comments", "acme/widgets#7", env=a.env(GH_TOKEN="bad-token"))
    assert proc.returncode == 4 and "auth_failed" in proc.stderr


def test_gh_missing_and_too_old(agent, tmp_path: Path) -> None:
    a = agent(feedback_world())
    missing = a.cli("comments", "acme/widgets#7", "--json", env=a.env(GH_PR_AGENT_GH="", PATH="/nonexistent"))
    assert missing.returncode == 3 and envelope(missing)["code"] == "gh_not_found"
    old = tmp_path / "old" / "gh"
    old.parent.mkdir()
    old.write_text("#!/bin/sh\necho 'gh version 2.0.0 (2021-08-23)'\n", encoding="utf-8")
    old.chmod(old.stat().st_mode | stat.S_IEXEC)
    too_old = a.cli("comments", "acme/widgets#7", "--json", env=a.env(GH_PR_AGENT_GH=str(old)))
    assert too_old.returncode == 3 and envelope(too_old)["code"] == "gh_too_old"

    async def body(c: Any) -> Any:
        return await c.call_tool("find_unresolved_comments", {"pr": "acme/widgets#7"})

    result = mcp_session(a, body, env=a.env(GH_PR_AGENT_GH=str(old)))
    assert result.is_error and result.structured_content["error"]["code"] == "gh_too_old"


def test_pr_and_repo_not_found(agent) -> None:
    a = agent(feedback_world())
    proc = a.cli("comments", "acme/widgets#404", "--json")
    assert proc.returncode == 3 and envelope(proc)["code"] == "pr_not_found"
    proc = a.cli("comments", "acme/nope#1", "--json")
    assert proc.returncode == 3 and envelope(proc)["code"] == "pr_not_found"
    proc = a.cli("comments", "what?")
    assert proc.returncode == 2 and "invalid_pr_reference" in proc.stderr


def test_rate_limits(agent) -> None:
    from tests.fakehub import Fault

    a = agent(feedback_world())
    a.hub.add_fault(Fault(match="graphql", kind="primary_rate_limit", times=5))
    proc = a.cli("comments", "acme/widgets#7", "--json")
    err = envelope(proc)
    assert proc.returncode == 3 and err["code"] == "rate_limited" and err["temporary"] is True
    assert err["retry_after_ms"] and err["retry_after_ms"] > 0

    b = agent(feedback_world())
    b.hub.add_fault(Fault(match="graphql", kind="graphql_rate_limited", times=5))
    err = envelope(b.cli("comments", "acme/widgets#7", "--json"))
    assert err["code"] == "rate_limited" and err["retry_after_ms"] is not None


def test_transient_failures_are_retried_for_reads(agent) -> None:
    from tests.fakehub import Fault

    a = agent(feedback_world())
    a.hub.add_fault(Fault(match="graphql", status=500, times=1))
    a.hub.add_fault(Fault(match="graphql", kind="secondary_rate_limit", headers={"retry-after": "1"}, times=1))
    out = a.json("comments", "acme/widgets#7")
    assert out["total_unresolved"] == 9
    assert a.hub.request_count == 3  # two failures, then the answer


def test_not_in_a_clone_and_no_repo(agent) -> None:
    a = agent(feedback_world())
    proc = a.cli("comments", "7", "--json")
    assert proc.returncode == 2 and envelope(proc)["code"] == "repository_not_determined"
    ok = a.json("comments", "7", "--repo", "acme/widgets")
    assert ok["pr"] == "acme/widgets#7"
    env = a.env(GH_REPO="acme/widgets")
    assert a.cli("comments", "7", env=env).returncode == 0


def test_hung_request_times_out(agent) -> None:
    from tests.fakehub import Fault

    a = agent(feedback_world())
    a.hub.add_fault(Fault(match="graphql", kind="hang", delay_s=6, times=1))
    proc = a.cli("comments", "acme/widgets#7", "--json", env=a.env(GH_PR_AGENT_TIMEOUT="2"))
    err = envelope(proc)
    assert proc.returncode == 3 and err["code"] == "timeout" and err["temporary"] is True


def test_current_branch_pr_in_a_clone(agent, tmp_path: Path) -> None:
    import subprocess

    a = agent(feedback_world())
    clone = tmp_path / "clone"
    clone.mkdir()
    for args in (["init", "-q", "-b", "feature-7"], ["remote", "add", "origin", "https://github.localhost/acme/widgets.git"]):
        subprocess.run(["git", *args], cwd=clone, check=True)
    out = a.json("comments", cwd=clone)
    assert out["pr"] == "acme/widgets#7"
    assert a.json("comments", "8", cwd=clone)["pr"] == "acme/widgets#8"
    subprocess.run(["git", "checkout", "-q", "-b", "no-pr-here"], cwd=clone, check=True)
    proc = a.cli("comments", "--json", cwd=clone)
    assert proc.returncode == 3 and envelope(proc)["code"] == "no_pr_for_branch"


def test_current_branch_pr_prefers_the_open_pr_of_a_reused_branch_name(agent, tmp_path: Path) -> None:
    """Branch names are reused: with no PR argument the open PR of the branch is meant, even when a closed or
    merged PR of the same name is newer; with none open, the newest one (gh's own choice in `gh pr view`)."""
    import subprocess

    from tests.e2e.worlds import pr, world

    pulls = [
        pr(20, [], head_ref="reused", state="OPEN", created_at="2026-01-01T00:00:00Z"),
        pr(21, [], head_ref="reused", state="CLOSED", created_at="2026-02-01T00:00:00Z"),
        pr(22, [], head_ref="reused", state="MERGED", created_at="2025-12-01T00:00:00Z"),
        pr(30, [], head_ref="old", state="CLOSED", created_at="2026-01-01T00:00:00Z"),
        pr(31, [], head_ref="old", state="MERGED", created_at="2026-03-01T00:00:00Z"),
        pr(32, [], head_ref="old", state="CLOSED", created_at="2026-02-01T00:00:00Z"),
    ]
    a = agent(world(*pulls))
    clone = tmp_path / "clone"
    clone.mkdir()
    for args in (["init", "-q", "-b", "reused"], ["remote", "add", "origin", "https://github.localhost/acme/widgets.git"]):
        subprocess.run(["git", *args], cwd=clone, check=True)
    assert a.json("comments", cwd=clone)["pr"] == "acme/widgets#20"
    subprocess.run(["git", "checkout", "-q", "-b", "old"], cwd=clone, check=True)
    assert a.json("comments", cwd=clone)["pr"] == "acme/widgets#31"
