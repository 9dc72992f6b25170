"""What the stack analysis knows about pull requests and commits (GitHub's answer, normalised)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pr_agent.refs import PRRef

MergeMethod = Literal["merge", "squash", "rebase", "unknown"]


@dataclass(frozen=True)
class Commit:
    oid: str
    headline: str = ""
    author: str = ""
    author_email: str = ""
    date: str = ""
    parents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Event:
    """A timeline item: base_ref_changed, head_ref_deleted, head_ref_restored, head_ref_force_pushed, merged."""

    kind: str
    created_at: str = ""
    previous_ref: str | None = None
    current_ref: str | None = None
    before_oid: str | None = None
    after_oid: str | None = None
    commit_oid: str | None = None


@dataclass
class Pull:
    ref: PRRef
    title: str
    url: str
    state: str  # OPEN | MERGED | CLOSED
    head_ref: str
    base_ref: str
    head_oid: str
    base_oid: str
    cross_repo: bool = False
    head_repo: str | None = None  # owner/name of the repository the head branch lives in (a fork: not ref's)
    maintainer_can_modify: bool = False  # a fork PR's "Allow edits by maintainers"
    viewer_did_author: bool = False
    merged_at: str | None = None
    merge_commit: str | None = None
    merge_commit_parents: tuple[str, ...] = ()
    merge_commit_parent_count: int | None = None
    merge_commit_headline: str = ""
    merge_commit_date: str = ""
    commits: list[Commit] = field(default_factory=list)
    commit_count: int = 0
    events: list[Event] | None = None  # None: the timeline was not fetched

    @property
    def number(self) -> int:
        return self.ref.number

    @property
    def is_open(self) -> bool:
        return self.state == "OPEN"

    @property
    def is_merged(self) -> bool:
        return self.state == "MERGED"

    @property
    def head_branch_deleted(self) -> bool:
        """Whether the timeline's last head-branch event is a deletion (None timeline: not known, False)."""
        last = [e.kind for e in self.events or [] if e.kind in ("head_ref_deleted", "head_ref_restored")]
        return bool(last) and last[-1] == "head_ref_deleted"

    @property
    def commit_oids(self) -> set[str]:
        return {c.oid for c in self.commits}

    @property
    def fork_point(self) -> str | None:
        """Parent of the PR's first commit as GitHub lists it (the commit the PR starts from)."""
        if self.commits and self.commits[0].parents:
            return self.commits[0].parents[0]
        return None

    @property
    def all_commits_listed(self) -> bool:
        return len(self.commits) >= self.commit_count

    def former_bases(self) -> list[str]:
        """Base branches this PR had before, newest change first."""
        return [e.previous_ref for e in reversed(self.events or []) if e.kind == "base_ref_changed"
                and e.previous_ref]

    def former_heads(self) -> list[str]:
        """Head commits this PR had before a force-push, newest first."""
        return [e.before_oid for e in reversed(self.events or []) if e.kind == "head_ref_force_pushed"
                and e.before_oid]


def _oid(node: Any) -> str | None:
    return node.get("oid") if isinstance(node, dict) else None


def _commit(node: dict[str, Any]) -> Commit:
    author = node.get("author") or {}
    user = author.get("user") or {}
    parents = tuple(p["oid"] for p in ((node.get("parents") or {}).get("nodes") or []) if p)
    return Commit(oid=node["oid"], headline=node.get("messageHeadline") or "",
                  author=user.get("login") or author.get("name") or "", author_email=author.get("email") or "",
                  date=node.get("authoredDate") or "", parents=parents)


_EVENT_KINDS = {"BaseRefChangedEvent": "base_ref_changed", "HeadRefDeletedEvent": "head_ref_deleted",
                "HeadRefRestoredEvent": "head_ref_restored", "HeadRefForcePushedEvent": "head_ref_force_pushed",
                "MergedEvent": "merged"}


def pull_from_graphql(ref: PRRef, node: dict[str, Any]) -> Pull:
    """A PullRequest selected with the StackNode or StackDetail fragment."""
    merge = node.get("mergeCommit") or {}
    parents = merge.get("parents") or {}
    commits_conn = node.get("commits") or {}
    commits = [_commit(n["commit"]) for n in commits_conn.get("nodes") or [] if n and n.get("commit")]
    events = None
    if "timelineItems" in node:
        events = []
        for item in (node.get("timelineItems") or {}).get("nodes") or []:
            kind = _EVENT_KINDS.get((item or {}).get("__typename", ""))
            if kind:
                events.append(Event(kind, item.get("createdAt") or "", item.get("previousRefName"),
                                    item.get("currentRefName"), _oid(item.get("beforeCommit")),
                                    _oid(item.get("afterCommit")), _oid(item.get("commit"))))
    return Pull(
        ref=PRRef(ref.owner, ref.repo, int(node["number"]), ref.host),
        title=node.get("title") or "", url=node.get("url") or "", state=node.get("state") or "OPEN",
        head_ref=node.get("headRefName") or "", base_ref=node.get("baseRefName") or "",
        head_oid=node.get("headRefOid") or "", base_oid=node.get("baseRefOid") or "",
        cross_repo=bool(node.get("isCrossRepository")),
        head_repo=(node.get("headRepository") or {}).get("nameWithOwner"),
        maintainer_can_modify=bool(node.get("maintainerCanModify")),
        viewer_did_author=bool(node.get("viewerDidAuthor")),
        merged_at=node.get("mergedAt"), merge_commit=merge.get("oid"),
        merge_commit_parents=tuple(p["oid"] for p in parents.get("nodes") or [] if p),
        merge_commit_parent_count=parents.get("totalCount") if parents else None,
        merge_commit_headline=merge.get("messageHeadline") or "", merge_commit_date=merge.get("authoredDate") or "",
        commits=commits, commit_count=int(commits_conn.get("totalCount") or len(commits)), events=events,
    )
