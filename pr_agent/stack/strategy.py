"""The rebase strategy: plain rebase or --onto, with the reason and what an agent should weigh.

``ai_should_decide`` is true only when both commands are valid: either they give the same result
(the plain rebase replays exactly the dependent's own commits) or they are two legitimate outcomes
(a base PR closed without merging, or an explicit move off the base PR).
"""

from __future__ import annotations

from typing import Literal

from pr_agent import surface
from pr_agent.stack import shell
from pr_agent.stack.discovery import siblings
from pr_agent.stack.facts import Analysis, Options, Strategy
from pr_agent.stack.fetch import StackSource
from pr_agent.stack.model import Pull


def _own_commits(a: Analysis) -> int | None:
    dep, old = a.dependent, a.old.oid
    if not old:
        return None
    if a.clone and a.clone.has(old) and a.clone.has(dep.head_oid):
        n = a.clone.git.count(dep.head_oid, f"^{old}")
        if n is not None:
            return n
    if old in dep.commit_oids and dep.all_commits_listed:
        oids = [c.oid for c in dep.commits]
        return len(oids) - oids.index(old) - 1
    if dep.fork_point == old:
        return dep.commit_count
    return None


def _carried_count(a: Analysis, own: int | None) -> int | None:
    """Commits a plain rebase replays beyond the dependent's own: those of the base PR it still carries."""
    if own is None or not a.clone or not a.tip or not a.clone.has(a.tip):
        return None
    total = a.clone.git.count(a.dependent.head_oid, f"^{a.tip}")
    return None if total is None else max(total - own, 0)


def _carried(a: Analysis, own: int | None) -> str:
    n = _carried_count(a, own)
    return f" ({n} commit(s) that are not {('#' + str(a.dependent.number))}'s own)" if n else ""


def decide(a: Analysis, opts: Options, regular_valid: bool, moving_off: bool, remote: str) -> Strategy:
    base, dep, old, target = a.base, a.dependent, a.old, a.target_branch
    new_ref, label = shell.remote_ref(remote, target), f"{remote}/{target}"
    b, d = f"#{base.number}", f"#{dep.number}"
    if not a.needs_rebase:
        if base.is_open:
            reason = f"{d} already contains {b}'s latest head {base.head_oid[:12]}: nothing to rebase."
        else:
            landed = (base.merge_commit or "")[:12]
            reason = f"{d} already sits on {target} with {b}'s landed commit {landed}: nothing to rebase."
        if a.retarget_to:
            reason += f" Only its base must change, from {dep.base_ref} to {a.retarget_to}."
        return Strategy("none", reason, None, None, False, [old.describe(base)] if old.oid else [])
    onto_cmd = shell.rebase_onto(new_ref, old.oid, dep.head_ref) if old.oid else None
    regular_cmd = shell.rebase(new_ref, dep.head_ref)
    cons: list[str] = []
    closed = not base.is_open and not base.is_merged
    if opts.use_onto is True and onto_cmd:
        rec: Literal["regular", "onto"] = "onto"
        if opts.say_use_onto:
            cons.append("use_onto=true asked for --onto.")
    elif opts.use_onto is False or onto_cmd is None:
        rec = "regular"
        if opts.use_onto is False:
            cons.append("use_onto=false asked for a plain rebase.")
    elif closed:
        rec = "regular"
    elif moving_off:
        rec = "onto"
    else:
        rec = "regular" if regular_valid else "onto"
    method = a.merge.method if a.merge else None
    own = _own_commits(a)
    mine = f"{d}'s own {own} commit(s)" if own is not None else f"{d}'s own commits"
    n = base.commit_count
    short = (old.oid or "")[:12]
    if closed:
        reason = (f"{b} was closed without merging, and {d} still carries its commits. Keep them (plain rebase "
                  f"onto {label}) or drop them (--onto {label} {short}): your call.")
    elif moving_off:
        reason = (f"Moving {d} off {b} onto {target} (onto_base): --onto drops {b}'s commits from {d}; a plain "
                  "rebase would keep them.")
    elif base.is_open:
        if not regular_valid:
            reason = (f"{b} was force-pushed after {d} was built on it: a plain rebase would replay {b}'s old "
                      f"commits{_carried(a, own)}; --onto {label} {short} replays only {mine}.")
        else:
            reason = (f"{b} has new commits and was not rewritten: a plain rebase onto {label} replays only "
                      f"{mine}, the same result as --onto.")
    elif method == "squash":
        n = _carried_count(a, own) or n
        reason = (f"{b} was squash-merged into {target}: its commits landed as one new commit, so {d} still "
                  f"carries {n} original commit(s) of it. --onto {label} {short} replays only {mine}.")
        cons.append(f"A plain rebase would replay {b}'s {n} original commit(s)"
                    + (" and conflict with the squash commit." if n > 1 else
                       "; git skips a single identical commit only when it recognises it."))
    elif method == "rebase":
        reason = (f"{b} was rebase-merged into {target}: its commits were re-created with new ids. --onto {label} "
                  f"{short} replays only {mine}; a plain rebase depends on git recognising every re-created commit.")
    elif method == "merge":
        reason = (f"{b} was merged into {target} with a merge commit that contains its commits unchanged: a plain "
                  f"rebase onto {label} replays only {mine}, exactly like --onto.")
    else:
        reason = (f"{b} was merged into {target}, by a method that could not be proven; --onto {label} {short} "
                  "is correct whatever the method.")
    regular_exact = regular_valid or closed or moving_off
    if rec == "regular" and not regular_exact:
        cons.append(f"This plain rebase also replays {b}'s original commits: expect conflicts, or use --onto.")
    if a.merge:
        cons += a.merge.evidence
    if old.oid:
        cons.append(f"Old base: {old.describe(base)}.")
    ai = bool(onto_cmd) and regular_valid and opts.use_onto is None
    if old.how == "ambiguous":
        ai = True
        cons.insert(0, f"The facts do not pin where {d}'s own commits start (a force-push of {b} left no version of it "
                    f"in {d}'s history): pick the upstream whose replayed commits are exactly {d}'s own. The plan "
                    f"uses {short}, the candidate that replays the fewest.")
        for oid, commits in old.candidates:
            subjects = "; ".join(s for _, s in commits[:10]) + ("; …" if len(commits) > 10 else "")
            cons.append(f"Candidate upstream {oid[:12]}: `{shell.rebase_onto(new_ref, oid, dep.head_ref)}` replays "
                        f"{len(commits)} commit(s): {subjects or 'none'}.")
    return Strategy(rec, reason, regular_cmd, onto_cmd, ai, cons, regular_exact)


def describe_changes(a: Analysis, above: list[tuple[Pull, Pull]], src: StackSource) -> list[str]:
    base, dep = a.base, a.dependent
    out: list[str] = []
    if not a.in_clone:
        out.append(f"Not run inside a clone of {dep.ref.full_name}: upstream files, conflict prediction and the "
                   "content check of the merge method need one (run the tool from the clone).")
    moved = [c for c, _ in above] if a.needs_rebase else []
    if moved:
        out.append(", ".join(f"#{c.number}" for c in moved) + f" (stacked on #{dep.number}) "
                   + ("is" if len(moved) == 1 else "are") + " restacked too, each onto its freshly rebased parent.")
    others = siblings(src, base, dep)
    if others:  # siblings (also those GitHub retargeted when base's branch was deleted), each with its command
        moved_on = [p for p in others if p.base_ref != base.head_ref]
        note = (f"; {', '.join(f'#{p.number}' for p in moved_on)} now based on {base.base_ref} (retargeted when "
                f"#{base.number}'s branch was deleted)" if moved_on else "")
        out.append("Also stacked on #" + str(base.number) + ": " + ", ".join(f"#{p.number}" for p in others)
                   + f" (call the tool for each{note}).")
        out.append("Restack commands for them: " + "; ".join(
            surface.show(surface.call("manage_stacked_prs", {"base_pr": base.ref.qualified,
                                                             "dependent_pr": p.ref.qualified}))
            for p in others[:10]) + ("; …" if len(others) > 10 else "") + ".")
    for pull, role in a.chain:
        if role == "below" and pull.is_merged and base.is_open and base.base_ref == pull.head_ref:
            out.append(f"#{pull.number} below #{base.number} was merged while #{base.number} still targets "
                       f"{pull.head_ref}: restack #{base.number} first (stack {pull.number} {base.number}).")
    if a.changes.conflicts:
        out.append("Predicted conflicts (your changes replayed onto the new base as one 3-way merge): "
                   + ", ".join(a.changes.conflicts[:20]) + ".")
    return out
