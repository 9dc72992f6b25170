"""Every tool × every fault fakehub can inject into GitHub's GraphQL API: success after bounded retries (reads)
or the right typed error with `temporary` and `retry_after_ms` — never a traceback, never non-JSON `--json`
output, never a partial answer presented as complete (a read that succeeds after a fault answers exactly what
the fault-free call answers). Writes are never retried blindly.

REST faults (job logs, branch rules, …) and faults on later pages are in test_rest_faults.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import Agent
from tests.fakehub import Fault
from tests.safety.worlds import HANG_ENV, IDS, TOOL_CASES, ToolCase, agent_for, baseline, pinned_gh, run_json, world

# (tool call) rows come from tests/safety/worlds.py:TOOL_CASES — every tool, each with a world it succeeds in.
TOOL_CALLS: list[tuple[str, list[str]]] = [(c.tool, list(c.args)) for c in TOOL_CASES]

# fault id -> (faults to add, expected outcome: "ok" or (code, temporary, wants retry_after))
FAULTS: dict[str, tuple[list[Fault], Any]] = {
    "500_once": ([Fault(match="graphql", status=500, times=1)], "ok"),
    "502_burst": ([Fault(match="graphql", status=502, times=10)], ("server_error", True, False)),
    "secondary_rate_limit": ([Fault(match="graphql", kind="secondary_rate_limit", headers={"retry-after": "1"},
                                    times=1)], "ok"),
    "primary_rate_limit": ([Fault(match="graphql", kind="primary_rate_limit", times=10)],
                           ("rate_limited", True, True)),
    "graphql_errors_partial": ([Fault(match="graphql", kind="graphql_errors_partial", times=10)],
                               ("graphql_error", False, False)),
    "graphql_rate_limited": ([Fault(match="graphql", kind="graphql_rate_limited", times=10)],
                             ("rate_limited", True, True)),
    "hang": ([Fault(match="graphql", kind="hang", delay_s=6, times=1)], ("timeout", True, False)),
    "truncated_once": ([Fault(match="graphql", kind="truncated_json", times=1)], "ok"),
    "truncated_always": ([Fault(match="graphql", kind="truncated_json", times=10)],
                         ("unexpected_response", True, False)),
    "disconnect_once": ([Fault(match="graphql", kind="disconnect", times=1)], "ok"),
    "disconnect_always": ([Fault(match="graphql", kind="disconnect", times=10)], ("network_error", True, False)),
    "404": ([Fault(match="graphql", status=404, body={"message": "Not Found"}, times=10)],
            (("pr_not_found", "not_found"), False, False)),
    "401": ([Fault(match="graphql", status=401, body={"message": "Bad credentials"}, times=10)],
            ("auth_failed", False, False)),
}


def assert_typed_error(code: int, data: dict[str, Any], outcome: tuple[Any, bool, bool]) -> None:
    expected, temporary, wants_retry_after = outcome
    assert code != 0
    err = data["error"]
    assert err["code"] in (expected if isinstance(expected, tuple) else (expected,)), err
    assert err["temporary"] is temporary, err
    assert (err["retry_after_ms"] is not None) == wants_retry_after, err
    assert err["suggestion"] and err["message"]


def comparable(out: Any) -> Any:
    """The answer without what legitimately differs between two identical calls."""
    if isinstance(out, dict):
        return {k: comparable(v) for k, v in out.items() if k not in ("waited_seconds", "nextCursor", "as_of")}
    if isinstance(out, list):
        return [comparable(v) for v in out]
    return out


@pytest.mark.parametrize("fault_id", sorted(FAULTS))
@pytest.mark.parametrize("case", TOOL_CASES, ids=IDS)
def test_tool_under_fault(make_hub, tmp_path: Path, case: ToolCase, fault_id: str) -> None:
    faults, outcome = FAULTS[fault_id]
    agent = agent_for(make_hub, case.world, tmp_path / "home")
    for fault in faults:
        agent.hub.add_fault(dataclasses.replace(fault, hits=0))  # a fresh copy per test
    code, data, err = run_json(agent, case.args, **(HANG_ENV if faults[0].kind == "hang" else {}))
    if outcome == "ok":
        assert code == case.ok_exit and "error" not in data, err
        # complete: exactly the fault-free answer, nothing silently missing
        assert comparable(data) == comparable(baseline(make_hub, case, tmp_path / "base"))
        return
    assert_typed_error(code, data, outcome)


def test_writes_are_not_retried_blindly_but_a_retry_is_safe(make_hub, tmp_path: Path) -> None:
    agent = Agent(make_hub(world("feedback")), pinned_gh(), tmp_path / "home")
    agent.hub.add_fault(Fault(match="graphql:ResolveThread", status=502, times=1))
    first = agent.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--json")
    assert first.returncode == 3 and orjson.loads(first.stdout)["error"]["code"] == "server_error"
    mutations = [r for r in agent.hub.requests if r.operation == "ResolveThread"]
    assert len(mutations) == 1  # the failed write was not re-sent
    again = agent.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")
    assert again["ok"] is True and again["alreadyResolved"] is False
    assert agent.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")["alreadyResolved"] is True


def test_a_lost_write_answer_is_not_retried(make_hub, tmp_path: Path) -> None:
    """The connection drops after the mutation was sent: one attempt only, a temporary typed error, and the
    retry the agent then makes is safe (resolving is idempotent)."""
    agent = Agent(make_hub(world("feedback")), pinned_gh(), tmp_path / "home")
    agent.hub.add_fault(Fault(match="graphql:ResolveThread", kind="disconnect", times=1))
    first = agent.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--json")
    err = orjson.loads(first.stdout)["error"]
    assert first.returncode == 3 and err["code"] == "network_error" and err["temporary"] is True
    assert len([r for r in agent.hub.requests if r.operation == "ResolveThread"]) == 1
    assert agent.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")["ok"] is True
