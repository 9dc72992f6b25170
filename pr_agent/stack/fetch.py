"""GitHub reads for the stack analysis, all through the gh gateway (GraphQL, variables only).

The first query (both PRs, or one) also selects what the analysis asks for next: the tip of each PR's base
branch (``baseRef.target``), the landed commit's history (``mergeCommit.history``) and the repository's
open PRs (one page of up to 100). ``children``, ``branch_tip`` and ``history`` answer from that prefetch
when it holds the answer, and otherwise ask GitHub as before (one lookup per stack level, one per branch,
one per history), so a missing or incomplete prefetch costs requests, never correctness. Where a listing
is capped, a note says so (``notes``): nothing is left out silently.
"""

from __future__ import annotations

from typing import Any

from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh
from pr_agent.queries import load_query
from pr_agent.refs import PRRef
from pr_agent.review.fetch import pr_not_found
from pr_agent.stack.model import Commit, Pull, pull_from_graphql

OPEN_PAGE = 100  # first: of the open-PR listing in StackRepository
FIRST_PAGE = {"stack_children": 50, "stack_by_head": 20}  # one page answers almost every lookup
LISTING_CAP = 200  # PRs read per lookup at most (further pages of 100); beyond it, a note says so
HISTORY_PREFETCH = 100  # first: of mergeCommit.history in StackDetail


def _history(nodes: list[Any]) -> list[Commit]:
    return [Commit(oid=n["oid"], headline=n.get("messageHeadline") or "", date=n.get("authoredDate") or "",
                   author_email=((n.get("author") or {}).get("email") or "")) for n in nodes if n]


class StackSource:
    """Reads one repository's pull requests, branches and commits."""

    def __init__(self, gh: Gh, repo: PRRef) -> None:
        self.gh = gh
        self.repo = repo
        self.default_branch: str | None = None
        self.notes: list[str] = []  # listings that hit a cap (the tools add them to their warnings)
        self._open: list[Pull] | None = None  # every open PR, when the prefetch holds them all
        self._by_head: dict[str, list[Pull]] = {}
        self._detailed_heads: set[str] = set()  # by_head lookups that read the latest merged PR in full
        self._children: dict[str, list[Pull]] = {}
        self._tips: dict[str, str | None] = {}
        self._histories: dict[str, list[Commit]] = {}

    def _vars(self, **extra: Any) -> dict[str, Any]:
        return {"owner": self.repo.owner, "repo": self.repo.repo, **extra}

    def _query(self, name: str, variables: dict[str, Any]) -> dict[str, Any]:
        return self.gh.graphql(load_query(name), variables, hostname=self.repo.host)

    def _ref(self, number: int) -> PRRef:
        return PRRef(self.repo.owner, self.repo.repo, number, self.repo.host)

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _repository(self, data: dict[str, Any], number: int) -> dict[str, Any]:
        repo = data.get("repository")
        if not repo:
            raise pr_not_found(self._ref(number))
        self.default_branch = (repo.get("defaultBranchRef") or {}).get("name") or self.default_branch
        listing = repo.get("openPulls")
        if isinstance(listing, dict) and not (listing.get("pageInfo") or {}).get("hasNextPage", True):
            self._open = [pull_from_graphql(self.repo, n) for n in listing.get("nodes") or [] if n]
        return repo

    def _detail(self, node: dict[str, Any]) -> Pull:
        """A StackDetail node: the pull, plus its base branch's tip and its landed commit's history."""
        ref = node.get("baseRef") or {}
        tip = (ref.get("target") or {}).get("oid")
        if ref.get("name") and tip:
            self._tips.setdefault(ref["name"], tip)
        merge = node.get("mergeCommit") or {}
        if merge.get("oid") and isinstance(merge.get("history"), dict):
            self._histories[merge["oid"]] = _history(merge["history"].get("nodes") or [])
        return pull_from_graphql(self.repo, node)

    def pulls(self, base: int, dependent: int, onto: str | None = None) -> tuple[Pull, Pull]:
        """Both PRs of a manage_stacked_prs call, in one round trip (with the tip of `onto`, when given)."""
        variables = self._vars(base=base, dependent=dependent, withOnto=onto is not None,
                               onto=f"refs/heads/{onto}" if onto else "")
        try:
            data = self._query("stack_pulls", variables)
        except PrAgentError as err:
            raise self._not_found(err, {"base": base, "dependent": dependent}) from None
        repo = self._repository(data, base)
        if onto is not None and "onto" in repo:  # asked for by name: a missing branch (null) is an answer too
            self._tips[onto] = ((repo.get("onto") or {}).get("target") or {}).get("oid")
        found = []
        for alias, number in (("base", base), ("dependent", dependent)):
            node = repo.get(alias)
            if not node:
                raise pr_not_found(self._ref(number))
            found.append(self._detail(node))
        return found[0], found[1]

    def pull(self, number: int) -> Pull:
        try:
            data = self._query("stack_pull", self._vars(number=number))
        except PrAgentError as err:
            raise self._not_found(err, {"pullRequest": number}) from None
        node = self._repository(data, number).get("pullRequest")
        if not node:
            raise pr_not_found(self._ref(number))
        return self._detail(node)

    def _not_found(self, err: PrAgentError, aliases: dict[str, int]) -> PrAgentError:
        if err.code != "not_found":
            return err
        for e in err.details.get("graphql_errors", []):
            path = list(e.get("path") or [])
            if len(path) >= 2 and path[0] == "repository" and path[1] in aliases:
                return pr_not_found(self._ref(aliases[path[1]]), err)
        first = next(iter(aliases.values()))
        return pr_not_found(self._ref(first), err)

    def _listing(self, name: str, first_only: dict[str, Any] | None = None,
                 **variables: Any) -> tuple[list[dict[str, Any]], int | None, dict[str, Any]]:
        """The PR nodes of a paged lookup, up to LISTING_CAP; the total when that cut it short (else None); the
        first page's ``repository``, asked with `first_only` too (what the query reads besides the listing)."""
        nodes: list[dict[str, Any]] = []
        after, first = None, FIRST_PAGE[name]
        first_repo: dict[str, Any] | None = None
        while True:
            extra = (first_only or {}) if first_repo is None else {}
            data = self._query(name, self._vars(first=first, after=after, **variables, **extra))
            repo = data.get("repository") or {}
            first_repo = repo if first_repo is None else first_repo
            conn = repo.get("pullRequests") or {}
            nodes += [n for n in conn.get("nodes") or [] if n]
            page = conn.get("pageInfo") or {}
            if not page.get("hasNextPage") or not page.get("endCursor"):
                return nodes, None, first_repo
            if len(nodes) >= LISTING_CAP:
                return nodes, int(conn.get("totalCount") or 0), first_repo
            after, first = page["endCursor"], min(100, LISTING_CAP - len(nodes))

    def by_head(self, head: str, detail: bool = False) -> list[Pull]:
        """PRs (open, merged or closed; most recently updated first) whose head branch is `head`.

        With `detail`, the same request also reads the most recently updated merged one in full (StackDetail:
        every commit, the landed commit's parents and history, the timeline with its force-pushes), so the
        PR an upstream lookup picks can be analysed as if it had been named."""
        if head not in self._by_head or (detail and head not in self._detailed_heads):
            nodes, cut, repo = self._listing("stack_by_head", {"withMerged": detail}, head=head)
            full = {int(n["number"]): self._detail(n) for n in (repo.get("merged") or {}).get("nodes") or []
                    if n and n.get("headRefName") == head and not n.get("isCrossRepository")}
            self._by_head[head] = [full.get(int(n["number"])) or pull_from_graphql(self.repo, n) for n in nodes
                                   if n.get("headRefName") == head and not n.get("isCrossRepository")]
            if detail:
                self._detailed_heads.add(head)
            if cut is not None:
                self._note(f"Only the {len(nodes)} most recently updated of the {cut} PRs with head branch "
                           f"{head!r} were read; the stack was traced through those.")
        return self._by_head[head]

    def complete(self, pull: Pull) -> Pull:
        """`pull` with every field a named PR has (StackDetail): as it is when it has them, else read again."""
        return pull if pull.events is not None else self.pull(pull.number)

    def open_with_head(self, head: str) -> list[Pull] | None:
        """Open same-repository PRs whose head branch is `head`, oldest first, when the prefetch holds every
        open PR (None: not known without a lookup)."""
        if self._open is None:
            return None
        return [p for p in self._open if p.head_ref == head and not p.cross_repo]

    def children(self, base: str) -> list[Pull]:
        """Open PRs whose base branch is `base`, oldest first."""
        if base not in self._children:
            if self._open is not None:
                self._children[base] = [p for p in self._open if p.base_ref == base]
                return self._children[base]
            nodes, cut, _ = self._listing("stack_children", base=base)
            self._children[base] = [pull_from_graphql(self.repo, n) for n in nodes if n.get("baseRefName") == base]
            if cut is not None:
                self._note(f"Only the {len(nodes)} oldest of the {cut} open PRs based on {base!r} were read; PRs "
                           "stacked there beyond them are not in this answer.")
        return self._children[base]

    def branch_tip(self, branch: str) -> str | None:
        """The commit a branch of the repository points at, or None when it does not exist."""
        if branch not in self._tips:
            data = self._query("stack_branch", self._vars(qualified=f"refs/heads/{branch}"))
            ref = (data.get("repository") or {}).get("ref") or {}
            self._tips[branch] = (ref.get("target") or {}).get("oid")
        return self._tips[branch]

    def history(self, oid: str, count: int) -> list[Commit]:
        """The `count` newest commits of `oid`'s history (oid first)."""
        count = max(1, min(count, 100))
        known = self._histories.get(oid)
        if known and (len(known) >= count or len(known) < HISTORY_PREFETCH):
            return known[:count]  # prefetched: enough commits, or the whole history
        data = self._query("stack_history", self._vars(oid=oid, n=count))
        obj = (data.get("repository") or {}).get("object") or {}
        return _history(((obj.get("history") or {}).get("nodes")) or [])
