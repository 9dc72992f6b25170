"""The restack plan's steps, word for word, for each state of the user's local branch and each kind of head
(issue 19 mutation survivors of stack/plan.py): what is created, fast-forwarded and verified before anything is
rewritten, how each branch is rebased, where it is pushed, and which PRs CI is waited on."""

from __future__ import annotations

from typing import Any

from pr_agent.refs import PRRef
from pr_agent.stack.fork import HeadSource
from pr_agent.stack.local import LocalBranch
from pr_agent.stack.model import Pull
from pr_agent.stack.plan import PlanSpec, Restack, build_steps

HEAD, OLD = "d" * 40, "b" * 40
ONTO = "refs/remotes/origin/main"


def dep(number: int = 12, head: str = "feature-d", **kw: Any) -> Pull:
    return Pull(PRRef("acme", "widgets", number), "t", "", "OPEN", head, "main", HEAD, "a" * 40, **kw)


def spec(restacks: list[Restack], *, in_clone: bool = True, retargets: list[tuple[Pull, str]] | None = None,
         auto_fix: bool = False, sources: dict[int, HeadSource] | None = None) -> PlanSpec:
    return PlanSpec(PRRef("acme", "widgets", 12), "origin", ["main", *(r.branch for r in restacks)], restacks,
                    retargets or [], auto_fix, 2, in_clone, sources or {})


def steps_of(s: PlanSpec) -> list[tuple[str, str]]:
    return [(st.type, st.command) for st in build_steps(s)]


VERIFY = f"git merge-base --is-ancestor {HEAD} refs/heads/feature-d"
VERIFY_OLD = f"{VERIFY} && git merge-base --is-ancestor {OLD} refs/heads/feature-d"
ONTO_REBASE = f"git rebase --onto {ONTO} {OLD} feature-d"
PUSH = f"git push --force-with-lease=refs/heads/feature-d:{HEAD} origin refs/heads/feature-d:refs/heads/feature-d"
FETCH = "git fetch origin +refs/heads/main:refs/remotes/origin/main +refs/heads/feature-d:refs/remotes/origin/feature-d"
CI = "gh pr-agent checks 'acme/widgets#12' --wait"


def test_without_a_clone_the_branch_is_created_unless_it_exists_and_both_commits_are_verified() -> None:
    r = Restack(dep(), ONTO, "origin/main", OLD)
    assert steps_of(spec([r], in_clone=False)) == [
        ("git", FETCH),
        ("git", "git show-ref --verify --quiet refs/heads/feature-d || git branch --track feature-d "
                "refs/remotes/origin/feature-d"),
        ("verification", VERIFY_OLD), ("git", ONTO_REBASE), ("git", PUSH), ("ci_wait", CI)]
    verify = build_steps(spec([r], in_clone=False))[2]
    assert verify.description.startswith(f"Check that your local feature-d contains GitHub's head {HEAD[:12]} and "
                                         f"the old base {OLD[:12]}. If this fails, stop")


def test_in_a_clone_a_missing_branch_is_created_and_a_branch_up_to_date_is_only_verified() -> None:
    missing = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "missing"))
    assert steps_of(spec([missing]))[1] == ("git", "git branch --track feature-d refs/remotes/origin/feature-d")
    same = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "same", HEAD))
    assert [t for t, _ in steps_of(spec([same]))] == ["git", "verification", "git", "git", "ci_wait"]
    for state in ("ahead", "diverged"):  # nothing to prepare: the verification decides
        r = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", state, "e" * 40, 1, 1))  # type: ignore[arg-type]
        assert steps_of(spec([r]))[1] == ("verification", VERIFY_OLD)


def test_a_branch_behind_github_is_fast_forwarded_first() -> None:
    here = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "behind", "e" * 40, 0, 2,
                                                                checked_out_here=True))
    steps = build_steps(spec([here]))
    assert (steps[1].type, steps[1].command) == (
        "git", "git switch feature-d && git merge --ff-only refs/remotes/origin/feature-d")
    assert "(2 commit(s) behind)" in steps[1].description
    away = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "behind", "e" * 40, 0, 2))
    assert steps_of(spec([away]))[1] == ("git", "git branch --force feature-d refs/remotes/origin/feature-d")


def test_a_plain_rebase_verifies_only_the_head_and_says_what_it_does() -> None:
    r = Restack(dep(), ONTO, "origin/main", None, LocalBranch("feature-d", "same", HEAD))
    steps = build_steps(spec([r]))
    assert [(s.type, s.command) for s in steps[1:3]] == [
        ("verification", VERIFY), ("git", f"git rebase {ONTO} feature-d")]
    assert steps[2].description.startswith("Rebase feature-d onto origin/main (this checks out feature-d). If git")
    assert steps[2].can_automate and steps[2].retry_on_failure is False


def test_an_onto_rebase_names_the_replayed_range_and_the_expected_conflicts() -> None:
    r = Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "same", HEAD), ["a.txt", "b.txt"])
    rebase = build_steps(spec([r]))[2]
    assert rebase.command == ONTO_REBASE and not rebase.can_automate
    assert rebase.description.startswith(f"Replay only #12's own commits ({OLD[:12]}..feature-d) onto origin/main "
                                         "(this checks out feature-d). Expected conflicts in: a.txt, b.txt. If git")


def test_a_stack_is_rebased_parents_first_and_pushed_in_one_atomic_push() -> None:
    child = dep(13, "feature-c")
    rs = [Restack(dep(), ONTO, "origin/main", OLD, LocalBranch("feature-d", "same", HEAD)),
          Restack(child, "refs/heads/feature-d", "feature-d (just restacked)", HEAD,
                  LocalBranch("feature-c", "same", HEAD))]
    cmds = steps_of(spec(rs))
    assert [c for t, c in cmds if "rebase" in c] == [ONTO_REBASE, f"git rebase --onto refs/heads/feature-d {HEAD} "
                                                                  "feature-c"]
    assert ("git", f"git push --atomic --force-with-lease=refs/heads/feature-d:{HEAD} --force-with-lease="
                   f"refs/heads/feature-c:{HEAD} origin refs/heads/feature-d:refs/heads/feature-d "
                   "refs/heads/feature-c:refs/heads/feature-c") in cmds
    assert [c for t, c in cmds if t == "ci_wait"] == [CI, "gh pr-agent checks 'acme/widgets#13' --wait"]


def test_a_fork_head_is_fetched_through_its_remote_and_pushed_there() -> None:
    src = HeadSource("contrib", "refs/heads/feature-d", "refs/remotes/contrib/feature-d", "contrib", fork=True)
    r = Restack(dep(head_repo="contrib/widgets", cross_repo=True), ONTO, "origin/main", OLD,
                LocalBranch("feature-d", "same", HEAD), source=src)
    steps = build_steps(spec([r], sources={12: src}, auto_fix=True))
    fetch = steps[1]
    assert fetch.command == "git fetch contrib +refs/heads/feature-d:refs/remotes/contrib/feature-d"
    assert fetch.description == ("Fetch #12's head feature-d (from the fork contrib/widgets) through its fork's "
                                 "remote contrib, into refs/remotes/contrib/feature-d.")
    push = next(s for s in steps if s.command.startswith("git push --force"))
    assert push.command == (f"git push --force-with-lease=refs/heads/feature-d:{HEAD} contrib "
                            "refs/heads/feature-d:refs/heads/feature-d")
    assert "feature-d to contrib (the fork they live in)" in push.description
    assert ("git", "git push contrib refs/heads/feature-d:refs/heads/feature-d") in [
        (s.type, s.command) for s in steps]  # the fix loop pushes its fixes to the fork too


def test_a_fork_head_without_a_push_is_rebased_locally_and_waits_on_no_ci() -> None:
    src = HeadSource("origin", "refs/pull/12/head", "refs/remotes/origin/pr/12", None, "no remote", fork=True)
    r = Restack(dep(head_repo="contrib/widgets", cross_repo=True), ONTO, "origin/main", OLD,
                LocalBranch("feature-d", "missing"), source=src)
    steps = build_steps(spec([r], sources={12: src}, auto_fix=True))
    assert [(s.type, s.command) for s in steps] == [
        ("git", FETCH),
        ("git", "git fetch origin +refs/pull/12/head:refs/remotes/origin/pr/12"),
        ("git", "git branch feature-d refs/remotes/origin/pr/12"),
        ("verification", VERIFY_OLD), ("git", ONTO_REBASE)]
    assert "through GitHub's read-only copy refs/pull/12/head in origin" in steps[1].description


def test_a_retarget_alone_waits_on_ci_and_runs_the_fix_loop_once_per_pr() -> None:
    pr = dep()
    steps = build_steps(spec([], retargets=[(pr, "main")], auto_fix=True))
    assert [(s.type, s.command) for s in steps] == [
        ("git", "gh api --method PATCH repos/acme/widgets/pulls/12 -f base=main --silent"),
        ("ci_wait", CI),
        ("fix", "# fix what the CI run of #12 reported, on branch feature-d, and commit"),
        ("git", "git push origin refs/heads/feature-d:refs/heads/feature-d"),
        ("verification", CI)]
    assert [s.skip_if for s in steps[2:]] == ["CI on #12 passed"] * 3
    assert [s.max_retries for s in steps[2:]] == [2, None, 2]
    rs = [Restack(pr, ONTO, "origin/main", OLD, LocalBranch("feature-d", "same", HEAD))]
    both = build_steps(spec(rs, retargets=[(pr, "main")]))
    assert [s.command for s in both if s.type == "ci_wait"] == [CI]  # pushed and retargeted: one wait

