"""Issue 12 (1): the base PR was force-pushed after the dependent branched off it (commits dropped, reordered,
amended or rebased), then squash-merged or still open. The plan, executed verbatim in the user's clone, must push
exactly the dependent's own commits on top of the new base: a commit the base's author dropped never comes back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.stack_repos import StackRepo
from tests.e2e.test_stack import assert_on_top, cmds, run_plan


def _world(tmp: Path, branch_at: int, keep: list[int], rebase_base: bool) -> StackRepo:
    """main <- #11 feature-b (b1 b2 b3, each its own file) <- #12 feature-d (d1 d2) branched at b<branch_at>,
    before b<branch_at+1>.. were pushed; then #11 is force-pushed to the commits `keep` (1-based), optionally
    rebased onto a newer main."""
    repo = StackRepo(tmp / "repo")
    repo.checkout("feature-b", "main")
    b = [repo.commit(f"b{i}", {f"b{i}.txt": f"b{i}\n"}) for i in (1, 2, 3)]
    repo.a("checkout", "-q", "-B", "feature-b", b[branch_at - 1])
    repo.push("feature-b")
    repo.open_pr(11, "feature-b", "main")
    repo.checkout("feature-d", b[branch_at - 1])
    repo.commit("d1", {"d.txt": "d1\n"})
    repo.commit("d2", {"d.txt": "d1\nd2\n"})
    repo.push("feature-d")
    repo.open_pr(12, "feature-d", "feature-b")
    repo.a("checkout", "-q", "-B", "feature-b", b[2])
    repo.push("feature-b")  # the rest of #11 arrives after #12 branched off
    repo.refresh_pr(11)
    onto = None
    if rebase_base:
        repo.checkout("main")
        onto = repo.commit("main moved on", {"m.txt": "m\n"})
        repo.push("main")
    repo.force_push(11, [b[i - 1] for i in keep], onto=onto)
    repo.refresh_pr(12)
    return repo


CASES = {  # id -> (dependent branched at, commits kept by the force-push, rebased onto newer main)
    "dropped-b2-below-fork": (2, [1, 3], False),
    "dropped-b2-at-head": (3, [1, 3], False),
    "reordered-and-dropped": (2, [3, 1], False),
    "amended-rebased": (2, [1, 2, 3], True),
}


@pytest.mark.parametrize("merged", [True, False], ids=["squash-merged", "open"])
@pytest.mark.parametrize("case", list(CASES))
def test_rewritten_base_plan_replays_only_the_dependents_commits(agent, tmp_path: Path, case: str,
                                                                  merged: bool) -> None:
    branch_at, keep, rebase_base = CASES[case]
    repo = _world(tmp_path, branch_at, keep, rebase_base)
    repo.user_clone("feature-d", checkout="main")
    if merged:
        repo.squash_merge(11, delete=False)
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    strat = out["rebase_strategy"]
    assert strat["recommended"] == "onto", strat
    assert "#12's own 2 commit(s)" in strat["reason"], strat["reason"]
    assert "same result as --onto" not in strat["reason"]
    run_plan(a, out["commands"], repo.clone)
    new_base = "main" if merged else "feature-b"
    assert_on_top(repo, "feature-d", new_base, ["d1", "d2"], ["d.txt"])
    dropped = {f"b{i}.txt" for i in (1, 2, 3)} - {f"b{i}.txt" for i in keep}
    tree = set(repo.git(repo.origin, "ls-tree", "--name-only", "refs/heads/feature-d").split())
    assert not (dropped & tree), (dropped, tree)  # what the base's author dropped stays dropped
    assert any(c.startswith("git push") for c in cmds(out))


def test_without_a_clone_a_rewritten_base_is_left_to_the_agent(agent, tmp_path: Path) -> None:
    """No clone, and no version of #11 in #12's listed commits: the facts cannot pin the boundary, so the answer
    says so (ai_should_decide) and lists every candidate upstream with exactly the commits it would replay."""
    repo = _world(tmp_path, 2, [1, 3], False)
    a = agent(repo.scenario())
    away = tmp_path / "elsewhere"
    away.mkdir()
    out = a.json("stack", "acme/widgets#11", "acme/widgets#12", cwd=away)
    strat = out["rebase_strategy"]
    assert strat["ai_should_decide"] is True and out["summary"]["risk_level"] == "high"
    listed = repo.subjects(f"{repo.prs[12]['commits'][0]}^..{repo.prs[12]['head_sha']}")
    assert listed == ["b1", "b2", "d1", "d2"]  # GitHub lists #11's old b1 and the dropped b2 among #12's commits
    cands = [c for c in strat["considerations"] if c.startswith("Candidate upstream")]
    assert len(cands) == 4
    assert cands[0].endswith("replays 4 commit(s): b1; b2; d1; d2.")
    assert cands[2].endswith("replays 2 commit(s): d1; d2.")
    b2 = repo.prs[12]["commits"][1]
    assert f"git rebase --onto refs/remotes/origin/feature-b {b2} feature-d" in cands[2]


def test_in_a_clone_merge_bases_off_one_line_are_left_to_the_agent(agent, tmp_path: Path) -> None:
    """#12 branched off #11's first version, then merged #11's rewritten version (rebased onto a newer main) into
    itself ("Update branch"), then #11 was squash-merged. #12's merge-bases with the two versions of #11 (old b2,
    new b3) are not in one line of history: even the clone cannot pin where #12's own work starts, so the answer
    says so (ai_should_decide, risk high) and lists each candidate with its rebase command and what it replays."""
    repo = _world(tmp_path, 2, [1, 2, 3], True)
    old_b2 = repo.prs[12]["commits"][1]
    repo.checkout("feature-d")
    repo.a("merge", "-q", "--no-ff", "-m", "Update branch", "refs/heads/feature-b")
    repo.commit("d3", {"d3.txt": "d3\n"})
    repo.push("feature-d")
    repo.refresh_pr(12)
    new_head = repo.prs[11]["head_sha"]
    repo.squash_merge(11, delete=False)
    repo.user_clone("feature-d", checkout="main")
    a = agent(repo.scenario())
    out = a.json("stack", "11", "12", cwd=repo.clone)
    strat = out["rebase_strategy"]
    assert strat["ai_should_decide"] is True and out["summary"]["risk_level"] == "high", strat
    cands = [c for c in strat["considerations"] if c.startswith("Candidate upstream")]
    for point in (old_b2, new_head):
        line = next(c for c in cands if f"git rebase --onto refs/remotes/origin/main {point} feature-d" in c)
        assert "d1; d2" in line and "d3" in line, line  # every candidate keeps #12's own commits
    assert out["last_upstream_commit"] in (old_b2, new_head)
