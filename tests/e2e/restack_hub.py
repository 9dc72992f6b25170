"""Generated restack histories (tests/e2e/restack_gen.py) served through fakehub and run through the real gh binary.

The history is the same one the in-process test builds (the same seed gives the same commits), with the clone's
remotes on ``github.localhost``. :func:`scenario` turns it into fakehub's scenario: every commit of the bare
origin (and of the fork), its branches, and the pull requests with the facts GitHub would serve (their commits
``base..head``, ``headRefOid``/``baseRefOid``, the landed commit, ``HeadRefForcePushedEvent`` before/after,
``BaseRefChangedEvent``, the head branch's deletion, fork fields). :class:`SharedHub` is one fakehub server that
serves history after history (the world is replaced, the server keeps running: no start per history).
:func:`run_cli` runs ``gh pr-agent``'s CLI (``python -m pr_agent``) in the clone with the real gh talking to that
server; the plan it prints is executed verbatim and judged by the same oracle as the in-process run.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from tests.e2e.conftest import Agent
from tests.e2e.restack_gen import START, Gen, World, execute_commands, judge, plan_commands, remote_refs, run
from tests.fakehub import FakeHub
from tests.fakehub.world import World as HubWorld

HOST = "github.localhost"  # fakehub's GH_HOST
_FMT = "%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B%x1e"


def _commits(g: Gen, where: Path) -> list[dict[str, Any]]:
    raw = g.git(where, "log", "--all", f"--format={_FMT}")
    out = []
    for record in raw.split("\x1e"):
        parts = record.strip("\n").split("\x00")
        if len(parts) == 7:
            out.append({"oid": parts[0], "parents": parts[1].split(), "author_name": parts[2],
                        "author_email": parts[3], "authored_date": parts[4], "committed_date": parts[5],
                        "message": parts[6].strip("\n")})
    return out


def _branches(g: Gen, where: Path) -> dict[str, str]:
    heads = g.git(where, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads")
    return dict(line.rsplit(" ", 1) for line in heads.splitlines())


def scenario(w: World) -> dict[str, Any]:
    """fakehub's scenario for the history `w`: the same facts the in-process run reads (``w``'s pulls), as GitHub
    serves them. The viewer is #12's author (the user restacking their own PR)."""
    g = w.gen
    branches = _branches(g, g.origin)
    viewer = "contrib" if g.fork else "octocat"
    opened = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(START))  # before every commit and event
    pulls = []
    for pr in [w.base, w.dep, *w.others]:
        author = viewer if pr.number == 12 else "octocat"
        p: dict[str, Any] = {
            "number": pr.number, "title": pr.title, "author": author, "state": pr.state, "head_ref": pr.head_ref,
            "base_ref": pr.base_ref, "head_sha": pr.head_oid, "base_sha": pr.base_oid, "created_at": opened,
            "commits": [c.oid for c in pr.commits], "merge_commit": pr.merge_commit,
            "head_ref_deleted": pr.is_merged and pr.head_ref not in branches,
            "timeline": [_event(e, author) for e in pr.events or []],
        }
        if pr.merged_at:
            p["merged_at"] = pr.merged_at
        if pr.cross_repo:
            p.update(head_repository=pr.head_repo, maintainer_can_modify=pr.maintainer_can_modify)
        pulls.append(p)
    repos: list[dict[str, Any]] = [{"owner": "acme", "name": "widgets", "commits": _commits(g, g.origin),
                                    "branches": branches, "pull_requests": pulls}]
    if g.fork:
        repos.append({"owner": "contrib", "name": "widgets", "commits": _commits(g, g.fork),
                      "branches": _branches(g, g.fork)})
    return {"viewer": {"login": viewer}, "repositories": repos}


def _event(e: Any, actor: str) -> dict[str, Any]:
    kind = {"head_ref_force_pushed": {"before": e.before_oid, "after": e.after_oid},
            "base_ref_changed": {"previous": e.previous_ref, "current": e.current_ref},
            "merged": {"commit": e.commit_oid}}.get(e.kind, {})
    return {"type": e.kind, "created_at": e.created_at, "actor": actor, **{k: v for k, v in kind.items() if v}}


class SharedHub:
    """One started fakehub that serves one generated history at a time (``load`` replaces its world)."""

    def __init__(self, gh_path: str, home: Path) -> None:
        self.hub = FakeHub({"viewer": {"login": "octocat"}, "repositories": []}).start()
        self.gh_path, self.home = gh_path, home

    def load(self, w: World) -> Agent:
        """Serve `w` from now on (the requests of the history before are forgotten); an Agent for its CLI."""
        self.hub.world = HubWorld(scenario(w))
        self.hub.reset_counters()
        for seen in (self.hub.unhandled, self.hub.schema_violations, self.hub.errors):
            seen.clear()
        return Agent(self.hub, self.gh_path, w.gen.root / "agent")

    def problems(self) -> list[str]:
        """What fakehub could not answer as GitHub would (unhandled requests, schema violations, its bugs), since
        the last ``load``."""
        return self.hub.problems

    def stop(self) -> None:
        self.hub.stop()


def args_for(w: World) -> list[str]:
    """The CLI call for the history. #11 merged into #10's branch (the middle of 3-4 levels merged into the PR below):
    by ``seed % 3`` ``stack 11 12``, ``stack 10 12`` (BOTTOM TOP, across the merged middle) or ``rebase-after-squash
    12`` (the tool finds the upstream). #11 merged into main: ``rebase-after-squash 12`` when ``seed // 2`` is odd,
    else ``stack 11 12``. #11 open: ``stack 11 12``."""
    if w.base.is_merged and w.base.base_ref == "feature-a":
        return [["stack", "11", "12"], ["stack", "10", "12"], ["rebase-after-squash", "12"]][w.gen.seed % 3]
    if w.base.is_merged and (w.gen.seed // 2) % 2:
        return ["rebase-after-squash", "12"]
    return ["stack", "11", "12"]


def run_cli(agent: Agent, w: World) -> dict[str, Any]:
    """`gh pr-agent ARGS --json` in the clone: our CLI, the real gh, fakehub."""
    args = args_for(w)
    proc = agent.cli(*args, "--json", cwd=w.gen.clone)
    why = f"seed {w.gen.seed} ({'; '.join(w.story)}): {' '.join(args)}"
    assert proc.returncode == 0, f"{why}: exit {proc.returncode}: {proc.stderr}"
    out: dict[str, Any] = orjson.loads(proc.stdout)
    return out


def commands(out: dict[str, Any]) -> list[tuple[str, bool]]:
    """The plan's commands in order, each with whether it is #12's rebase (the step the oracle judges a conflict
    of). Steps that talk to GitHub (`gh ...`: the retarget, the CI wait) are not run: fakehub's PR data is not
    what is judged."""
    steps = sorted(out["commands"], key=lambda c: c["step"])
    res = []
    for c in steps:
        argv = shlex.split(c["command"]) if c["type"] == "git" else []
        if not argv or argv[0] != "git":
            continue
        res.append((c["command"], argv[:2] == ["git", "rebase"] and argv[-1] == "feature-d"))
    return res


def wants_rebase(out: dict[str, Any]) -> bool:
    return any(dep for _, dep in commands(out))


def ai_should_decide(out: dict[str, Any]) -> bool:
    strategy = out.get("rebase_strategy") or out.get("strategy") or {}
    return bool(strategy.get("ai_should_decide"))


def run_plan(w: World, out: dict[str, Any], before: dict[str, str]) -> str:
    """The plan's git commands verbatim in the clone (see restack_gen.execute_commands)."""
    return execute_commands(w, commands(out), before)


def check(hub: SharedHub, w: World) -> str:
    """One history end to end: the CLI through gh and fakehub in the clone; for `stack` the same tool in-process on
    the same facts (no gh) must give the same git commands (an ambiguous boundary: ``ai_should_decide`` with its
    candidates); the plan run verbatim; the oracle's verdict on the remotes. Returns "ran", or "conflict" when the
    rebase stopped where #12's own commits alone conflict too (checked by run_plan)."""
    before = remote_refs(w.gen)
    args = args_for(w)
    out = run_cli(hub.load(w), w)
    assert not hub.problems(), f"seed {w.gen.seed}: fakehub: {hub.problems()}"
    if args[0] == "stack":
        a = run(w, int(args[1]))
        if a.old.how == "ambiguous":
            assert a.strategy.ai_should_decide and a.old.candidates, a.old
        assert plan_commands(w, a) == commands(out), (
            f"seed {w.gen.seed} ({'; '.join(w.story)}): {' '.join(args)}: in-process and through gh differ")
    outcome = run_plan(w, out, before) if wants_rebase(out) else "ran"
    if outcome != "conflict":
        judge(w, before)
    return outcome


if __name__ == "__main__":  # pragma: no cover - a quick look: print one seed's scenario
    import tempfile

    from tests.e2e.restack_gen import build

    with tempfile.TemporaryDirectory() as tmp:
        sys.stdout.write(orjson.dumps(scenario(build(Path(tmp), int(sys.argv[1]), HOST)),
                                      option=orjson.OPT_INDENT_2).decode())
