"""The ordered command plan for restacking: pure, from decisions already made by the analysis.

Order: fetch; prepare and verify every local branch (nothing is rewritten until every check passed);
rebase each branch, parents before children; one atomic push with a lease per branch; retarget; wait
for CI; and, with auto_fix, the test-and-fix loop. The tool itself never runs any of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pr_agent.refs import PRRef
from pr_agent.shellcmd import comment
from pr_agent.stack import shell
from pr_agent.stack.fork import HeadSource
from pr_agent.stack.local import LocalBranch
from pr_agent.stack.model import Pull

StepType = Literal["git", "ci_wait", "test", "fix", "verification"]
CI_TIME = "5-30 minutes"


@dataclass
class Step:
    type: StepType
    command: str
    description: str
    estimated_duration: str | None = None
    can_automate: bool = True
    skip_if: str | None = None
    retry_on_failure: bool | None = None
    max_retries: int | None = None
    pr: str | None = None
    call: Any = None  # a surface.Step when the step is one of our tools (shown over MCP as tool + arguments)


@dataclass
class Restack:
    """One branch to move: replay old_base..branch onto new_base (regular rebase when old_base is None)."""

    pull: Pull
    new_base: str          # command-ready: refs/remotes/<remote>/<branch>, or a local branch restacked before
    new_base_label: str    # for people: origin/main, feature-b
    old_base: str | None
    local: LocalBranch | None = None
    conflicts: list[str] = field(default_factory=list)
    source: HeadSource | None = None  # None: the branch of spec.remote (a same-repository PR)

    @property
    def branch(self) -> str:
        return self.pull.head_ref

    def head(self, remote: str) -> HeadSource:
        return self.source or HeadSource(remote, shell.head_ref(self.branch), shell.remote_ref(remote, self.branch),
                                         remote)


@dataclass
class PlanSpec:
    repo: PRRef
    remote: str
    fetch_branches: list[str]
    restacks: list[Restack]
    retargets: list[tuple[Pull, str]]
    auto_fix: bool
    max_iterations: int
    in_clone: bool
    sources: dict[int, HeadSource] = field(default_factory=dict)  # fork PRs' heads (by number), restacked or not


def _prepare(spec: PlanSpec, r: Restack) -> list[Step]:
    branch, pr = r.branch, str(r.pull.ref)
    head = r.head(spec.remote)
    remote, source = head.fetch_remote, (None if head.tracks_branch else head.track)
    local = r.local
    steps = []
    if not spec.in_clone:
        steps.append(Step("git", shell.create_branch_if_missing(remote, branch, source),
                          f"Create the local branch {branch} from GitHub's copy unless you already have it.",
                          "seconds", pr=pr))
    elif local and local.state == "missing":
        steps.append(Step("git", shell.create_branch(remote, branch, source),
                          f"Create the local branch {branch} from GitHub's copy (you do not have it yet).",
                          "seconds", pr=pr))
    elif local and local.state == "behind":
        steps.append(Step("git", shell.fast_forward(remote, branch, local.checked_out_here, source),
                          f"Fast-forward your local {branch} to GitHub's head ({local.missing} commit(s) behind); "
                          "nothing of yours is lost.", "seconds", pr=pr))
    check = shell.contains(r.pull.head_oid, branch)
    what = f"your local {branch} contains GitHub's head {r.pull.head_oid[:12]}"
    if r.old_base:
        check += " && " + shell.contains(r.old_base, branch)
        what += f" and the old base {r.old_base[:12]}"
    steps.append(Step("verification", check,
                      f"Check that {what}. If this fails, stop: your branch differs from what was analysed "
                      f"(reconcile it with GitHub's copy, e.g. `git pull --rebase`, then call the tool again).",
                      "seconds", pr=pr))
    return steps


def _rebase(r: Restack) -> Step:
    if r.old_base:
        command = shell.rebase_onto(r.new_base, r.old_base, r.branch)
        what = (f"Replay only #{r.pull.number}'s own commits ({r.old_base[:12]}..{r.branch}) onto "
                f"{r.new_base_label}")
    else:
        command = shell.rebase(r.new_base, r.branch)
        what = f"Rebase {r.branch} onto {r.new_base_label}"
    conflict_note = (f" Expected conflicts in: {', '.join(r.conflicts[:10])}." if r.conflicts else "")
    return Step("git", command,
                f"{what} (this checks out {r.branch}).{conflict_note} If git stops on a conflict: fix the files, "
                "`git add` them, `git rebase --continue`; or `git rebase --abort` to get back to where you were.",
                "seconds; longer if git stops on a conflict", can_automate=not r.conflicts,
                retry_on_failure=False, pr=str(r.pull.ref))


def build_steps(spec: PlanSpec) -> list[Step]:
    steps: list[Step] = []
    pushed: list[Restack] = []
    if spec.restacks:
        steps.append(Step("git", shell.fetch(spec.remote, spec.fetch_branches),
                          "Fetch the new base and the branches to restack from GitHub (updates only "
                          f"{spec.remote}'s remote-tracking refs).", "seconds"))
        for r in spec.restacks:
            head = r.head(spec.remote)
            if head.fork:
                via = (f"its fork's remote {head.fetch_remote}" if head.tracks_branch else
                       f"GitHub's read-only copy refs/pull/{r.pull.number}/head in {head.fetch_remote}")
                steps.append(Step("git", shell.fetch_ref(head.fetch_remote, head.fetch_ref, head.track),
                                  f"Fetch #{r.pull.number}'s head {r.branch} (from the fork {r.pull.head_repo}) "
                                  f"through {via}, into {head.track}.", "seconds", pr=str(r.pull.ref)))
        for r in spec.restacks:
            steps += _prepare(spec, r)
        steps += [_rebase(r) for r in spec.restacks]
        by_remote: dict[str, list[Restack]] = {}
        for r in spec.restacks:
            push_remote = r.head(spec.remote).push_remote
            if push_remote:
                by_remote.setdefault(push_remote, []).append(r)
        for push_remote, group in by_remote.items():
            leases = [(r.branch, r.pull.head_oid) for r in group]
            names = ", ".join(b for b, _ in leases)
            where = "" if push_remote == spec.remote else f" to {push_remote} (the fork they live in)"
            steps.append(Step("git", shell.push(push_remote, leases),
                              f"Push the rebased branch(es) {names}{where}. Each lease makes the push fail instead of "
                              "overwriting commits someone pushed since the analysis"
                              + ("; --atomic updates all branches or none." if len(leases) > 1 else "."),
                              "seconds", retry_on_failure=False))
            pushed += group
    for pull, base in spec.retargets:
        same = shell.join(["gh", "pr", "edit", str(pull.number), "--base", base])
        steps.append(Step("git", shell.retarget(pull.ref, base),
                          f"Point #{pull.number} at {base} (its base is {pull.base_ref} now), so GitHub shows only "
                          f"its own changes. Same as `{same}` on recent gh.",
                          "seconds", pr=str(pull.ref)))
    # CI runs on what GitHub got: a pushed branch or a changed base (a rebase the plan cannot push changes neither)
    touched = [r.pull for r in pushed] + [p for p, _ in spec.retargets if p.number not in {r.pull.number
                                                                                           for r in pushed}]
    remotes = {n: src.push_remote for n, src in spec.sources.items()}
    for pull in touched:
        steps.append(Step("ci_wait", shell.checks(pull.ref),
                          f"Wait for CI on #{pull.number} and list failing tests.", CI_TIME, pr=str(pull.ref),
                          call=shell.checks_call(pull.ref)))
    if spec.auto_fix:
        for pull in touched:
            push_remote = remotes.get(pull.number, spec.remote)
            if push_remote:
                steps += _fix_loop(spec, pull, push_remote)
    return steps


def _fix_loop(spec: PlanSpec, pull: Pull, push_remote: str) -> list[Step]:
    pr, branch, n = str(pull.ref), pull.head_ref, spec.max_iterations
    skip = f"CI on #{pull.number} passed"
    return [
        Step("fix", comment(f"fix what the CI run of #{pull.number} reported, on branch {shell.join([branch])}, "
                            "and commit"),
             f"Fix the failures the rebase introduced in #{pull.number} (you edit the code; run the failing tests "
             "locally first), then commit on top.", "varies", skip_if=skip, retry_on_failure=True, max_retries=n,
             pr=pr),
        Step("git", shell.plain_push(push_remote, branch), f"Push the fix commits of {branch} (a fast-forward).",
             "seconds", skip_if=skip, pr=pr),
        Step("verification", shell.checks(pull.ref),
             f"Wait for CI on #{pull.number} again; repeat the fix steps at most {n} time(s), then ask a human.",
             CI_TIME, skip_if=skip, retry_on_failure=True, max_retries=n, pr=pr, call=shell.checks_call(pull.ref)),
    ]
