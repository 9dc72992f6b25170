"""How a merged PR landed: merge commit, squash or rebase (GitHub records no merge method).

From GitHub alone: a merge commit has two parents; a single-parent commit is a rebase merge when the
landed commits keep the PR commits' messages and author dates, else a squash. In a clone the verdict
is checked on content: merging the PR's last head into the commit before the landed change(s) must
give exactly the landed tree (tree equivalence of the PR's changes with what landed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from pr_agent.stack.local import Clone
from pr_agent.stack.model import Commit, MergeMethod, Pull


@dataclass
class MergeFacts:
    method: MergeMethod
    evidence: list[str] = field(default_factory=list)
    checked_locally: bool = False


def _when(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _same(a_headline: str, a_date: str, b_headline: str, b_date: str) -> bool:
    return a_headline.strip() == b_headline.strip() and _when(a_date) is not None and _when(a_date) == _when(b_date)


def detect_api(pull: Pull, history: Callable[[str, int], list[Commit]]) -> MergeFacts:
    """The method as far as GitHub's data tells (one extra query for multi-commit PRs)."""
    mc = pull.merge_commit or ""
    short = mc[:12]
    if pull.merge_commit_parent_count is not None and pull.merge_commit_parent_count >= 2:
        return MergeFacts("merge", [f"The landed commit {short} has two parents (a merge commit)."])
    n = pull.commit_count
    if n <= 1:
        only = pull.commits[0] if pull.commits else None
        if only and _same(only.headline, only.date, pull.merge_commit_headline, pull.merge_commit_date):
            return MergeFacts("rebase", [f"The landed commit {short} keeps the PR commit's message and author "
                                         "date (a rebase merge of one commit; same effect as a squash)."])
        return MergeFacts("squash", [f"#{pull.number} had one commit; the landed commit {short} is a new commit "
                                     "with one parent (a squash merge)."])
    if not pull.all_commits_listed or n > 100:
        return MergeFacts("squash", [f"The landed commit {short} has one parent; #{pull.number} had {n} commits, too "
                                     "many to compare, so a squash merge is assumed."])
    landed = history(mc, n)
    pairs = list(zip(reversed(landed[:n]), pull.commits, strict=False))
    if len(landed) >= n and all(_same(a.headline, a.date, b.headline, b.date) for a, b in pairs):
        return MergeFacts("rebase", [f"The {n} newest commits of the base up to {short} repeat #{pull.number}'s "
                                     f"{n} commits (messages and author dates): a rebase merge."])
    return MergeFacts("squash", [f"#{pull.number}'s {n} commits landed as the single commit {short} "
                                 "(a squash merge)."])


def confirm_locally(clone: Clone, pull: Pull, api: MergeFacts) -> MergeFacts:
    """Check (or correct) the API's verdict on content, when the clone has the commits."""
    mc, head = pull.merge_commit, pull.head_oid
    if not mc or not head or not clone.has(mc) or not clone.has(head):
        return api
    git = clone.git
    top = git.log(mc, max_count=1)
    if not top:
        return api
    parents = top[0].parents
    short = mc[:12]
    if len(parents) >= 2:
        facts = MergeFacts("merge", [f"The landed commit {short} has {len(parents)} parents (a merge commit)."], True)
        if head in parents[1:]:
            facts.evidence.append(f"Its second parent is #{pull.number}'s last head commit {head[:12]}.")
        return facts
    originals = git.log(head, f"^{mc}", max_count=250)  # the PR's own commits, as they were before landing
    k = len(originals)
    if k >= 1:
        chain = git.log(mc, first_parent=True, max_count=k)
        same_meta = len(chain) == k and all(
            (a.subject, a.author_email, a.timestamp) == (b.subject, b.author_email, b.timestamp)
            for a, b in zip(chain, originals, strict=True))
        before = chain[-1].parents[0] if same_meta and chain[-1].parents else None
        if before and git.merge_tree_names(before, head)[0] == git.tree(mc):
            what = "one commit" if k == 1 else f"{k} commits"
            return MergeFacts("rebase", [f"#{pull.number}'s {what} were replayed onto the base with the same "
                                         f"messages and author dates, ending at {short}, and the result has "
                                         "exactly the PR's content (a rebase merge)."], True)
    if parents and git.merge_tree_names(parents[0], head)[0] == git.tree(mc):
        return MergeFacts("squash", [f"The landed commit {short} applies exactly the combined changes of "
                                     f"#{pull.number}'s {k or pull.commit_count} commit(s) (tree equivalence): "
                                     "a squash merge."], True)
    return MergeFacts(api.method if api.method != "merge" else "unknown",
                      [*api.evidence, f"The content of {short} differs from #{pull.number}'s combined changes "
                       "(edited or conflict-resolved while merging); the method could not be proven."], True)
