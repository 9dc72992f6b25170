"""Ambiguous writes (issue 18 item 7) and gh's URL-parse errors (item 8), through real gh and fakehub.

A write whose answer is lost (cut off, timed out) may have been applied: the error says so (``maybe_applied``,
``temporary``, the thread's URL) and calling again is safe. A mutation whose data shows success is a success, even
with partial GraphQL errors beside it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh
from pr_agent.hosts import HostPolicy
from tests.e2e.conftest import Agent
from tests.fakehub import Fault
from tests.safety.worlds import HANG_ENV, pinned_gh, world

RESOLVE = ("resolve", "acme/widgets#7", "--thread", "PRRT_human")


def _agent(make_hub, tmp_path: Path) -> Agent:
    return Agent(make_hub(world("feedback")), pinned_gh(), tmp_path / "home")


def test_partial_errors_beside_a_resolved_thread_are_a_success(make_hub, tmp_path: Path) -> None:
    a = _agent(make_hub, tmp_path)
    a.hub.add_fault(Fault(match="graphql:ResolveThread", kind="graphql_errors_partial", times=1))
    out = a.json(*RESOLVE)
    assert out["ok"] is True and out["alreadyResolved"] is False


@pytest.mark.parametrize("fault,env,code", [
    (Fault(match="graphql:ResolveThread", kind="truncated_json", times=1), {}, "unexpected_response"),
    (Fault(match="graphql:ResolveThread", kind="hang", delay_s=6, times=1), HANG_ENV, "timeout"),
], ids=["cut_off", "timed_out"])
def test_a_lost_resolve_answer_says_it_may_have_been_applied(make_hub, tmp_path: Path, fault, env, code) -> None:
    a = _agent(make_hub, tmp_path)
    a.hub.add_fault(fault)
    proc = a.cli(*RESOLVE, "--json", env=a.env(**env))
    err = orjson.loads(proc.stdout)["error"]
    assert proc.returncode == 3 and err["code"] == code and err["temporary"] is True, err
    assert err["details"]["maybe_applied"] is True and err["details"]["thread_url"].startswith("https://")
    assert "may have been resolved" in err["message"]
    assert len([r for r in a.hub.requests if r.operation == "ResolveThread"]) == 1  # never re-sent
    again = a.json(*RESOLVE)  # it was applied (fakehub served it before the answer was lost): calling again is safe
    assert again["ok"] is True


def test_a_lost_reply_answer_says_it_may_have_been_posted_and_is_not_posted_twice(make_hub, tmp_path: Path) -> None:
    a = _agent(make_hub, tmp_path)
    a.hub.add_fault(Fault(match="graphql:ReplyToThread", kind="truncated_json", times=1))
    proc = a.cli(*RESOLVE, "--reply", "Fixed in abc123.", "--json")
    err = orjson.loads(proc.stdout)["error"]
    assert err["code"] == "unexpected_response" and err["temporary"] is True and err["details"]["maybe_applied"]
    assert "reply may have been posted" in err["message"]
    out = a.json(*RESOLVE, "--reply", "Fixed in abc123.")
    assert out["ok"] is True
    assert len([r for r in a.hub.requests if r.operation == "ReplyToThread"]) == 1  # the lost one counted


def test_gh_url_parse_errors_are_typed_and_not_retried(gh_path: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GH_PR_AGENT_GH", gh_path)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GH_CONFIG_DIR": str(tmp_path), "GH_TOKEN": "x",
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    gh = Gh(base_env=env, host_policy=HostPolicy({}, logged_in=lambda: ["a b.example"]), sleep=lambda s: None)
    with pytest.raises(PrAgentError) as err:
        gh.rest("GET", "user", hostname="a b.example")
    assert err.value.code == "invalid_arguments" and err.value.temporary is False
    assert "in host name" in err.value.details["gh_stderr"] and gh.calls == 1
