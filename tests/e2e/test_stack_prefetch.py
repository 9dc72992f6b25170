"""The stack tools' round trips: the first query prefetches the target branch's tip, the landed commit's
history and the repository's open PRs, so a whole stack is answered in one GraphQL request. When the open
listing is longer than one page, the tools fall back to one lookup per stack level, and the plan they emit
is the same (executed verbatim in a real clone here too). A listing cut at its limit is said in warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import OWN_D, assert_on_top, cmds, run_plan, stack_b_d, three_stack


def with_fillers(scenario: dict[str, Any], count: int, base: str, sha: str, first: int = 100) -> dict[str, Any]:
    """`count` more open PRs based on `base` (heads that no stack here uses), numbered from `first`."""
    prs = scenario["repositories"][0]["pull_requests"]
    prs += [{"number": first + i, "title": f"filler {i}", "author": "octocat", "head_ref": f"filler-{i}",
             "base_ref": base, "head_sha": sha, "base_sha": sha, "commits": []} for i in range(count)]
    return scenario


def operations(agent: Any) -> list[str | None]:
    return [r.operation for r in agent.hub.find_requests(path="/graphql")]


def assert_restacked(repo: StackRepo) -> None:
    assert repo.subjects("refs/heads/main..refs/heads/feature-b") == ["feature-b: step 1", "feature-b: step 2"]
    assert repo.subjects("refs/heads/feature-b..refs/heads/feature-c") == [f"feature-c: step {i}" for i in (1, 2, 3)]
    assert repo.git(repo.origin, "merge-base", "refs/heads/main", "refs/heads/feature-b") == repo.tip("main")


def test_a_squash_merged_stack_is_one_query(agent, tmp_path: Path) -> None:
    repo = three_stack(tmp_path)
    a = agent(repo.scenario())
    out = a.json("stack", "21", "22", cwd=repo.clone)
    assert operations(a) == ["StackPulls"] and a.hub.request_count == 1
    assert out["merge_method"] == "squash"  # 4 commits: decided on the prefetched history of the landed commit
    assert [e["role"] for e in out["stack_info"]["chain"]] == ["base", "dependent", "above"]
    assert out["warnings"] == []
    a.hub.reset_counters()
    after = a.json("rebase-after-squash", "22", "--upstream", "21", cwd=repo.clone)
    assert operations(a) == ["StackPulls"]
    rebases = [c for c in cmds(out) if c.startswith("git rebase")]
    assert len(rebases) == 2 and [c for c in cmds(after) if c.startswith("git rebase")] == rebases
    run_plan(a, out["commands"], repo.clone)
    assert_restacked(repo)


def test_without_upstream_the_upstream_lookup_is_the_only_extra_query(agent, tmp_path: Path) -> None:
    repo = three_stack(tmp_path)
    a = agent(repo.scenario())
    out = a.json("rebase-after-squash", "22", cwd=repo.clone)
    assert out["upstream_pr"] == "acme/widgets#21"
    assert operations(a) == ["StackPull", "StackByHead"]  # the PR (+ open PRs, target tip), then #21 by head


def test_more_open_prs_than_one_page_fall_back_to_level_lookups_with_the_same_plan(agent, tmp_path: Path) -> None:
    repo = three_stack(tmp_path)
    quick = agent(repo.scenario()).json("stack", "21", "22", cwd=repo.clone)
    a = agent(with_fillers(repo.scenario(), 101, "main", repo.tip("main")))
    out = a.json("stack", "21", "22", cwd=repo.clone)
    # the listing has a next page: the PRs above #22 are looked up level by level (feature-b, then feature-c), and
    # the PRs GitHub may have retargeted to main when #21's branch was deleted (siblings of #22: two pages of main)
    assert operations(a) == ["StackPulls", "StackChildren", "StackChildren", "StackChildren", "StackChildren"]
    assert cmds(out) == cmds(quick) and out["stack_info"] == quick["stack_info"] and out["warnings"] == []
    run_plan(a, out["commands"], repo.clone)
    assert_restacked(repo)


def test_every_pr_stacked_on_the_base_is_named_and_a_cut_listing_says_so(agent, tmp_path: Path) -> None:
    repo = stack_b_d(tmp_path, 2)
    b = repo.tip("feature-b")
    a = agent(with_fillers(repo.scenario(), 60, "feature-b", b))  # 62 open PRs: one page, no cap
    out = a.json("stack", "acme/widgets#11", "acme/widgets#12")
    assert operations(a) == ["StackPulls"]
    also = next(c for c in out["rebase_strategy"]["considerations"] if c.startswith("Also stacked on #11"))
    assert also.count("#") == 1 + 60 and "#159" in also and out["warnings"] == []

    a = agent(with_fillers(repo.scenario(), 210, "feature-b", b))  # 212 open: level lookups, paged to 200
    out = a.json("stack", "acme/widgets#11", "acme/widgets#12")
    assert operations(a) == ["StackPulls", "StackChildren", *["StackChildren"] * 3]
    assert out["warnings"] == ["Only the 200 oldest of the 211 open PRs based on 'feature-b' were read; PRs "
                               "stacked there beyond them are not in this answer."]
    also = next(c for c in out["rebase_strategy"]["considerations"] if c.startswith("Also stacked on #11"))
    assert also.count("#") == 1 + 199  # the 200 read, less #12 itself


def test_onto_base_tip_comes_with_the_first_query(agent, tmp_path: Path) -> None:
    repo = stack_b_d(tmp_path, 2)
    repo.user_clone("feature-d", checkout="feature-d")
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", "--onto-base", "main", cwd=repo.clone)  # drop #11's commits from #12
    assert operations(a) == ["StackPulls"]
    assert f"git rebase --onto refs/remotes/origin/main {repo.prs[11]['head_sha']} feature-d" in cmds(out)
    run_plan(a, out["commands"], repo.clone)
    assert_on_top(repo, "feature-d", "main", OWN_D, ["d.txt"])
    assert a.hub.world.pull_request("acme/widgets", 12)["base_ref"] == "main"
    a.hub.reset_counters()
    proc = a.cli("stack", "11", "12", "--onto-base", "no-such-branch", "--json", cwd=repo.clone)
    assert proc.returncode != 0 and orjson.loads(proc.stdout)["error"]["code"] == "ref_not_found"
    assert operations(a) == ["StackPulls"]  # the branch's absence is part of the first answer
