"""Stack discovery: how two PRs relate, the chain around them, and where the dependent's own work starts.

A PR is stacked on another when its base branch is the other's head branch ("direct"), when its base
used to be that branch before GitHub (or someone) retargeted it ("retargeted": a BaseRefChangedEvent),
or when its commits contain the other's head commit although the bases differ ("history").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pr_agent.stack.fetch import StackSource
from pr_agent.stack.local import Clone
from pr_agent.stack.model import Pull

Relation = Literal["direct", "retargeted", "history", "none"]
MAX_DEPTH = 10
MAX_DESCENDANTS = 30


def relation(base: Pull, dep: Pull, clone: Clone | None) -> Relation:
    if dep.base_ref == base.head_ref and not base.cross_repo:
        return "direct"
    if base.head_ref and base.head_ref in dep.former_bases():
        return "retargeted"
    if base.head_oid and (base.head_oid in dep.commit_oids or dep.fork_point == base.head_oid):
        return "history"
    if clone and clone.has(base.head_oid) and clone.has(dep.head_oid) and clone.is_ancestor(base.head_oid,
                                                                                            dep.head_oid):
        landed = base.merge_commit
        if not (landed and clone.has(landed) and clone.is_ancestor(landed, dep.head_oid)):
            return "history"
    return "none"


How = Literal["head", "former_head", "former_version", "same_patch", "fork_point", "assumed", "ambiguous", "none"]


@dataclass(frozen=True)
class OldBase:
    """The exclusive end of the replay range (``<upstream>`` of ``git rebase --onto``), and how it was found.

    ``ambiguous``: the facts do not pin it; ``candidates`` holds each possible boundary (oid) with the commits
    (oid, subject) it would replay, and ``oid`` is the most conservative of them (replays the fewest)."""

    oid: str | None
    how: How
    candidates: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def describe(self, base: Pull) -> str:
        short = (self.oid or "")[:12]
        return {
            "head": f"{short} is #{base.number}'s last head commit, and your branch contains it",
            "former_head": f"{short} was #{base.number}'s head before it was force-pushed, and your branch "
                           "contains it",
            "former_version": f"{short} is the last commit your branch shares with a version of #{base.number} from "
                              "before a force-push (the commits after it are not in any version of it)",
            "same_patch": f"{short} is your branch's copy of a commit of #{base.number} (same patch-id as one of "
                          "its versions); your own commits start after it",
            "fork_point": f"{short} is where your branch left #{base.number}'s history (the last commit they share)",
            "assumed": f"{short} is #{base.number}'s last head commit; whether your branch contains it could not "
                       "be checked without a clone (the plan verifies it before rebasing)",
            "ambiguous": f"where your own commits start is not pinned by the facts; {short} is the most conservative "
                         "candidate (see the candidates listed)",
            "none": "no commit of the base PR was found in your branch",
        }[self.how]


def base_versions(base: Pull) -> list[str]:
    """Every head the base PR is known to have had: now, and before/after each force-push (newest first)."""
    out = [base.head_oid]
    for e in reversed(base.events or []):
        if e.kind == "head_ref_force_pushed":
            out += [e.after_oid or "", e.before_oid or ""]
    return [o for o in dict.fromkeys(out) if o]


def old_base(base: Pull, dep_head: str, dep: Pull | None, clone: Clone | None,
             target_tip: str | None = None) -> OldBase:
    """The last commit of `base` that the dependent branch contains: the exclusive end of the replay range.

    In a clone: the highest of the merge-bases of the dependent's head with every known version of the base
    (its head now, every HeadRefForcePushedEvent before/after), moved up over the dependent's commits whose
    patch-id equals a commit of one of those versions. Candidates that are not in one line: ``ambiguous``.
    Without a clone: the parent's head (``headRefOid``) or a head from before a force-push when the
    dependent's commits list it; else the fork point, unless the base was rewritten (``ambiguous``)."""
    versions = base_versions(base)
    if clone and clone.has(dep_head):
        return _in_clone(base, dep_head, clone, versions, target_tip)
    listed = dep.commit_oids if dep else set()
    fork_point = dep.fork_point if dep else None
    for oid in versions:
        if oid and (oid in listed or oid == fork_point):
            return OldBase(oid, "head" if oid == base.head_oid else "former_head")
    if dep and base.former_heads() and dep.commits:
        return _ambiguous_listed(dep)
    if dep and dep.base_ref == base.head_ref and fork_point:
        return OldBase(fork_point, "fork_point")
    return OldBase(base.head_oid or None, "assumed")


def _ambiguous_listed(dep: Pull) -> OldBase:
    """The base was force-pushed and no version of it is in the dependent's listed commits: every listed commit
    (and the fork point) could be where the dependent's own work starts."""
    commits = dep.commits[-20:]
    points = [commits[0].parents[0]] if commits and commits[0].parents else []
    points += [c.oid for c in commits[:-1]]
    cands = tuple((p, tuple((c.oid, c.headline) for c in commits[i:])) for i, p in enumerate(points))
    return OldBase(points[-1] if points else None, "ambiguous", cands)


def _in_clone(base: Pull, dep_head: str, clone: Clone, versions: list[str], target_tip: str | None) -> OldBase:
    known = [v for v in versions if clone.has(v)]
    points: list[str] = []
    for v in known:
        mb = v if clone.is_ancestor(v, dep_head) else clone.merge_base(dep_head, v)
        if mb and mb not in points:
            points.append(mb)
    if not points:
        return OldBase(None, "none")
    if target_tip and clone.has(target_tip) and len(points) > 1:
        # a merge-base that the new base already contains (the dependent merged the default branch in, or the base
        # was rebased onto it) pins nothing: the rebase onto the new base leaves those commits out anyway
        specific = [p for p in points if not clone.is_ancestor(p, target_tip)]
        points = specific or points
    tops = [p for p in points if all(q == p or clone.is_ancestor(q, p) for q in points)]
    if not tops:  # candidates not in one line of history: the facts cannot pin the boundary
        cands = tuple((p, _replayed(clone, p, dep_head)) for p in points)
        best = min(cands, key=lambda c: len(c[1]))[0]
        return OldBase(best, "ambiguous", cands)
    top = tops[0]
    how: How = ("head" if top == base.head_oid else "former_head" if top in versions else
                "former_version" if len(known) > 1 else "fork_point")
    same = _same_patch(clone, known, dep_head)
    for oid, parents in _first_parent_chain(clone, top, dep_head):
        if oid not in same or len(parents) != 1:
            break
        top, how = oid, "same_patch"
    return OldBase(top, how)


def _first_parent_chain(clone: Clone, start: str, head: str) -> list[tuple[str, tuple[str, ...]]]:
    entries = clone.git.log(head, f"^{start}", first_parent=True, max_count=500)
    return [(e.oid, e.parents) for e in reversed(entries)]


def _same_patch(clone: Clone, versions: list[str], head: str) -> set[str]:
    """The dependent's commits whose patch-id equals a commit of one of the base's versions (`git cherry`)."""
    out: set[str] = set()
    for v in versions:
        out |= clone.git.same_patch(v, head) or set()
    return out


def _replayed(clone: Clone, start: str, head: str) -> tuple[tuple[str, str], ...]:
    return tuple((e.oid, e.subject) for e in reversed(clone.git.log(head, f"^{start}", max_count=50)))


def ancestors(src: StackSource, base: Pull, default_branch: str) -> list[Pull]:
    """The PRs below `base`, nearest first (each one's head is the next one's base)."""
    out: list[Pull] = []
    seen = {base.number}
    cur = base
    for _ in range(MAX_DEPTH):
        if cur.base_ref == default_branch or not cur.base_ref:
            break
        parent = _parent(src, cur.base_ref, seen)
        if parent is None:
            break
        out.append(parent)
        seen.add(parent.number)
        cur = parent
    else:
        if cur.base_ref != default_branch and cur.base_ref:
            src.notes.append(f"The stack below #{base.number} was followed down {MAX_DEPTH} levels only (to "
                             f"#{cur.number}); PRs further down are not shown.")
    return out


def _parent(src: StackSource, head: str, seen: set[int]) -> Pull | None:
    """The PR whose head is `head`: an open one first, else a merged one. The prefetched open PRs answer when
    exactly one open PR has that head (the lookup would pick the same one); otherwise one lookup."""
    opened = [p for p in src.open_with_head(head) or [] if p.number not in seen]
    if len(opened) == 1:
        return opened[0]
    prs = [p for p in src.by_head(head) if p.number not in seen]
    return next((p for p in prs if p.is_open), None) or next((p for p in prs if p.is_merged), None)


def descendants(src: StackSource, top: Pull) -> list[tuple[Pull, Pull]]:
    """(child, its parent) for every open PR stacked on `top`, recursively, parents before children."""
    out: list[tuple[Pull, Pull]] = []
    seen = {top.number}
    queue = [top]
    while queue and len(out) < MAX_DESCENDANTS:
        parent = queue.pop(0)
        for child in src.children(parent.head_ref):
            if child.number in seen:
                continue
            seen.add(child.number)
            out.append((child, parent))
            queue.append(child)
    if len(out) > MAX_DESCENDANTS:
        src.notes.append(f"More than {MAX_DESCENDANTS} PRs are stacked on #{top.number}: only the first "
                         f"{MAX_DESCENDANTS} (nearest first) are shown and restacked; call the tool again for the "
                         "others once these are done.")
    elif queue and len(out) == MAX_DESCENDANTS:
        src.notes.append(f"{MAX_DESCENDANTS} PRs stacked on #{top.number} are shown and restacked; PRs stacked "
                         "further up on them were not looked for.")
    return out[:MAX_DESCENDANTS]


def child_old_base(parent: Pull, child: Pull, clone: Clone | None) -> str | None:
    """Where a child's own commits start on top of its (about to be restacked) parent."""
    if clone and clone.has(child.head_oid) and clone.has(parent.head_oid):
        if clone.is_ancestor(parent.head_oid, child.head_oid):
            return parent.head_oid
        return clone.merge_base(child.head_oid, parent.head_oid)
    if parent.head_oid in child.commit_oids or child.fork_point == parent.head_oid:
        return parent.head_oid
    return child.fork_point or parent.head_oid


def visualize(default_branch: str, below: list[Pull], base: Pull, dep: Pull, above: list[tuple[Pull, Pull]],
              notes: dict[int, str]) -> str:
    """An indented tree from the trunk up: every PR with its state and base, the two PRs marked."""
    lines = [default_branch]
    order = [*reversed(below), base, dep]
    depth: dict[int, int] = {}
    for i, pr in enumerate(order):
        depth[pr.number] = i
        lines.append(_line(pr, i, base, dep, notes))
    for child, parent in above:
        depth[child.number] = depth.get(parent.number, len(order) - 1) + 1
        lines.append(_line(child, depth[child.number], base, dep, notes))
    return "\n".join(lines)


def visualize_actual(default_branch: str, pulls: list[Pull], base: Pull, dep: Pull) -> str:
    """For two PRs that are not stacked as given: the PRs as they really are, each under its own base branch (a
    PR under the PR whose head branch is its base), then one line that says how the two relate."""
    uniq: dict[int, Pull] = {}
    for p in pulls:
        uniq.setdefault(p.number, p)
    by_head: dict[str, Pull] = {}
    for p in uniq.values():  # an open PR owns its head branch; a merged or closed one only while no open one does
        if not p.cross_repo and (p.head_ref not in by_head or (p.is_open and not by_head[p.head_ref].is_open)):
            by_head[p.head_ref] = p
    children: dict[int, list[Pull]] = {}
    roots: dict[str, list[Pull]] = {}
    for p in uniq.values():
        parent = by_head.get(p.base_ref) if p.base_ref != default_branch else None
        if parent is not None and parent.number != p.number and not _built_on(parent, p, by_head, default_branch):
            children.setdefault(parent.number, []).append(p)
        else:
            roots.setdefault(p.base_ref, []).append(p)
    lines: list[str] = []

    def walk(pr: Pull, level: int, seen: set[int]) -> None:
        lines.append(_line(pr, level, base, dep, {}))
        for child in children.get(pr.number, []):
            if child.number not in seen:
                walk(child, level + 1, seen | {child.number})

    for branch in sorted(roots, key=lambda b: (b != default_branch, b)):
        lines.append(branch)
        for pr in roots[branch]:
            walk(pr, 0, {pr.number})
    lines.append(_not_stacked_line(base, dep, by_head, default_branch))
    return "\n".join(lines)


def _built_on(upper: Pull, lower: Pull, by_head: dict[str, Pull], default_branch: str) -> bool:
    """`upper` sits, directly or through other PRs, on `lower`'s head branch."""
    cur, seen = upper, {upper.number}
    while cur.base_ref != default_branch and cur.base_ref in by_head:
        cur = by_head[cur.base_ref]
        if cur.number == lower.number:
            return True
        if cur.number in seen:
            return False
        seen.add(cur.number)
    return False


def _not_stacked_line(base: Pull, dep: Pull, by_head: dict[str, Pull], default_branch: str) -> str:
    if _built_on(base, dep, by_head, default_branch):
        return (f"(not stacked in that order: #{base.number} is built on #{dep.number}, so #{dep.number} is the "
                f"base and #{base.number} the dependent)")
    return f"(not stacked: #{dep.number} is not built on #{base.number})"


def _line(pr: Pull, level: int, base: Pull, dep: Pull, notes: dict[int, str]) -> str:
    state = pr.state.lower()
    bits = [f"#{pr.number} {pr.head_ref}", f"[{state}]", f"base: {pr.base_ref}"]
    if pr.number == base.number:
        bits.append("<- base_pr")
    if pr.number == dep.number:
        bits.append("<- dependent_pr")
    if pr.number in notes:
        bits.append(f"({notes[pr.number]})")
    return "   " * level + "└─ " + "  ".join(bits)


def find_upstream(src: StackSource, dep: Pull, default_branch: str) -> Pull | None:
    """The PR a dependent was stacked on: the PR whose head is its base branch (merged or not), else the
    merged PR whose head was a former base (GitHub retargets children when a merged head branch is deleted).

    A merged one comes with everything a named PR has (every commit, how it landed, its force-pushes): the
    lookup reads the latest merged PR of the branch in full, and one more request completes any other."""
    found = _upstream(src, dep, default_branch)
    return src.complete(found) if found is not None and found.is_merged else found


def carried_merged(src: StackSource, dep: Pull) -> Pull | None:
    """A merged former base whose commits the dependent still carries (its listed commits contain one of that PR's
    commits or a version of its head, or start from one): GitHub retargeted the dependent when that PR's branch
    was deleted, but the replay must still skip that PR's original commits. Newest base change first."""
    listed = dep.commit_oids | ({dep.fork_point} if dep.fork_point else set())
    for name in dep.former_bases():
        for p in src.by_head(name, detail=True):
            if p.number != dep.number and p.is_merged and listed & (p.commit_oids | set(base_versions(p))):
                return p
    return None


def merged_between(src: StackSource, base: Pull, dep: Pull) -> Pull | None:
    """A PR between `base` and `dep` that was merged into `base`'s branch (the middle of a stack merged into the PR
    below): the PR of `dep`'s base branch, kept after that merge, or a merged former base whose commits `dep` still
    carries or that GitHub retargeted `dep` away from (onto `base`'s branch, when that PR's branch was deleted)."""
    if dep.base_ref and dep.base_ref != base.head_ref:
        for p in src.by_head(dep.base_ref, detail=True):
            if p.number not in (dep.number, base.number) and p.is_merged and p.base_ref == base.head_ref:
                return p
    for found in (carried_merged(src, dep), retargeted_from_merged(src, dep)):
        if found is not None and found.number != base.number and found.base_ref == base.head_ref:
            return found
    return None


def retargeted_from_merged(src: StackSource, dep: Pull) -> Pull | None:
    """The merged PR GitHub retargeted the dependent away from: a ``BaseRefChangedEvent`` from that PR's head branch
    to the branch it merged into, at or after its merge (what GitHub records when a merged PR's branch is deleted).
    Newest base change first. The dependent may carry rewritten copies of its commits that no listing names (the PR
    was force-pushed after the dependent branched off), so this holds without any commit in common."""
    for e in reversed(dep.events or []):
        if e.kind != "base_ref_changed" or not e.previous_ref:
            continue
        for p in src.by_head(e.previous_ref, detail=True):
            if (p.number != dep.number and p.is_merged and p.base_ref == e.current_ref
                    and _not_before(e.created_at, p.merged_at)):
                return p
    return None


def _not_before(when: str, merged_at: str | None) -> bool:
    """`when` is at or after `merged_at` (GitHub's ISO 8601 times; unknown times: not shown, False)."""
    try:
        return bool(merged_at) and _time(when) >= _time(merged_at or "")
    except ValueError:
        return False


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def siblings(src: StackSource, base: Pull, dep: Pull) -> list[Pull]:
    """The other open PRs stacked on `base`: based on its branch now, and, once it merged, those GitHub retargeted
    onto the branch it merged into when its branch was deleted (their base is that branch now; they still start
    with one of `base`'s commits, or from one of its heads — the facts GitHub lists for every open PR)."""
    found: list[Pull] = []
    if base.head_ref and not base.head_branch_deleted:
        found += [p for p in src.children(base.head_ref) if p.number != dep.number]
    if base.is_merged and base.base_ref:
        mine = base.commit_oids | set(base_versions(base))
        for p in src.children(base.base_ref):
            if p.number in (dep.number, base.number) or p.number in {q.number for q in found}:
                continue
            first = p.commits[0].oid if p.commits else None
            if (first and first in base.commit_oids) or (p.fork_point in mine and p.fork_point != base.base_oid) \
                    or base.head_ref in p.former_bases():
                found.append(p)
    return found


def _upstream(src: StackSource, dep: Pull, default_branch: str) -> Pull | None:
    if dep.base_ref and dep.base_ref != default_branch:
        prs = [p for p in src.by_head(dep.base_ref, detail=True) if p.number != dep.number]
        found = next((p for p in prs if p.is_open), None) or next((p for p in prs if p.is_merged), None)
        if found and found.is_open:  # retargeted onto an open PR: the merged former base below it comes first
            found = carried_merged(src, dep) or retargeted_from_merged(src, dep) or found
        if found:
            return found
    for name in dep.former_bases():
        prs = [p for p in src.by_head(name, detail=True) if p.number != dep.number]
        found = next((p for p in prs if p.is_merged), None) or next((p for p in prs if p.is_open), None)
        if found:
            return found
    return None
