"""Generated stack histories in real git, the restack analysis run on them, its commands executed verbatim, and
an oracle that judges the pushed result (issue 12).

A seed fixes one history of 2-4 levels: a bare ``origin`` (with ``refs/pull/N/head`` and every old PR head kept,
as GitHub keeps them); maybe a PR #10 below the base (then the base lands in #10's branch, not in ``main``); a
base PR #11 of 1-3 commits that gets extra pushes after the dependent #12 branched off it; maybe #12 from a
fork (a contributor's clone: origin = the fork, upstream = acme; the plan must push to the fork); maybe a PR
#13 on top of #12 (restacked in the same plan); maybe a newer commit on the branch below #11 (sometimes
editing the line #12's first commit edits: a real conflict); maybe a force-push of #11 (drop, reorder, amend,
rebase onto the branch below); then #11 left open or squash-, rebase- or merge-commit-merged into the branch below (its
branch kept or deleted with #12 retargeted); maybe #12 merging its new base into itself ("Update branch").
The user's clone is made either when #12 was created or at the end. GitHub's facts (the PRs' commits,
HeadRefForcePushedEvent before/after, BaseRefChangedEvent, the landed commit) are read from the same git objects into
:class:`pr_agent.stack.model.Pull` and the analysis runs in-process (``tests/e2e/test_stack_rewritten.py`` runs
the same situations through real gh and fakehub).

The oracle knows which commits are #12's (and #13's) own (the generator made them): after the plan ran, the
remote ``feature-d`` must be exactly those commits (same patch-ids, same order) on top of the new base's tip,
``feature-e`` exactly #13's on top of that, and no other remote ref may have moved. A plan whose rebase stops on
a conflict passes only when cherry-picking #12's own commits alone onto the new base conflicts too.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from pr_agent.context import Context
from pr_agent.git import Git
from pr_agent.refs import PRRef
from pr_agent.stack.analysis import Analysis, Options, analyze
from pr_agent.stack.model import Commit, Event, Pull

START = 1_790_000_000  # the generator's clock (seconds) when a history starts
_FMT = "%H%x00%P%x00%an%x00%ae%x00%aI%x00%s"


@dataclass
class Gen:
    root: Path
    seed: int
    clock: int = START
    story: list[str] = field(default_factory=list)
    fork: Path | None = None  # contrib/widgets, where #12's branch lives when #12 is a fork PR
    host: str = "github.com"  # the clone's remotes: https://HOST/acme/widgets.git (github.localhost: fakehub)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.origin, self.work, self.clone = self.root / "origin.git", self.root / "work", self.root / "clone"
        self.home = self.root / "home"
        self.home.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        self.clock += 60
        stamp = f"@{self.clock} +0000"
        return {**os.environ, "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
                "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com",
                "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home)}

    def url(self, owner: str = "acme") -> str:
        return f"https://{self.host}/{owner}/widgets.git"

    def stamp(self) -> str:
        """Now on the generator's clock, as GitHub writes a time (events get it)."""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock))

    def git(self, cwd: Path, *args: str, ok: bool = True) -> str:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=self.env(), check=False)
        if ok:
            assert proc.returncode == 0, f"seed {self.seed}: git {' '.join(args)}: {proc.stderr}"
        return proc.stdout.strip()

    def w(self, *args: str) -> str:
        return self.git(self.work, *args)

    def commit(self, name: str, files: dict[str, str]) -> str:
        for path, text in files.items():
            (self.work / path).write_text(text)
        self.w("add", "-A")
        self.w("commit", "-q", "--allow-empty", "-m", name)
        return self.w("rev-parse", "HEAD")

    def push(self, *branches: str) -> None:
        self.w("push", "-q", "--force", "origin", *(f"refs/heads/{b}:refs/heads/{b}" for b in branches))

    def push_dep(self, oid: str) -> None:
        """#12's branch to where it lives (the fork, or origin), and GitHub's refs/pull/12/head in origin."""
        if self.fork:  # GitHub copies a fork PR's head into the base repository
            self.w("push", "-q", "--force", "fork", "refs/heads/feature-d:refs/heads/feature-d")
            self.w("push", "-q", "--force", "origin", f"{oid}:refs/pull/12/head")
        else:
            self.push("feature-d")
            self.git(self.origin, "update-ref", "refs/pull/12/head", oid)

    def keep(self, oid: str) -> None:
        self.git(self.origin, "update-ref", f"refs/pull-history/{oid}", oid)

    def tip(self, ref: str) -> str:
        return self.git(self.origin, "rev-parse", ref)

    def rev_list(self, *revs: str, where: Path | None = None) -> list[str]:
        out = self.git(where or self.origin, "rev-list", "--reverse", *revs)
        return out.split() if out else []

    def commits(self, *revs: str) -> list[Commit]:
        out = self.git(self.origin, "log", "--reverse", f"--format={_FMT}", *revs)
        res = []
        for line in out.splitlines():
            oid, parents, name, email, date, subject = line.split("\x00")
            res.append(Commit(oid, subject, name, email, date, tuple(parents.split())))
        return res

    def patch_ids(self, oids: list[str], where: Path | None = None) -> list[str]:
        """`git patch-id --stable` of each commit (one `git show | git patch-id` pipe for all of them)."""
        if not oids:
            return []
        cwd = where or self.origin
        shown = subprocess.run(["git", "show", "--format=commit %H", "--binary", *oids], cwd=cwd,
                               capture_output=True, env=self.env(), check=True).stdout
        proc = subprocess.run(["git", "patch-id", "--stable"], input=shown, capture_output=True, cwd=cwd,
                              check=True)
        ids = {commit: pid for pid, commit in (line.split() for line in proc.stdout.decode().splitlines())}
        return [ids.get(oid, f"empty:{oid}") for oid in oids]


@dataclass
class World:
    gen: Gen
    base: Pull
    dep: Pull
    own: list[str]          # patch-ids of #12's own commits, oldest first
    new_base_ref: str       # where #12 must end up: refs/heads/main, feature-a or feature-b
    story: list[str]
    own_oids: list[str] = field(default_factory=list)  # #12's own commits as it made them (for the conflict check)
    others: list[Pull] = field(default_factory=list)   # #10 below #11, #13 above #12, when the history has them
    child_own: list[str] = field(default_factory=list)  # patch-ids of #13's own commits


def _pull(g: Gen, n: int, head: str, base_ref: str, head_oid: str, base_tip: str, state: str = "OPEN",
          events: list[Event] | None = None, **kw: object) -> Pull:
    listed = g.commits(f"{base_tip}..{head_oid}")
    return Pull(PRRef("acme", "widgets", n), f"PR {n}", "", state, head, base_ref, head_oid, base_tip,
                commits=listed, commit_count=len(listed), events=events or [], **kw)  # type: ignore[arg-type]


def build(root: Path, seed: int, host: str = "github.com") -> World:
    """One history (the same for every `host`: only the clone's remote URLs differ).

    Levels: main [<- #10 feature-a] <- #11 feature-b <- #12 feature-d [<- #13 feature-e]; #11 is
    the base PR, based on `parent` (feature-a when #10 exists: then #11 merges into the PR below, not main)."""
    g = Gen(root, seed, host=host)
    r, s = g.rng, g.story
    g.git(root, "init", "-q", "--bare", "-b", "main", str(g.origin))
    g.git(g.origin, "config", "uploadpack.allowAnySHA1InWant", "true")  # GitHub serves any commit it keeps
    g.git(root, "init", "-q", "-b", "main", str(g.work))
    g.w("remote", "add", "origin", str(g.origin))
    g.commit("init", {"README.md": "# w\n", "shared.txt": "s\n"})
    parent = "main"
    if r.random() < 0.35:  # a PR below the base: #11 is stacked on #10 and lands in its branch
        parent = "feature-a"
        g.w("checkout", "-q", "-b", "feature-a")
        g.commit("a1", {"a1.txt": "a1\n"})
        s.append("#10 feature-a below #11")
    g.push(*dict.fromkeys(["main", parent]))
    g.w("checkout", "-q", "-b", "feature-b")
    nb = r.randint(1, 3)
    b = [g.commit(f"b{i}", {f"b{i}.txt": f"b{i}\n"}) for i in range(1, nb + 1)]
    at = r.randint(1, nb)
    g.w("checkout", "-q", "-B", "feature-b", b[at - 1])
    g.push("feature-b")
    s.append(f"#11 has {nb} commit(s); #12 branches at b{at}")
    g.w("checkout", "-q", "-b", "feature-d")
    nd = r.randint(1, 3)
    conflict = r.random() < 0.15  # #12's first commit edits the line `parent`'s next commit edits too
    own = [g.commit(f"d{i}", {f"d{i}.txt": f"d{i}\n", **({"shared.txt": "d\n"} if conflict and i == 1 else {})})
           for i in range(1, nd + 1)]
    if r.random() < 0.2:  # #12 comes from a fork; the user is its author, in a clone with origin = fork
        g.fork = root / "fork.git"
        g.git(root, "clone", "-q", "--bare", str(g.origin), str(g.fork))
        g.w("remote", "add", "fork", str(g.fork))
        s.append("#12 is a fork PR (contrib/widgets)")
    g.push_dep(own[-1])
    child: list[str] = []
    if not g.fork and r.random() < 0.3:  # a PR above the dependent, restacked in the same plan
        g.w("checkout", "-q", "-b", "feature-e")
        child = [g.commit(f"e{i}", {f"e{i}.txt": f"e{i}\n"}) for i in range(1, r.randint(1, 2) + 1)]
        g.push("feature-e")
        s.append(f"#13 feature-e ({len(child)} commit(s)) above #12")
    g.w("checkout", "-q", "feature-b")
    g.w("reset", "-q", "--hard", b[-1])
    extra = r.randint(0, 2)
    b += [g.commit(f"b{nb + i}", {f"b{nb + i}.txt": f"late {i}\n"}) for i in range(1, extra + 1)]
    g.push("feature-b")
    s.append(f"#11 gets {nb - at + extra} more commit(s) after #12 branched")
    early_clone = r.random() < 0.5
    if early_clone:
        _clone(g, child)
    events: list[Event] = []
    if conflict or r.random() < 0.3:
        g.w("checkout", "-q", parent)
        g.commit(f"{parent} moves", {"m.txt": f"m {seed}\n", **({"shared.txt": "m\n"} if conflict else {})})
        g.push(parent)
        s.append(f"{parent} moves on" + (" (editing the line #12 edits)" if conflict else ""))
    rewrite = r.choice(["none", "drop", "reorder", "amend", "rebase"])
    if rewrite != "none":
        before = g.tip("refs/heads/feature-b")
        g.keep(before)
        keep = list(b)
        if rewrite == "drop" and len(keep) > 1:
            keep.pop(r.randrange(len(keep)))
        elif rewrite == "reorder":
            r.shuffle(keep)
        start = g.tip(f"refs/heads/{parent}") if rewrite == "rebase" else g.w("merge-base", parent, before)
        g.w("checkout", "-q", "-B", "feature-b", start)
        for oid in keep:
            g.w("cherry-pick", "--allow-empty", "--keep-redundant-commits", oid)
        if rewrite == "amend":
            (g.work / "b1.txt").write_text("b1 amended\n")
            g.w("commit", "-q", "-a", "--amend", "--no-edit")
        g.push("feature-b")
        after = g.tip("refs/heads/feature-b")
        events.append(Event("head_ref_force_pushed", g.stamp(), before_oid=before, after_oid=after))
        s.append(f"#11 force-pushed ({rewrite})")
    g.git(g.origin, "update-ref", "refs/pull/11/head", g.tip("refs/heads/feature-b"))
    parent_before = g.tip(f"refs/heads/{parent}")
    head_b = g.tip("refs/heads/feature-b")
    merge = r.choice(["open", "squash", "rebase", "merge"])
    dep_base, dep_events = "feature-b", []
    if merge == "open":
        base = _pull(g, 11, "feature-b", parent, head_b, parent_before, events=events)
        new_base = "refs/heads/feature-b"
    else:
        g.w("checkout", "-q", parent)
        g.w("reset", "-q", "--hard", parent_before)
        if merge == "squash":
            g.w("merge", "-q", "--squash", head_b)
            landed = g.commit("PR 11 (#11)", {})
        elif merge == "merge":
            g.w("merge", "-q", "--no-ff", "-m", "Merge pull request #11", head_b)
            landed = g.w("rev-parse", "HEAD")
        else:
            g.w("checkout", "-q", "-B", "landing", head_b)
            g.w("rebase", "-q", "--force-rebase", parent)
            g.w("checkout", "-q", parent)
            g.w("merge", "-q", "--ff-only", "landing")
            landed = g.w("rev-parse", "HEAD")
        g.push(parent)
        top = g.commits("-1", landed)[0]
        listed = g.commits(f"{parent_before}..{head_b}")
        base = Pull(PRRef("acme", "widgets", 11), "PR 11", "", "MERGED", "feature-b", parent, head_b,
                    parent_before, merge_commit=landed, merge_commit_parents=top.parents,
                    merge_commit_parent_count=len(top.parents), merge_commit_headline=top.headline,
                    merge_commit_date=top.date, commits=listed, commit_count=len(listed),
                    events=[*events, Event("merged", g.stamp(), commit_oid=landed)],
                    merged_at=g.stamp())
        if r.random() < 0.5:  # the branch is deleted: GitHub retargets #12 to the branch #11 merged into
            g.keep(head_b)
            g.w("push", "-q", "origin", ":refs/heads/feature-b")
            dep_base = parent
            dep_events = [Event("base_ref_changed", g.stamp(), previous_ref="feature-b", current_ref=parent)]
            s.append(f"#11 {merge}-merged into {parent}, branch deleted, #12 retargeted")
        else:
            s.append(f"#11 {merge}-merged into {parent}, branch kept")
        new_base = f"refs/heads/{parent}"
    # "Update branch": #12 merges its new base into itself (after a squash or rebase merge: the branch below; while
    # the rewritten #11 is open: feature-b, whose old commits #12 still carries)
    update = parent if merge in ("squash", "rebase") else "feature-b" if merge == "open" and rewrite != "none" else ""
    if update and r.random() < 0.3:
        g.w("checkout", "-q", "-B", "feature-d", own[-1])
        merged_in = subprocess.run(["git", "merge", "-q", "--no-ff", "-m", f"Merge branch '{update}' into "
                                    "feature-d", update], cwd=g.work, capture_output=True, env=g.env(), check=False)
        if merged_in.returncode == 0:  # GitHub's button only offers a clean update
            own.append(g.commit(f"d{nd + 1}", {f"d{nd + 1}.txt": "after the update\n"}))
            g.push_dep(own[-1])
            s.append(f"#12 merged {update} into itself, then one more commit")
        else:
            g.w("merge", "--abort")
    dep_tip = g.tip(f"refs/heads/{dep_base}") if dep_base == parent else head_b
    dep = _pull(g, 12, "feature-d", dep_base, own[-1], dep_tip, events=dep_events, cross_repo=bool(g.fork),
                head_repo="contrib/widgets" if g.fork else "acme/widgets", viewer_did_author=True)
    others = []
    if parent == "feature-a":
        others.append(_pull(g, 10, "feature-a", "main", g.tip("refs/heads/feature-a"), g.tip("refs/heads/main")))
    if child:
        g.git(g.origin, "update-ref", "refs/pull/13/head", child[-1])
        others.append(_pull(g, 13, "feature-e", "feature-d", child[-1], own[-1]))
    if not early_clone:
        _clone(g, child)
    return World(g, base, dep, g.patch_ids(own), new_base, s, own, others, g.patch_ids(child))


def _clone(g: Gen, child: list[str]) -> None:
    if g.fork:  # the contributor's clone: origin = the fork, upstream = acme
        g.git(g.root, "clone", "-q", "--no-local", f"file://{g.fork}", str(g.clone))
        g.git(g.clone, "remote", "set-url", "origin", g.url("contrib"))
        g.git(g.clone, "config", f"url.file://{g.fork}.insteadOf", g.url("contrib"))
        g.git(g.clone, "remote", "add", "upstream", g.url())
        g.git(g.clone, "config", f"url.file://{g.origin}.insteadOf", g.url())
        g.git(g.clone, "branch", "-q", "--track", "feature-d", "origin/feature-d")
        return
    g.git(g.root, "clone", "-q", "--no-local", f"file://{g.origin}", str(g.clone))
    g.git(g.clone, "remote", "set-url", "origin", g.url())
    g.git(g.clone, "config", f"url.file://{g.origin}.insteadOf", g.url())
    g.git(g.clone, "branch", "-q", "--track", "feature-d", "origin/feature-d")
    if child:
        g.git(g.clone, "branch", "-q", "--track", "feature-e", "origin/feature-e")


class Source:
    """The StackSource the analysis asks: GitHub's answers, computed from the same git objects."""

    def __init__(self, w: World) -> None:
        self.w, self.default_branch, self.notes = w, "main", []

    def open_with_head(self, head: str) -> list[Pull] | None:
        return None

    def pulls(self) -> list[Pull]:
        return [self.w.base, self.w.dep, *self.w.others]

    def by_head(self, head: str, detail: bool = False) -> list[Pull]:
        return [p for p in self.pulls() if p.head_ref == head]

    def complete(self, pr: Pull) -> Pull:
        return pr

    def children(self, base: str) -> list[Pull]:
        return [p for p in self.pulls() if p.base_ref == base and p.is_open]

    def branch_tip(self, name: str) -> str | None:
        out = self.w.gen.git(self.w.gen.origin, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}", ok=False)
        return out or None

    def history(self, oid: str, n: int) -> list[Commit]:
        return list(reversed(self.w.gen.commits("--first-parent", f"-{n}", oid)))


def remote_refs(g: Gen) -> dict[str, str]:
    """Every ref of origin, and of the fork (prefixed ``fork:``) when there is one."""
    out = {}
    for prefix, where in (("", g.origin), ("fork:", g.fork)):
        if where:
            text = g.git(where, "for-each-ref", "--format=%(refname) %(objectname)")
            out.update((prefix + k, v) for k, v in (line.split(" ", 1) for line in text.splitlines()))
    return out


def run(w: World, base: int = 11) -> Analysis:
    """`stack BASE 12` in-process on the history's facts (no gh), in its clone (whose remotes are on
    ``w.gen.host``), with the CLI's defaults (auto_fix: the fix loop's push is a step too). ``base`` 10 is the bottom
    PR of a 3-4 level stack (`stack BOTTOM TOP` across the merged #11)."""
    ctx = Context(git=Git(w.gen.clone), env={} if w.gen.host == "github.com" else {"GH_HOST": w.gen.host})
    below = next(p for p in [w.base, *w.others] if p.number == base)
    return analyze(ctx, Source(w), below, w.dep, Options(auto_fix=True))  # type: ignore[arg-type]


def plan_commands(w: World, a: Analysis) -> list[tuple[str, bool]]:
    """The in-process plan's git commands in order, each with whether it is #12's rebase (gh steps left out)."""
    return [(s.command, s.command.startswith("git rebase ") and s.pr == str(w.dep.ref)) for s in a.steps
            if s.type == "git" and not s.command.startswith("gh ")]


def execute(w: World, a: Analysis, before: dict[str, str]) -> str:
    """Every git step of the in-process plan, verbatim (see execute_commands)."""
    return execute_commands(w, plan_commands(w, a), before)


def execute_commands(w: World, steps: list[tuple[str, bool]], before: dict[str, str]) -> str:
    """The plan's git commands (each with whether it is #12's rebase), verbatim in bash in the clone (gh steps talk
    to GitHub: not run here). Returns "ran", or "conflict" when #12's rebase stopped on a conflict that
    cherry-picking #12's own commits alone onto the new base hits too (the oracle's rule: a conflict is right
    only when the own work itself conflicts)."""
    for command, dep_rebase in steps:
        proc = subprocess.run(["bash", "-c", command], cwd=w.gen.clone, capture_output=True, text=True,
                              env=w.gen.env(), check=False, timeout=60)
        if proc.returncode != 0 and dep_rebase:
            w.gen.git(w.gen.clone, "rebase", "--abort", ok=False)
            assert own_alone_conflicts(w, before[w.new_base_ref]), (
                f"seed {w.gen.seed} ({'; '.join(w.story)}): {command} conflicted, but #12's own commits "
                f"alone apply cleanly onto {w.new_base_ref}\n{proc.stdout}{proc.stderr}")
            return "conflict"
        assert proc.returncode == 0, f"seed {w.gen.seed} ({'; '.join(w.story)}): {command}\n{proc.stderr}"
    return "ran"


def own_alone_conflicts(w: World, tip: str) -> bool:
    """Whether cherry-picking #12's own commits (as it made them) onto `tip` stops on a conflict."""
    g = w.gen
    scratch = g.root / "own-alone"
    g.git(g.clone, "worktree", "add", "-q", "--detach", str(scratch), tip)
    picked = subprocess.run(["git", "cherry-pick", "--allow-empty", *w.own_oids], cwd=scratch, capture_output=True,
                            env=g.env(), check=False)
    return picked.returncode != 0


def judge(w: World, before: dict[str, str]) -> None:
    """The oracle: remote feature-d = #12's own commits (patch-ids, in order) on top of the new base's tip, and
    #13's feature-e (when there is one) its own commits on top of that; no other remote ref moved."""
    g = w.gen
    why = f"seed {g.seed} ({'; '.join(w.story)})"
    after = remote_refs(g)
    dep_ref = ("fork:" if g.fork else "") + "refs/heads/feature-d"
    moved = {r for r in set(before) | set(after) if before.get(r) != after.get(r)} - {dep_ref, "refs/heads/feature-e"}
    assert not moved, f"{why}: other remote refs moved: {moved}"
    tip, pushed = after[w.new_base_ref], after[dep_ref]
    if g.fork:  # judged in origin: bring the fork's result over (under a ref of its own, after the check above)
        g.git(g.origin, "fetch", "-q", str(g.fork), f"+refs/heads/feature-d:refs/fork-result/{pushed}")
    assert g.git(g.origin, "merge-base", tip, pushed) == tip, f"{why}: not on top of {w.new_base_ref}"
    replayed = g.rev_list("--no-merges", f"{tip}..{pushed}")
    assert g.patch_ids(replayed) == w.own, f"{why}: pushed {len(replayed)} commit(s), own {len(w.own)}"
    if w.child_own:
        child = after["refs/heads/feature-e"]
        assert g.git(g.origin, "merge-base", pushed, child) == pushed, f"{why}: #13 not on top of feature-d"
        on_top = g.rev_list("--no-merges", f"{pushed}..{child}")
        assert g.patch_ids(on_top) == w.child_own, f"{why}: #13 has {len(on_top)} commit(s), own {len(w.child_own)}"
    else:
        assert before.get("refs/heads/feature-e") == after.get("refs/heads/feature-e")
