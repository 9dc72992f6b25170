"""GitHub reads for the stack analysis, all through the gh gateway (GraphQL, variables only)."""

from __future__ import annotations

from typing import Any

from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh, load_query
from pr_agent.refs import PRRef
from pr_agent.review.fetch import pr_not_found
from pr_agent.stack.model import Commit, Pull, pull_from_graphql


class StackSource:
    """Reads one repository's pull requests, branches and commits."""

    def __init__(self, gh: Gh, repo: PRRef) -> None:
        self.gh = gh
        self.repo = repo
        self.default_branch: str | None = None
        self._by_head: dict[str, list[Pull]] = {}
        self._children: dict[str, list[Pull]] = {}
        self._tips: dict[str, str | None] = {}

    def _vars(self, **extra: Any) -> dict[str, Any]:
        return {"owner": self.repo.owner, "repo": self.repo.repo, **extra}

    def _query(self, name: str, variables: dict[str, Any]) -> dict[str, Any]:
        return self.gh.graphql(load_query(name), variables, hostname=self.repo.host)

    def _ref(self, number: int) -> PRRef:
        return PRRef(self.repo.owner, self.repo.repo, number, self.repo.host)

    def _repository(self, data: dict[str, Any], number: int) -> dict[str, Any]:
        repo = data.get("repository")
        if not repo:
            raise pr_not_found(self._ref(number))
        self.default_branch = (repo.get("defaultBranchRef") or {}).get("name") or self.default_branch
        return repo

    def pulls(self, base: int, dependent: int) -> tuple[Pull, Pull]:
        """Both PRs of a manage_stacked_prs call, in one round trip."""
        try:
            data = self._query("stack_pulls", self._vars(base=base, dependent=dependent))
        except PrAgentError as err:
            raise self._not_found(err, {"base": base, "dependent": dependent}) from None
        repo = self._repository(data, base)
        found = []
        for alias, number in (("base", base), ("dependent", dependent)):
            node = repo.get(alias)
            if not node:
                raise pr_not_found(self._ref(number))
            found.append(pull_from_graphql(self.repo, node))
        return found[0], found[1]

    def pull(self, number: int) -> Pull:
        try:
            data = self._query("stack_pull", self._vars(number=number))
        except PrAgentError as err:
            raise self._not_found(err, {"pullRequest": number}) from None
        node = self._repository(data, number).get("pullRequest")
        if not node:
            raise pr_not_found(self._ref(number))
        return pull_from_graphql(self.repo, node)

    def _not_found(self, err: PrAgentError, aliases: dict[str, int]) -> PrAgentError:
        if err.code != "not_found":
            return err
        for e in err.details.get("graphql_errors", []):
            path = list(e.get("path") or [])
            if len(path) >= 2 and path[0] == "repository" and path[1] in aliases:
                return pr_not_found(self._ref(aliases[path[1]]), err)
        first = next(iter(aliases.values()))
        return pr_not_found(self._ref(first), err)

    def by_head(self, head: str) -> list[Pull]:
        """PRs (open, merged or closed; most recently updated first) whose head branch is `head`."""
        if head not in self._by_head:
            data = self._query("stack_by_head", self._vars(head=head))
            nodes = (((data.get("repository") or {}).get("pullRequests") or {}).get("nodes") or [])
            self._by_head[head] = [pull_from_graphql(self.repo, n) for n in nodes
                                   if n and n.get("headRefName") == head and not n.get("isCrossRepository")]
        return self._by_head[head]

    def children(self, base: str) -> list[Pull]:
        """Open PRs whose base branch is `base`, oldest first."""
        if base not in self._children:
            data = self._query("stack_children", self._vars(base=base))
            nodes = (((data.get("repository") or {}).get("pullRequests") or {}).get("nodes") or [])
            self._children[base] = [pull_from_graphql(self.repo, n) for n in nodes
                                    if n and n.get("baseRefName") == base]
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
        data = self._query("stack_history", self._vars(oid=oid, n=max(1, min(count, 100))))
        obj = (data.get("repository") or {}).get("object") or {}
        nodes = ((obj.get("history") or {}).get("nodes")) or []
        return [Commit(oid=n["oid"], headline=n.get("messageHeadline") or "", date=n.get("authoredDate") or "",
                       author_email=((n.get("author") or {}).get("email") or "")) for n in nodes if n]
