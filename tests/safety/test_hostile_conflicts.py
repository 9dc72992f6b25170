"""detect_merge_conflicts on a repository whose conflicting files and base branches have hostile names (from
fixtures/hostile/corpus.json): every resolution step and every command quoted in a suggested resolution is
pasted into bash against recording `git`/`gh` stubs and must give exactly the intended argv; a step that is
prose must be inert when pasted (a shell comment); the terminal view stays escape-free."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.conftest import Agent
from tests.e2e.gitrepos import GITHUB_URL, git
from tests.safety.hostile import (
    BRANCHES,
    PATHS,
    UNSAFE_ON_TERMINAL,
    assert_nothing_ran,
    intended_argvs,
    named_recording_stubs,
    recorded,
    run_pasted,
    sandbox,
)
from tests.safety.worlds import FAST_ENV, pinned_gh


def git_ok_branch(name: str) -> bool:
    return subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True,
                          check=False).returncode == 0 and not name.startswith("-")


GIT_BRANCHES = [b for b in BRANCHES if git_ok_branch(b)]
RENAMED = "renamed `id` $(touch pwned-r).txt"
# number -> (base branch, base side changes, PR side changes); None deletes, ("mv", new, content) renames
CONTENT = {p: f"line 1\n{p!r} on the base\nline 3\n".encode() for p in PATHS}


def _cases() -> dict[int, tuple[str, dict[str, Any], dict[str, Any]]]:
    paths = list(PATHS)
    return {
        31: (GIT_BRANCHES[0], {p: b"line 1\nbase edit\nline 3\n" for p in paths},
             {p: b"line 1\nPR edit\nline 3\n" for p in paths}),
        32: (GIT_BRANCHES[1], {paths[7]: ("mv", RENAMED, b"line 1\nbase edit\nline 3\n")},
             {paths[7]: b"line 1\nPR edit\nline 3\n"}),
        33: (GIT_BRANCHES[2], {paths[2]: None}, {paths[2]: b"line 1\nPR edit\nline 3\n"}),
        34: (GIT_BRANCHES[3], {paths[9]: b"\x00base\x01"}, {paths[9]: b"\x00pr\x02"}),
        35: (GIT_BRANCHES[4], {"added $(touch pwned-a).txt": b"base\n"}, {"added $(touch pwned-a).txt": b"pr\n"}),
    }


def _apply(root: Path, changes: dict[str, Any]) -> None:
    for name, value in changes.items():
        if value is None:
            git(root, "rm", "-q", "--", name)
        elif isinstance(value, tuple):
            _, new, content = value
            git(root, "mv", "--", name, new)
            (root / new).write_bytes(content)
        else:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(value)
    git(root, "add", "-A")


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("hostile-conflicts")
    seed, origin, clone = root / "seed", root / "origin.git", root / "clone"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    for path in PATHS:
        (seed / path).parent.mkdir(parents=True, exist_ok=True)
        (seed / path).write_bytes(CONTENT[path])
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "base")
    pulls = []
    for n, (base, base_changes, head_changes) in _cases().items():
        git(seed, "checkout", "-q", "-b", base, "main")
        _apply(seed, base_changes)
        git(seed, "commit", "-q", "-m", f"base side of {n}")
        base_sha = git(seed, "rev-parse", "HEAD")
        git(seed, "checkout", "-q", "-b", f"pr-{n}", "main")
        _apply(seed, head_changes)
        git(seed, "commit", "-q", "-m", f"PR {n}")
        head = git(seed, "rev-parse", "HEAD")
        pulls.append({"number": n, "title": f"PR {n}", "head_ref": f"pr-{n}", "base_ref": base, "head_sha": head,
                      "base_sha": base_sha, "merge_state": {"mergeable": "CONFLICTING"}})
    git(root, "clone", "-q", "--bare", str(seed), str(origin))
    for p in pulls:
        git(origin, "update-ref", f"refs/pull/{p['number']}/head", p["head_sha"])
    git(root, "clone", "-q", str(origin), str(clone))
    git(clone, "config", "remote.origin.url", GITHUB_URL)
    git(clone, "config", f"url.{origin}.insteadOf", GITHUB_URL)
    scenario = {"viewer": {"login": "octocat"},
                "repositories": [{"owner": "acme", "name": "widgets", "pull_requests": pulls}]}
    return clone, scenario


COMMAND = re.compile(r"^(?:gh|git) ")
QUOTED = re.compile(r"`([^`]+)`")


@pytest.mark.parametrize("number", sorted(_cases()))
def test_resolution_steps_get_exactly_the_intended_argv(make_hub, tmp_path: Path, hostile_repo: tuple[Path, Any],
                                                        number: int) -> None:
    clone, scenario = hostile_repo
    a = Agent(make_hub(scenario), pinned_gh(), tmp_path / "home")
    proc = a.cli("conflicts", f"acme/widgets#{number}", "--json", cwd=clone, env=a.env(**FAST_ENV))
    assert "Traceback" not in proc.stderr, proc.stderr
    out = orjson.loads(proc.stdout)
    assert proc.returncode == 1 and out["verdict"] == "conflicts" and out["source"] == "local", out
    base = _cases()[number][0]
    paths = [f["file_path"] for f in out["conflicts"]]
    assert paths, out
    box, record = sandbox(tmp_path), tmp_path / "argv.jsonl"
    stubs = named_recording_stubs(tmp_path / "stubs", record)
    for step in out["instructions"]["resolution_steps"]:
        record.unlink(missing_ok=True)
        result = run_pasted(step, stubs, box)
        if COMMAND.match(step):
            assert result.returncode == 0 and recorded(record) == intended_argvs(step), step
        else:  # prose: must be inert when pasted into a shell by mistake
            assert recorded(record) == [], f"pasting a prose step ran {recorded(record)}: {step!r}"
        assert_nothing_ran(box, tmp_path)
    steps = {tuple(argv[:2]): argv for s in out["instructions"]["resolution_steps"] if COMMAND.match(s)
             for argv in intended_argvs(s)}
    assert steps[("git", "fetch")] == ["git", "fetch", "origin", f"+refs/heads/{base}:refs/remotes/origin/{base}"]
    assert steps[("git", "merge")] == ["git", "merge", f"refs/remotes/origin/{base}"]
    # a path git would read as a glob or as pathspec magic is named literally
    literal = [":(literal)" + p if re.search(r"[*?\[\\]", p) or p.startswith(":") else p
               for f in out["conflicts"] for p in f["paths"]]
    assert steps[("git", "add")] == ["git", "add", "-A", "--", *literal]
    assert steps[("gh", "pr")] == ["gh", "pr", "checkout", str(number), "--repo", "acme/widgets"]
    for f in out["conflicts"]:  # the commands a suggested resolution quotes (`…`; unreadable if the path has a `)
        for snippet in QUOTED.findall(f["suggested_resolution"]) if "`" not in f["file_path"] else []:
            if not COMMAND.match(snippet) or "COMMIT" in snippet:
                continue
            record.unlink(missing_ok=True)
            assert run_pasted(snippet, stubs, box).returncode == 0, snippet
            argvs = recorded(record)
            assert argvs == intended_argvs(snippet) and argvs[0][-1].removeprefix(":(literal)") == f["file_path"], \
                (snippet, argvs)
    assert_nothing_ran(box, tmp_path)
    human = a.cli("conflicts", f"acme/widgets#{number}", cwd=clone, env=a.env(**FAST_ENV))
    assert human.returncode == 1 and not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr)
