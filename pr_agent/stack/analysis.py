"""The stack analysis behind manage_stacked_prs and rebase_after_squash_merge.

GitHub (through gh) says how the PRs relate and how the base PR landed; the local clone, when the tool
runs inside one, proves ancestry, checks the merge method on content, lists upstream changes and
predicts conflicts. The result is a set of decisions plus the ordered command plan (pr_agent.stack.plan).
"""

from __future__ import annotations

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.stack import discovery, shell
from pr_agent.stack.facts import Analysis, Changes, Options, Risk, Strategy
from pr_agent.stack.fetch import StackSource
from pr_agent.stack.fork import head_source
from pr_agent.stack.local import Clone
from pr_agent.stack.merge import confirm_locally, detect_api
from pr_agent.stack.model import Commit, Pull
from pr_agent.stack.plan import PlanSpec, Restack, build_steps
from pr_agent.stack.strategy import decide, describe_changes


def _roles(below: list[Pull], base: Pull, dep: Pull, above: list[tuple[Pull, Pull]]) -> list[tuple[Pull, str]]:
    named = {base.number, dep.number}  # PRs not stacked as given may reach each other through below/above
    return [*((p, "below") for p in reversed(below) if p.number not in named), (base, "base"), (dep, "dependent"),
            *((c, "above") for c, _ in above if c.number not in named)]


def analyze(ctx: Context, src: StackSource, base: Pull, dep: Pull, opts: Options) -> Analysis:
    a = _analyze(ctx, src, base, dep, opts)
    a.warnings += [n for n in src.notes if n not in a.warnings]  # capped listings: never a silent truncation
    return a


def _analyze(ctx: Context, src: StackSource, base: Pull, dep: Pull, opts: Options) -> Analysis:
    default = src.default_branch or "main"
    clone = Clone.detect(ctx.git, dep.ref, ctx.env)
    if clone:
        clone.ensure([dep.head_oid, base.merge_commit, *discovery.base_versions(base)])
    rel = discovery.relation(base, dep, clone)
    moving_off = base.is_open and bool(opts.onto_base) and opts.onto_base != base.head_ref
    # `stack BOTTOM TOP` across a middle PR merged into BOTTOM's branch: TOP is stacked on BOTTOM through it, whether
    # GitHub retargeted TOP (the middle's branch deleted) or not (its base is still the merged middle's branch)
    middle = discovery.merged_between(src, base, dep) if base.is_open and dep.is_open and not moving_off else None
    if rel == "none" and middle is not None:
        rel = "history"
    below = discovery.ancestors(src, base, default)
    # a fork PR's head branch is not a branch of this repository: nothing here can be based on it
    above = discovery.descendants(src, dep) if dep.is_open and not dep.cross_repo else []
    a = Analysis(base, dep, default, rel, dep.base_ref, clone, "", _roles(below, base, dep, above))
    if rel != "none" and middle is None and base.is_open and dep.is_open and not moving_off:
        _open_between(a, src)
    if rel == "none" or not dep.is_open:
        return _nothing(a, src, below, above)
    if base.is_open and base.cross_repo and not opts.onto_base:
        # its branch is in the fork: a same-named branch of this repository is another branch altogether
        raise PrAgentError(
            "invalid_arguments", f"#{base.number}'s branch {base.head_ref!r} lives in the fork {base.head_repo}, not "
            f"in {dep.ref.full_name}; the plan cannot rebase onto an open PR from a fork.",
            suggestion="Pass onto_base (a branch of this repository), or restack once that PR is merged.",
            details={"field": "base_pr", "value": str(base.ref), "reason": "open PR from a fork"})
    target = opts.onto_base or (base.head_ref if base.is_open else base.base_ref)
    shell.check_name(target, "target branch")
    shell.check_name(dep.head_ref, f"head branch of #{dep.number}")
    a.target_branch = target
    tip = base.head_oid if base.is_open and not moving_off else src.branch_tip(target)
    if not tip:
        raise PrAgentError("ref_not_found", f"The branch {target!r} does not exist in {dep.ref.full_name}.",
                           suggestion="Pass an existing branch as onto_base (e.g. the default branch, "
                           f"{default!r}).", details={"field": "onto_base", "value": target})
    if clone:
        clone.ensure([tip])
    a.tip = tip
    a.old = discovery.old_base(base, dep.head_oid, dep, clone, tip)
    if middle is not None:
        # a PR between the two was merged into base's branch (squash or rebase: new commits there): dep's own work
        # starts after that PR's last head, not at base's old head
        if clone:
            clone.ensure([middle.merge_commit, *discovery.base_versions(middle)])
        carried = discovery.old_base(middle, dep.head_oid, dep, clone)
        if carried.oid:
            a.old = discovery.OldBase(carried.oid, "former_head" if carried.how == "head" else carried.how,
                                      carried.candidates)
            a.warnings.append(f"#{middle.number} (between #{base.number} and #{dep.number}) was merged into "
                              f"{base.head_ref}; #{dep.number} still carries its original commits, so its own work "
                              f"starts after {carried.oid[:12]}.")
    if base.is_merged and base.merge_commit:
        a.merge = detect_api(base, src.history)
        if clone:
            a.merge = confirm_locally(clone, base, a.merge)
    a.needs_rebase = _needs_rebase(a, clone, tip, moving_off)
    if not a.needs_rebase and not base.is_open:
        a.old = discovery.OldBase(None, "none")  # nothing of the base PR is left to skip
    if dep.base_ref != target and (not base.is_open or moving_off or middle is not None):
        a.retarget_to = target
    remote = clone.remote if clone else "origin"
    restacks: list[Restack] = []
    regular_valid = _regular_valid(a, clone, tip, moving_off)
    a.strategy = decide(a, opts, regular_valid, moving_off, remote)
    dep_source = head_source(dep, remote, clone, dep.ref.host or ctx.env.get("GH_HOST") or "github.com")
    if a.needs_rebase and a.strategy.recommended != "none":
        upstream = a.old.oid if a.strategy.recommended == "onto" else None
        restacks.append(Restack(dep, shell.remote_ref(remote, target), f"{remote}/{target}", upstream,
                                source=dep_source if dep.cross_repo else None))
        restacks += _descendants(a, above, clone)
        if dep_source.cannot_push:
            a.warnings.append(dep_source.cannot_push)
    if clone:
        _local_checks(a, clone, restacks, tip)
    a.changes = _changes(a, clone, tip, opts)
    a.changes.conflicts = restacks[0].conflicts if restacks else []
    a.strategy.considerations += describe_changes(a, above, src)
    spec = PlanSpec(dep.ref, remote, [target, *(r.branch for r in restacks if r.source is None)], restacks,
                    [(dep, a.retarget_to)] if a.retarget_to else [], opts.auto_fix, opts.max_iterations,
                    clone is not None, {dep.number: dep_source} if dep.cross_repo else {})
    a.steps = build_steps(spec)
    a.risk = _risk(a, clone, restacks)
    a.reason = a.strategy.reason
    if a.needs_rebase and a.retarget_to:
        a.reason += f" Then point #{dep.number} at {a.retarget_to} (its base is still {dep.base_ref})."
    a.visualization = discovery.visualize(default, below, base, dep, above, _notes(a, restacks))
    return a


def _open_between(a: Analysis, src: StackSource) -> None:
    """`stack BOTTOM TOP` while the PR between them is open: the answer is about BOTTOM only; say which PR TOP is
    really built on and how to restack it there (a rewritten middle PR is not visible from BOTTOM)."""
    base, dep = a.base, a.dependent
    if not dep.base_ref or dep.base_ref in (base.head_ref, a.default_branch):
        return
    parent = next((p for p in src.by_head(dep.base_ref, detail=True) if p.is_open
                   and p.number not in (base.number, dep.number)), None)
    if parent is not None:
        again = surface.call("manage_stacked_prs", {"base_pr": parent.ref.qualified, "dependent_pr": dep.ref.qualified})
        a.warnings.append(surface.text(
            f"#{dep.number} is based on #{parent.number} ({dep.base_ref}), which is open and between #{base.number} "
            f"and #{dep.number}: this answer is about #{base.number} only. To restack #{dep.number} on "
            f"#{parent.number} (after a force-push of it, say), call ", again, "."))


def _nothing(a: Analysis, src: StackSource, below: list[Pull], above: list[tuple[Pull, Pull]]) -> Analysis:
    base, dep = a.base, a.dependent
    parents: list[Pull] = []
    if not dep.is_open:
        a.reason = f"#{dep.number} is {dep.state.lower()}: there is nothing to restack."
    else:
        a.reason = (f"#{dep.number} is not stacked on #{base.number}: its base is {dep.base_ref!r} (never "
                    f"{base.head_ref!r}) and it does not contain #{base.number}'s commits.")
        parents = [p for p in src.by_head(dep.base_ref) if p.number != base.number] \
            if dep.base_ref != a.default_branch else []
        if parents:
            a.reason += f" It is stacked on #{parents[0].number} ({dep.base_ref})."
        elif discovery.relation(dep, base, None) != "none":
            swapped = surface.call("manage_stacked_prs", {"base_pr": dep.ref.qualified,
                                                          "dependent_pr": base.ref.qualified})
            a.reason += surface.text(
                f" It is the other way round: #{base.number} is built on #{dep.number}; call again as ",
                swapped, ".")
    a.strategy = Strategy("none", a.reason, None, None, False, [])
    if a.relation == "none":  # not stacked as given: draw how the PRs really stand, never one on the other
        a.visualization = discovery.visualize_actual(
            a.default_branch, [*reversed(below), base, *parents[:1], dep, *(c for c, _ in above)], base, dep)
    else:
        a.visualization = discovery.visualize(a.default_branch, below, base, dep, above, {})
    return a


def _needs_rebase(a: Analysis, clone: Clone | None, tip: str, moving_off: bool) -> bool:
    base, dep = a.base, a.dependent
    local = clone is not None and clone.has(dep.head_oid)
    if base.is_open and not moving_off:
        if local and clone and clone.has(tip):
            # the base's tip is in (also after "Update branch"), but commits below the old base that the new base
            # lacks (a rewritten base's old commits, a merged middle PR's originals) still have to go
            old = a.old.oid
            return not clone.is_ancestor(tip, dep.head_oid) or bool(
                old and clone.has(old) and clone.is_ancestor(old, dep.head_oid) and not clone.is_ancestor(old, tip))
        return not (base.head_oid in dep.commit_oids or dep.fork_point == base.head_oid)
    if base.is_merged and base.merge_commit:
        if local and clone and clone.has(base.merge_commit):
            if not clone.is_ancestor(base.merge_commit, dep.head_oid):
                return True
            # the landed commit is in (e.g. "Update branch" merged the default branch in) — after a squash or
            # rebase merge the base's original commits may still be there too: they must go
            method = a.merge.method if a.merge else "unknown"
            return method != "merge" and bool(a.old.oid) and bool(clone.is_ancestor(a.old.oid, dep.head_oid)) \
                and not clone.is_ancestor(a.old.oid, base.merge_commit)
        return (base.head_oid in dep.commit_oids or dep.fork_point == base.head_oid
                or dep.fork_point in base.commit_oids or bool(base.commit_oids & dep.commit_oids))
    if local and clone and a.old.oid:
        return bool(clone.is_ancestor(a.old.oid, dep.head_oid))
    return a.old.oid is not None


def _regular_valid(a: Analysis, clone: Clone | None, tip: str, moving_off: bool) -> bool:
    """Whether a plain rebase onto the new base replays exactly the dependent's own commits."""
    base, old = a.base, a.old
    if not old.oid:
        return True
    if base.is_open and not moving_off:
        if old.how in ("former_head", "former_version", "same_patch", "ambiguous"):
            return False
        if clone and clone.has(tip) and clone.has(old.oid):
            return bool(clone.is_ancestor(old.oid, tip))
        return old.oid == base.head_oid or old.oid in base.commit_oids or old.how == "fork_point"
    if base.is_merged and a.merge and a.merge.method == "merge":
        if clone and clone.has(tip) and clone.has(old.oid):
            return bool(clone.is_ancestor(old.oid, tip))
        return True
    return not base.is_merged  # closed or moving off: a plain rebase keeps the base PR's commits (another outcome)


def _descendants(a: Analysis, above: list[tuple[Pull, Pull]], clone: Clone | None) -> list[Restack]:
    out: list[Restack] = []
    moved = {a.dependent.number}
    for child, parent in above:
        if parent.number not in moved:
            continue
        if child.cross_repo:
            a.warnings.append(f"#{child.number} (stacked on #{parent.number}) comes from a fork; restack it in "
                              "a clone of that fork after this plan (the same --onto steps apply).")
            continue
        shell.check_name(child.head_ref, f"head branch of #{child.number}")
        if clone:
            clone.ensure([child.head_oid])
        old = discovery.child_old_base(parent, child, clone)
        out.append(Restack(child, shell.head_ref(parent.head_ref), f"{parent.head_ref} (just restacked)", old))
        moved.add(child.number)
    return out


def _local_checks(a: Analysis, clone: Clone, restacks: list[Restack], tip: str) -> None:
    if clone.fetch_failed:
        a.warnings.append(f"Some commits could not be fetched from {clone.remote}; the analysis used what the clone "
                          "has (run the fetch step, then call again for a complete answer).")
    for r in restacks:
        r.local = clone.branch(r.branch, r.pull.head_oid)
        loc = r.local
        if loc.state == "ahead":
            a.warnings.append(f"Your local {r.branch} has {loc.unpushed} commit(s) that are not on GitHub; the plan "
                              "rebases and pushes them too.")
        elif loc.state == "diverged":
            a.warnings.append(f"Your local {r.branch} and GitHub's head have diverged ({loc.unpushed} local, "
                              f"{loc.missing} remote commit(s)); reconcile them first — the verification step "
                              "stops the plan until you do.")
        if loc.worktree:
            a.warnings.append(f"{r.branch} is checked out in another worktree ({loc.worktree}); git refuses to "
                              "rebase it from here: run the plan there, or switch that worktree to another branch.")
    if restacks:
        if clone.git.has_local_changes():
            a.warnings.append("This worktree has uncommitted changes; commit or stash them first (git rebase "
                              "refuses to start otherwise).")
        busy = clone.git.operation_in_progress()
        if busy:
            a.warnings.append(f"A {busy} is in progress in this worktree; finish or abort it first.")
        first = restacks[0]
        mb = first.old_base or clone.merge_base(tip, a.dependent.head_oid)
        if mb and clone.has(tip):
            predicted = clone.predicted_conflicts(tip, mb, a.dependent.head_oid)
            if predicted is None:  # unknown is not clean: say so rather than report no conflicts
                a.warnings.append("Conflicts could not be predicted in this clone (git merge-tree --write-tree "
                                  "needs git 2.38 or newer): none are listed because they are unknown, not because "
                                  "the rebase is known to be clean.")
            first.conflicts = predicted or []


def _changes(a: Analysis, clone: Clone | None, tip: str, opts: Options) -> Changes:
    base, dep = a.base, a.dependent
    end = opts.commit_offset + opts.commit_limit
    if clone and clone.has(tip) and clone.has(dep.head_oid):
        total, entries = clone.new_commits(tip, dep.head_oid, end)
        commits = [Commit(e.oid, e.subject, e.author_name, e.author_email, e.date, e.parents) for e in entries]
        files = clone.files_changed(tip, dep.head_oid)[:300] if total else []
        return Changes(total, commits[opts.commit_offset:end], files, [], "local", total > end)
    if base.is_open and a.old.oid:
        oids = [c.oid for c in base.commits]
        new = list(reversed(base.commits[oids.index(a.old.oid) + 1:])) if a.old.oid in oids else []
        return Changes(len(new), new[opts.commit_offset:end], [], [], "api", len(new) > end)
    if base.is_merged and base.merge_commit and a.needs_rebase:
        landed = Commit(base.merge_commit, base.merge_commit_headline, "", "", base.merge_commit_date)
        return Changes(1, [landed][opts.commit_offset:end], [], [], "api")
    return Changes(source="api")


def _risk(a: Analysis, clone: Clone | None, restacks: list[Restack]) -> Risk:
    if not a.steps:
        return "low"
    if any(r.conflicts for r in restacks) or any(r.local and r.local.state == "diverged" for r in restacks):
        return "high"
    if a.strategy.recommended == "regular" and not a.strategy.regular_is_exact:
        return "high"
    if a.old.how == "ambiguous":
        return "high"
    if clone is None or a.old.how in ("fork_point", "assumed") or (a.merge and a.merge.method == "unknown"):
        return "medium"
    return "low"


def _notes(a: Analysis, restacks: list[Restack]) -> dict[int, str]:
    notes: dict[int, str] = {}
    if a.base.is_merged:
        how = a.merge.method if a.merge else "unknown"
        notes[a.base.number] = f"merged ({how}) into {a.base.base_ref}" + (
            "; branch deleted" if a.base.head_branch_deleted else "")
    for r in restacks:
        notes[r.pull.number] = f"restack onto {r.new_base_label}"
    if a.relation == "retargeted":
        prev = notes.get(a.dependent.number, "")
        notes[a.dependent.number] = f"was based on {a.base.head_ref}" + (f"; {prev}" if prev else "")
    return notes
