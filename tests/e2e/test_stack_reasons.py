"""The counts a stack answer states after a force-push of the base PR (issue 19 mutation survivors).

An agent weighs "a plain rebase would replay N commits that are not #12's own" against --onto: the N must be
the commits #12 still carries from #11's old version, counted in the clone, not #11's current commit count.
World: #12 (d1 d2) was built on #11 at b3 (b1 b2 b3); #11 was then force-pushed to b1' b3' (b2 dropped, every
commit re-created), so #12 carries three old commits of #11 (b1 b2 b3) and #11 now has two.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_stack_rewritten import _world


def test_an_open_force_pushed_base_says_how_many_old_commits_a_plain_rebase_would_replay(agent, tmp_path: Path) -> None:
    repo = _world(tmp_path, 3, [1, 3], False)
    repo.user_clone("feature-d", checkout="main")
    out = agent(repo.scenario()).json("stack", "11", "12", cwd=repo.clone)
    reason = out["rebase_strategy"]["reason"]
    assert "a plain rebase would replay #11's old commits (3 commit(s) that are not #12's own)" in reason, reason
    assert "replays only #12's own 2 commit(s)" in reason, reason


def test_a_squash_merged_force_pushed_base_counts_the_carried_commits_not_the_base_prs(agent, tmp_path: Path) -> None:
    repo = _world(tmp_path, 3, [1, 3], False)
    repo.user_clone("feature-d", checkout="main")
    repo.squash_merge(11, delete=False)
    out = agent(repo.scenario()).json("stack", "11", "12", cwd=repo.clone)
    strat = out["rebase_strategy"]
    assert "#12 still carries 3 original commit(s) of it" in strat["reason"], strat["reason"]
    assert "A plain rebase would replay #11's 3 original commit(s) and conflict with the squash commit." \
        in strat["considerations"], strat["considerations"]


def test_without_a_clone_an_ambiguous_boundary_is_said_first(agent, tmp_path: Path) -> None:
    """#12 branched at b2; #11 force-pushed to b1' b3': no clone, and no version of #11 in #12's listed commits."""
    repo = _world(tmp_path, 2, [1, 3], False)
    away = tmp_path / "elsewhere"
    away.mkdir()
    out = agent(repo.scenario()).json("stack", "acme/widgets#11", "acme/widgets#12", cwd=away)
    first = out["rebase_strategy"]["considerations"][0]
    assert first.startswith("The facts do not pin where #12's own commits start (a force-push of #11 left no "
                            "version of it in #12's history)"), first
    # the plan cuts at the candidate that replays the fewest commits (here only d2), as the text says
    cands = [x for x in out["rebase_strategy"]["considerations"] if x.startswith("Candidate upstream")]
    assert cands[-1].endswith("replays 1 commit(s): d2."), cands
    assert out["rebase_strategy"]["onto_command"] in cands[-1]
