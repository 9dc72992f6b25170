"""Restack plans (manage_stacked_prs, rebase_after_squash_merge) for branches with hostile names from
fixtures/hostile/corpus.json: every command of every plan is pasted into bash against recording `git`/`gh` stubs
and must give exactly the intended argv (the rebase, the leased push and the retarget name the branches intact);
a name starting with '-' or holding control characters is refused with a typed error; the terminal view shows
no raw control or bidi characters. (tests/e2e/test_stack_safety.py runs such a plan for real.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import Agent
from tests.e2e.stack_repos import StackRepo
from tests.safety.hostile import (
    BRANCHES,
    UNSAFE_ON_TERMINAL,
    assert_nothing_ran,
    gh_sanitised,
    intended_argvs,
    named_recording_stubs,
    recorded,
    run_pasted,
    sandbox,
)
from tests.safety.test_hostile_conflicts import GIT_BRANCHES
from tests.safety.test_properties import git_accepts_branch
from tests.safety.worlds import FAST_ENV, HOST, pinned_gh

STACKS = [(100 + 2 * i, b, f"dep-{i}/{b}") for i, b in enumerate(GIT_BRANCHES)]


@pytest.fixture(scope="module")
def hostile_stacks(tmp_path_factory: pytest.TempPathFactory) -> tuple[StackRepo, dict[int, dict[str, Any]]]:
    """For each git-valid hostile name B: #n (B, 2 commits) on main, #n+1 (dep-i/B) on it; every #n is then
    squash-merged — even ones with B deleted and #n+1 retargeted by GitHub, odd ones with B kept."""
    repo = StackRepo(tmp_path_factory.mktemp("hostile-stacks") / "repo")
    for i, (n, b, d) in enumerate(STACKS):
        repo.branch_commits(b, "main", 2, f"b{i}.txt", f"b{i}")
        repo.branch_commits(d, b, 1, f"d{i}.txt", f"d{i}")
        repo.open_pr(n, b, "main")
        repo.open_pr(n + 1, d, b)
    repo.user_clone(*(d for _, _, d in STACKS), checkout="main")
    before = {n: dict(repo.prs[n]) for n in repo.prs}
    for i, (n, b, _d) in enumerate(STACKS):
        repo.squash_merge(n, delete=i % 2 == 0)
        if i % 2 == 0:
            repo.retarget(n + 1, "main", was=b)
    return repo, before


def _assert_plan(commands: list[str], n: int, b: str, d: str, old_b: str, old_d: str, stubs: Path, box: Path,
                 record: Path) -> set[str]:
    kinds = set()
    for command in commands:
        record.unlink(missing_ok=True)
        proc = run_pasted(command, stubs, box)
        assert proc.returncode == 0, (command, proc.stderr)
        argvs = recorded(record)
        assert argvs == intended_argvs(command), command  # bash and Python's shlex agree: nothing expanded
        for argv in argvs:
            kinds.add(" ".join(argv[:2]))
            if argv[:3] == ["git", "rebase", "--onto"]:
                assert argv == ["git", "rebase", "--onto", "refs/remotes/origin/main", old_b, d], argv
            elif argv[:2] == ["git", "push"]:  # the leased restack push, or the fast-forward push of fix commits
                spec = f"refs/heads/{d}:refs/heads/{d}"  # full refspec, lease on the full ref
                assert argv in (["git", "push", f"--force-with-lease=refs/heads/{d}:{old_d}", "origin", spec],
                                ["git", "push", "origin", spec]), argv
            elif argv[:2] == ["git", "fetch"]:
                assert argv[2] == "origin" and f"+refs/heads/{d}:refs/remotes/origin/{d}" in argv, argv
            elif argv[:2] == ["gh", "api"]:
                assert argv == ["gh", "api", "--hostname", HOST, "--method", "PATCH",
                                f"repos/acme/widgets/pulls/{n + 1}", "-f", "base=main", "--silent"], argv
            elif argv[:2] == ["gh", "pr-agent"]:
                assert argv == ["gh", "pr-agent", "checks", f"{HOST}/acme/widgets#{n + 1}", "--wait"], argv
    return kinds


@pytest.mark.parametrize("index", range(len(STACKS)), ids=[repr(b) for _, b, _ in STACKS])
def test_restack_plans_get_exactly_the_intended_argv(make_hub, tmp_path: Path, hostile_stacks: Any,
                                                     index: int) -> None:
    repo, before = hostile_stacks
    n, b, d = STACKS[index]
    a = Agent(make_hub(repo.scenario()), pinned_gh(), tmp_path / "home")
    box, record = sandbox(tmp_path), tmp_path / "argv.jsonl"
    stubs = named_recording_stubs(tmp_path / "stubs", record)
    old_b, old_d = before[n]["head_sha"], before[n + 1]["head_sha"]
    d = gh_sanitised(d)  # gh hands control characters over in caret notation: that is the name we are told
    for args in (["stack", str(n), str(n + 1)], ["rebase-after-squash", str(n + 1)]):
        proc = a.cli(*args, "--json", cwd=repo.clone, env=a.env(**FAST_ENV))
        assert "Traceback" not in proc.stderr, proc.stderr
        out = orjson.loads(proc.stdout)
        if gh_sanitised(b) != b and args[0] == "rebase-after-squash":
            # gh rewrites control characters in API answers, so the base branch GitHub names is not a head any
            # PR has: the upstream PR cannot be found — a typed error, never a plan for the wrong branch
            assert (proc.returncode, out["error"]["code"]) == (3, "upstream_not_found"), out
            continue
        if not git_accepts_branch(d):
            # gh rewrote a control character (caret notation): the name we are told is not the real branch, and
            # git refuses it. No plan for a branch that does not exist: a typed refusal
            assert (proc.returncode, out["error"]["code"]) == (3, "unsafe_branch_name"), out
            continue
        assert proc.returncode == 0, proc.stderr
        commands = [c["command"] for c in out["commands"]]
        kinds = _assert_plan(commands, n, b, d, old_b, old_d, stubs, box, record)
        assert {"git fetch", "git rebase", "git push"} <= kinds, kinds
        assert ("gh api" in kinds) is (index % 2 == 1)  # retargeted only when GitHub did not do it
        human = a.cli(*args, cwd=repo.clone, env=a.env(**FAST_ENV))
        assert human.returncode == 0
        assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr), \
            f"raw control/bidi characters on the terminal: {human.stdout!r}"
    assert_nothing_ran(box, tmp_path, repo.clone)


def _api_world(name: str) -> dict[str, Any]:
    return {"viewer": {"login": "octocat"}, "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": [
        {"number": 40, "head_ref": name, "base_ref": "main"},
        {"number": 41, "head_ref": "feature-x", "base_ref": name}]}]}


@pytest.mark.parametrize("name", BRANCHES, ids=[repr(b) for b in BRANCHES])
def test_any_branch_name_github_serves(make_hub, tmp_path: Path, name: str) -> None:
    """Outside a clone (names git itself would refuse are served too): a name git refuses (`git check-ref-format
    --branch`: spaces, '^', '[', newlines …) or starting with '-' is refused with unsafe_branch_name; any other
    becomes exactly one argv element."""
    a = Agent(make_hub(_api_world(name)), pinned_gh(), tmp_path / "home")
    proc = a.cli("stack", "acme/widgets#40", "acme/widgets#41", "--json", env=a.env(**FAST_ENV))
    assert "Traceback" not in proc.stderr
    out = orjson.loads(proc.stdout)
    if not git_accepts_branch(gh_sanitised(name)):  # what gh hands over is a name git refuses (or an option)
        assert proc.returncode == 3 and out["error"]["code"] == "unsafe_branch_name", out
        assert "no command was generated" in out["error"]["suggestion"]
        return
    assert proc.returncode == 0, out
    box, record = sandbox(tmp_path), tmp_path / "argv.jsonl"
    stubs = named_recording_stubs(tmp_path / "stubs", record)
    served = out["stack_info"]["base_branch"]  # as gh hands it over (gh rewrites C0 controls to ^X)
    rebases = []
    for command in (c["command"] for c in out["commands"]):
        record.unlink(missing_ok=True)
        assert run_pasted(command, stubs, box).returncode == 0, command
        assert recorded(record) == intended_argvs(command), command
        rebases += [argv for argv in recorded(record) if argv[:2] == ["git", "rebase"]]
    assert rebases == [["git", "rebase", f"refs/remotes/origin/{served}", "feature-x"]]
    human = a.cli("stack", "acme/widgets#40", "acme/widgets#41", env=a.env(**FAST_ENV))
    assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr), human.stdout
    assert_nothing_ran(box, tmp_path)
