"""Every tool, successes and errors, through the TypeScript MCP SDK's own Client (the one under Claude Code, VS
Code, Cursor and the MCP Inspector) and through the Python SDK's Client: the TS client validates
structuredContent against the tool's outputSchema on error results too and throws -32602 when it does not
match, so this is where an error envelope could get lost.

The SDK comes from npm, pinned in tests/e2e/ts_client/package-lock.json, installed once into .venv/ts-client
(ignored by git) with `npm ci`. Needs node and npm (CI has both)."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import orjson

from tests.e2e.test_mcp import mcp_session
from tests.e2e.test_stack import squashed
from tests.e2e.worlds import feedback_world

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests/e2e/ts_client"
CACHE = ROOT / ".venv/ts-client"
FILES = ("package.json", "package-lock.json", "client.mjs")


def ts_client() -> Path:
    """The installed client script (npm ci on first use, or when the pinned files changed)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are needed for the TypeScript-client test"
    fresh = (CACHE / "node_modules/@modelcontextprotocol/sdk/package.json").exists() and all(
        (CACHE / f).exists() and filecmp.cmp(SOURCE / f, CACHE / f, shallow=False) for f in FILES)
    if not fresh:
        CACHE.mkdir(parents=True, exist_ok=True)
        for f in FILES:
            shutil.copy(SOURCE / f, CACHE / f)
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CACHE,
                              capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
    return CACHE / "client.mjs"


def run_ts(plan: dict[str, Any], tmp: Path) -> dict[str, Any]:
    script = ts_client()
    path = tmp / "plan.json"
    path.write_bytes(orjson.dumps(plan))
    proc = subprocess.run(["node", str(script), str(path)], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return orjson.loads(proc.stdout)


PR = "acme/widgets#7"
CALLS: list[tuple[str, dict[str, Any], str | None]] = [  # tool, arguments, expected error code (None: success)
    ("find_unresolved_comments", {"pr": PR}, None),
    ("find_unresolved_comments", {"pr": PR, "verbose": True}, "invalid_arguments"),
    ("find_unresolved_comments", {"pr": "acme/widgets#404"}, "pr_not_found"),
    ("find_unresolved_comments", {"pr": PR, "cursor": "not-a-cursor"}, "invalid_cursor"),
    ("resolve_review_thread", {"pr": PR, "thread_id": "PRRT_human"}, None),
    ("resolve_review_thread", {"pr": PR, "comment_id": 999999}, "comment_not_found"),
    ("resolve_review_thread", {"pr": PR}, "invalid_arguments"),
    ("get_failing_tests", {"pr": PR}, None),
    ("get_failing_tests", {"pr": "widgets seven"}, "invalid_pr_reference"),
    ("get_failing_tests", {"pr": PR, "wait": "yes"}, "invalid_arguments"),
    ("check_merge_readiness", {"pr": PR}, None),
    ("check_merge_readiness", {"pr": "acme/nope#1"}, "pr_not_found"),
    ("detect_merge_conflicts", {"pr": PR}, None),
    ("detect_merge_conflicts", {"pr": PR, "repo_path": "/nonexistent/clone"}, "not_a_git_repository"),
    ("manage_stacked_prs", {"base_pr": "acme/widgets#11", "dependent_pr": "acme/widgets#12", "auto_fix": False},
     None),
    ("manage_stacked_prs", {"base_pr": "acme/widgets#11"}, "invalid_arguments"),
    ("rebase_after_squash_merge", {"pr": "acme/widgets#12"}, None),
    ("rebase_after_squash_merge", {"pr": "acme/widgets#12", "force": True}, "invalid_arguments"),
    ("no_such_tool", {}, "invalid_arguments"),
]


def _world(tmp: Path) -> dict[str, Any]:
    stack = squashed(tmp, 2, delete=True).scenario()
    repo = stack["repositories"][0]
    feedback = feedback_world()
    return {**feedback, **{k: v for k, v in stack.items() if k not in ("repositories", "viewer", "users")},
            "repositories": [{**repo, "pull_requests": [*feedback["repositories"][0]["pull_requests"],
                                                        *repo["pull_requests"]]}]}


def test_every_tool_succeeds_and_fails_readably_in_the_typescript_and_python_clients(one_agent, tmp_path: Path) -> None:
    a = one_agent(_world(tmp_path))
    plan = {"command": sys.executable, "args": ["-m", "pr_agent", "mcp"], "env": a.env(),
            "calls": [{"name": n, "arguments": args} for n, args, _ in CALLS]}
    ts = run_ts(plan, tmp_path)

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        return {"tools": tools, "calls": [await c.call_tool(n, args) for n, args, _ in CALLS]}

    py = mcp_session(a, body)
    assert sorted(ts["tools"]) == sorted(py["tools"]) and len(ts["tools"]) == 7
    assert ts["server"]["name"] == "gh-pr-agent"
    for (name, args, code), t, p in zip(CALLS, ts["calls"], py["calls"], strict=True):
        assert "thrown" not in t, (name, args, t)  # the TS SDK accepted the result (no -32602)
        result = t["result"]
        if code is None:
            assert result["isError"] is False, (name, result["content"][0]["text"][:500])
            assert p.is_error is False
            schema = py["tools"][name].output_schema
            jsonschema.validate(result["structuredContent"], schema)
            assert orjson.loads(result["content"][0]["text"]) == result["structuredContent"]
            continue
        err = result["structuredContent"]["error"]
        assert result["isError"] is True and err["code"] == code, (name, args, err)
        assert err["message"] and err["suggestion"] and "repair" in err
        assert result["content"][0]["text"].startswith(f"error [{code}]")
        assert p.is_error is True and p.structured_content["error"]["code"] == code  # the Python client alike
        if name in py["tools"]:
            jsonschema.validate(result["structuredContent"], py["tools"][name].output_schema)


def test_next_steps_over_mcp_are_tool_calls(one_agent, tmp_path: Path) -> None:
    """Over MCP no answer or error names our CLI (`gh pr-agent`, its flags or environment): our next steps are
    tool calls; the CLI answers the same calls with commands."""
    a = one_agent(_world(tmp_path))

    async def body(c: Any) -> list[Any]:
        return [await c.call_tool(n, args) for n, args, _ in CALLS if n != "resolve_review_thread"]

    results = mcp_session(a, body)
    texts = {n: orjson.dumps(r.structured_content).decode() + "".join(getattr(x, "text", "") for x in r.content)
             for (n, _, _), r in zip([c for c in CALLS if c[0] != "resolve_review_thread"], results, strict=True)}
    offenders = {n: t for n, t in texts.items() if "gh pr-agent" in t or "GH_REPO" in t}
    assert not offenders, {n: t[t.find("gh pr-agent") - 80:][:200] for n, t in offenders.items()}


def test_readiness_next_steps_speak_each_face(one_agent) -> None:
    from tests.e2e.merge_worlds import readiness_world

    a = one_agent(readiness_world())

    async def body(c: Any) -> list[Any]:
        return [(await c.call_tool("check_merge_readiness", {"pr": f"acme/widgets#{n}"})).structured_content
                for n in (3, 8)]

    pending, unresolved = mcp_session(a, body, env=a.env(GH_PR_AGENT_MERGEABLE_WAIT="0.4"))
    assert pending["next_action"]["command"] == 'call get_failing_tests with {"pr":"acme/widgets#3","wait":true}'
    assert unresolved["blocking_issues"][0]["command"] == 'call find_unresolved_comments with {"pr":"acme/widgets#8"}'
    got = a.cli("ready", "acme/widgets#3", "--json", env=a.env(GH_PR_AGENT_MERGEABLE_WAIT="0.4"))
    assert got.returncode == 8, got.stderr  # pending
    cli = orjson.loads(got.stdout)
    assert cli["next_action"]["command"] == "gh pr-agent checks 'acme/widgets#3' --wait"
    # run as given (through our module instead of the gh extension), with a short wait: CI there never finishes
    proc = a.shell(cli["next_action"]["command"].replace("gh pr-agent", f"{sys.executable} -m pr_agent", 1)
                   + " --timeout-seconds 1 --json", GH_PR_AGENT_POLL_INTERVAL="0.2")
    assert proc.returncode == 8 and orjson.loads(proc.stdout)["error"]["code"] == "wait_timeout", proc.stderr

