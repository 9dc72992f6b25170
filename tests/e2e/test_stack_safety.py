"""Stack tools with hostile branch names, refused names, and over MCP (results checked against outputSchema)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_mcp import mcp_session
from tests.e2e.test_stack import assert_on_top, cmds, run_plan, squashed

EVIL_B = "b/$(touch${IFS}PWNED)"
EVIL_D = "d/`touch${IFS}PWNED2`;echo'q'&x|y>z"


def test_hostile_branch_names_stay_data(agent, tmp_path: Path) -> None:
    repo = StackRepo(tmp_path / "repo")
    repo.branch_commits(EVIL_B, "main", 3, "b.txt", "feature-b")
    repo.branch_commits(EVIL_D, EVIL_B, 2, "d.txt", "feature-d")
    repo.open_pr(11, EVIL_B, "main")
    repo.open_pr(12, EVIL_D, EVIL_B)
    repo.user_clone(EVIL_D, checkout="main")
    repo.squash_merge(11, delete=False)
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    assert out["rebase_strategy"]["recommended"] == "onto"
    assert any(shlex.quote(EVIL_D) in c for c in cmds(out))  # quoted, never spliced raw
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, EVIL_D, "main", ["feature-d: step 1", "feature-d: step 2"], ["d.txt"])
    assert a.hub.world.pull_request("acme/widgets", 12)["base_ref"] == "main"
    assert not [p for p in tmp_path.rglob("PWNED*")] and not (a.home / "PWNED").exists()


def _dash_world() -> dict[str, Any]:
    return {"viewer": {"login": "octocat"}, "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": [
        {"number": 40, "head_ref": "-rf", "base_ref": "main"},
        {"number": 41, "head_ref": "feature-x", "base_ref": "-rf"}]}]}


def test_branch_names_starting_with_a_dash_are_refused(agent) -> None:
    a = agent(_dash_world())
    proc = a.cli("stack", "acme/widgets#40", "acme/widgets#41", "--json")
    assert proc.returncode == 3
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "unsafe_branch_name" and err["details"]["name"] == "-rf"
    proc = a.cli("stack", "acme/widgets#40", "acme/widgets#41", "--onto-base", "--force", "--json")
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["code"] == "invalid_arguments"


def test_stack_tools_over_mcp(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    a = agent({**repo.scenario(), "repositories": [
        {**repo.scenario()["repositories"][0],
         "pull_requests": [*repo.scenario()["repositories"][0]["pull_requests"], *_dash_world()["repositories"][0][
             "pull_requests"]]}]})

    async def body(c: Any) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        return {"tools": tools,
                "stack": await c.call_tool("manage_stacked_prs", {"base_pr": "acme/widgets#11",
                                                                   "dependent_pr": "acme/widgets#12",
                                                                   "auto_fix": False}),
                "rebase": await c.call_tool("rebase_after_squash_merge", {"pr": "acme/widgets#12"}),
                "dash": await c.call_tool("manage_stacked_prs", {"base_pr": "acme/widgets#40",
                                                                  "dependent_pr": "acme/widgets#41"}),
                "extra": await c.call_tool("rebase_after_squash_merge", {"pr": "acme/widgets#12", "force": True})}

    async def with_ci_step(c: Any) -> dict[str, Any]:
        out = await body(c)
        [wait] = [s for s in out["stack"].structured_content["commands"] if s["type"] == "ci_wait"]
        out["ci_step"], out["ci"] = wait, await c.call_tool(wait["tool"], wait["arguments"])  # the step, executed
        return out

    got = mcp_session(a, with_ci_step, env=a.env(GH_PR_AGENT_MCP_WAIT_LIMIT="1"))
    # over MCP the CI-wait step is our tool's call, as data; executed as given it answers (no CI here: pending)
    assert got["ci_step"]["tool"] == "get_failing_tests"
    assert got["ci_step"]["arguments"] == {"pr": "acme/widgets#12", "wait": True}
    assert "gh pr-agent" not in got["ci_step"]["command"] and "--wait" not in got["ci_step"]["command"]
    ci = got["ci"]
    assert ci.is_error is False and ci.structured_content["pr"] == "acme/widgets#12"
    assert ci.structured_content["status"] == "unknown"  # this world has no CI: nothing ever reported
    tools = got["tools"]
    for name in ("manage_stacked_prs", "rebase_after_squash_merge"):
        assert tools[name].annotations.read_only_hint is True and tools[name].annotations.destructive_hint is False
        assert tools[name].input_schema["additionalProperties"] is False
    for key, name in (("stack", "manage_stacked_prs"), ("rebase", "rebase_after_squash_merge")):
        result = got[key]
        assert result.is_error is False, result
        jsonschema.validate(result.structured_content, tools[name].output_schema)
    stack = got["stack"].structured_content
    assert stack["merge_method"] == "squash" and stack["automation"] == {"enabled": False, "status": "not_started"}
    assert not any(c["type"] == "fix" for c in stack["commands"])
    assert got["rebase"].structured_content["strategy"]["recommended"] == "onto"
    assert got["dash"].is_error and got["dash"].structured_content["error"]["code"] == "unsafe_branch_name"
    assert got["extra"].is_error and got["extra"].structured_content["error"]["code"] == "invalid_arguments"


def test_upstream_commits_are_paged_with_a_cursor(agent, tmp_path: Path) -> None:
    repo = squashed(tmp_path, 2, delete=True)
    repo.checkout("main")
    for i in range(55):
        repo.commit(f"main {i}")
    repo.push("main")
    a = agent(repo.scenario())
    first = a.json("stack", "11", "12", cwd=repo.clone)
    assert first["change_summary"]["new_commits_in_base"] == 57 and len(first["change_summary"]["commits"]) == 50
    second = a.json("stack", "11", "12", "--cursor", first["nextCursor"], cwd=repo.clone)
    assert [c["message"] for c in second["change_summary"]["commits"]] == [
        "main 4", "main 3", "main 2", "main 1", "main 0", "PR 11 (#11)", "Unrelated change on main"]
    assert "nextCursor" not in second and second["commands"] == first["commands"]
    other = a.cli("stack", "11", "12", "--onto-base", "main", "--cursor", first["nextCursor"], "--json",
                  cwd=repo.clone)
    assert other.returncode == 2 and json.loads(other.stdout)["error"]["code"] == "cursor_mismatch"


def _remote_refs(repo: StackRepo) -> dict[str, str]:
    out = repo.git(repo.origin, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split(" ", 1) for line in out.splitlines())


@pytest.mark.parametrize(("b", "d"), [("+base", "+main"), ("heads/main", "+refs/heads/main"),
                                      ("origin/main", "@main")])
def test_plus_and_ref_like_branch_names_push_only_their_own_branch(agent, tmp_path: Path, b: str, d: str) -> None:
    """Legal but odd names (git allows `+main`): the plan executed for real rewrites exactly the dependent's
    branch on the remote. A stale local `main` is never force-pushed over the remote default branch (the
    `+main` refspec would do that), and no other remote ref moves."""
    repo = StackRepo(tmp_path / "repo")
    repo.branch_commits(b, "main", 2, "b.txt", "feature-b")
    repo.branch_commits(d, b, 2, "d.txt", "feature-d")
    repo.open_pr(11, b, "main")
    repo.open_pr(12, d, b)
    repo.user_clone(d, checkout="main")  # the user's local main is now stale: the squash lands after
    repo.squash_merge(11, delete=False)
    stale_main = repo.git(repo.clone, "rev-parse", "refs/heads/main")
    assert stale_main != repo.tip("main")
    before = _remote_refs(repo)
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    pushes = [c for c in cmds(out) if c.startswith("git push")]
    assert pushes and all(shlex.split(p)[-1] == f"refs/heads/{d}:refs/heads/{d}" for p in pushes), pushes
    run_plan(a, out["commands"], repo.clone)
    after = _remote_refs(repo)
    changed = {r for r in set(before) | set(after) if before.get(r) != after.get(r)}
    assert changed == {f"refs/heads/{d}"}, changed
    assert after["refs/heads/main"] == before["refs/heads/main"] != stale_main
    assert_on_top(repo, d, "main", ["feature-d: step 1", "feature-d: step 2"], ["d.txt"])
