"""One fault-free call of every tool, and the worlds that make it succeed: the rows of the safety matrices.

``TOOL_CASES`` is the single list the fault matrix, the REST-fault matrix, the environment matrix and the
canary test iterate over; a tool that lands later adds its row here (docs/adding-a-tool.md). Worlds are
built lazily (the stacked-PR world needs real git commits) and copied for every hub.
"""

from __future__ import annotations

import atexit
import copy
import functools
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tests.e2e.ci_worlds import annotated_world, failing_world
from tests.e2e.conftest import ROOT, Agent
from tests.e2e.merge_worlds import readiness_world
from tests.e2e.worlds import feedback_world

PINNED_GH = str(Path(sys.executable).parent / "gh")  # one gh for the big matrices (CI time); e2e covers both
# generous per-call timeout (a loaded CI machine must not turn a slow answer into a fault); hang faults use HANG_ENV
FAST_ENV = {"GH_PR_AGENT_TIMEOUT": "20", "GH_PR_AGENT_MERGEABLE_WAIT": "0.4", "GH_PR_AGENT_POLL_INTERVAL": "0.2",
            "GH_PR_AGENT_NO_CHECKS_GRACE": "1"}
HANG_ENV = {"GH_PR_AGENT_TIMEOUT": "2"}  # with Fault(kind="hang", delay_s=6): the request outlives the timeout
HOST = "github.localhost"


@dataclass(frozen=True)
class ToolCase:
    tool: str                 # MCP name
    args: tuple[str, ...]     # CLI arguments (full PR references: no clone needed)
    world: str                # key of WORLDS
    ok_exit: int              # exit code of the fault-free call (1 for checks: the world has failing tests)
    mcp_args: tuple[tuple[str, Any], ...]
    bare_args: tuple[str, ...]  # the same call with bare numbers (needs a repository: clone, --repo or GH_REPO)
    url_args: tuple[str, ...]   # the same call with full URLs naming the host

    @property
    def cli(self) -> str:
        return self.args[0]

    def arguments(self) -> dict[str, Any]:
        return dict(self.mcp_args)


def _url(n: int) -> str:
    return f"https://{HOST}/acme/widgets/pull/{n}"


TOOL_CASES: list[ToolCase] = [
    ToolCase("find_unresolved_comments", ("comments", "acme/widgets#7"), "feedback", 0,
             (("pr", "acme/widgets#7"),), ("comments", "7"), ("comments", _url(7))),
    ToolCase("resolve_review_thread", ("resolve", "acme/widgets#7", "--thread", "PRRT_human"), "feedback", 0,
             (("pr", "acme/widgets#7"), ("thread_id", "PRRT_human")), ("resolve", "7", "--thread", "PRRT_human"),
             ("resolve", _url(7), "--thread", "PRRT_human")),
    ToolCase("get_failing_tests", ("checks", "acme/widgets#7"), "ci", 1, (("pr", "acme/widgets#7"),),
             ("checks", "7"), ("checks", _url(7))),
    ToolCase("check_merge_readiness", ("ready", "acme/widgets#1"), "readiness", 0, (("pr", "acme/widgets#1"),),
             ("ready", "1"), ("ready", _url(1))),
    ToolCase("detect_merge_conflicts", ("conflicts", "acme/widgets#1"), "readiness", 0,
             (("pr", "acme/widgets#1"),), ("conflicts", "1"), ("conflicts", _url(1))),
    ToolCase("manage_stacked_prs", ("stack", "acme/widgets#11", "acme/widgets#12"), "stack", 0,
             (("base_pr", "acme/widgets#11"), ("dependent_pr", "acme/widgets#12")), ("stack", "11", "12"),
             ("stack", _url(11), _url(12))),
    ToolCase("rebase_after_squash_merge", ("rebase-after-squash", "acme/widgets#12"), "stack", 0,
             (("pr", "acme/widgets#12"),), ("rebase-after-squash", "12"), ("rebase-after-squash", _url(12))),
]
CASES = {c.tool: c for c in TOOL_CASES}
IDS = [c.tool for c in TOOL_CASES]


@functools.cache
def _scratch() -> Path:
    path = Path(tempfile.mkdtemp(prefix="pr-agent-safety-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@functools.cache
def _stack_world() -> dict[str, Any]:
    """main <- #11 feature-b (2 commits) <- #12 feature-d; #11 squash-merged, its branch deleted, #12 retargeted."""
    from tests.e2e.test_stack import squashed

    return squashed(_scratch() / "stack", 2, delete=True).scenario()


SCAN_RULESET = {"id": 5, "name": "scan", "rules": [{"type": "required_status_checks", "parameters": {
    "required_status_checks": [{"context": "security-scan"}], "strict_required_status_checks_policy": False}}]}


def ruleset_ci_world() -> dict[str, Any]:
    """failing_world, and a ruleset on main requiring `security-scan`, which never reported (pending)."""
    w = failing_world()
    w["repositories"][0]["branch_rules"] = {"main": {"rulesets": [SCAN_RULESET]}}
    return w


WORLDS: dict[str, Any] = {
    "feedback": feedback_world,
    "ci": failing_world,
    "ci_rules": ruleset_ci_world,
    "ci_annotated": annotated_world,
    "readiness": readiness_world,
    "stack": _stack_world,
}


def world(key: str) -> dict[str, Any]:
    """A fresh copy of a world (fakehub may change the one it serves)."""
    return copy.deepcopy(WORLDS[key]())


def pinned_gh() -> str:
    found = PINNED_GH if Path(PINNED_GH).exists() else shutil.which("gh")
    assert found, "no gh binary"
    return found


def agent_for(make_hub: Any, key: str, home: Path, **hub_kw: Any) -> Agent:
    return Agent(make_hub(world(key), **hub_kw), pinned_gh(), home)


def run_json(agent: Agent, args: tuple[str, ...] | list[str], **env: str) -> tuple[int, Any, str]:
    """Run one CLI call with --json: (exit code, parsed stdout, stderr). Fails on a traceback or non-JSON."""
    proc = agent.cli(*args, "--json", env=agent.env(**{**FAST_ENV, **env}))
    assert "Traceback" not in proc.stderr, proc.stderr
    try:
        data = orjson.loads(proc.stdout)
    except orjson.JSONDecodeError:
        raise AssertionError(f"--json output is not JSON (exit {proc.returncode}): {proc.stdout[:300]!r} "
                             f"{proc.stderr[-300:]!r}") from None
    return proc.returncode, data, proc.stderr


_baselines: dict[tuple[str, str], Any] = {}


def baseline(make_hub: Any, case: ToolCase, home: Path, world_key: str | None = None) -> Any:
    """The fault-free answer of a call (once per worker process)."""
    key = (case.tool, world_key or case.world)
    if key not in _baselines:
        code, data, err = run_json(agent_for(make_hub, key[1], home), case.args)
        assert code == case.ok_exit and "error" not in data, err
        _baselines[key] = data
    return _baselines[key]


def failures_key(out: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["check_name"], f["test_name"]) for f in out.get("failures", []))


__all__ = ["CASES", "FAST_ENV", "IDS", "ROOT", "TOOL_CASES", "ToolCase", "agent_for", "baseline", "failures_key",
           "pinned_gh", "run_json", "world"]
