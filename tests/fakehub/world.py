"""The live, mutable state of one fakehub: the normalized scenario plus lookups and the writes GitHub does.

``world.data`` is the normalized scenario (same keys as the scenario file; see
fixtures/scenarios/README.md). Tests read it directly, e.g.::

    hub.world.thread("PRRT_kwDOAAAB")["resolved"] is True
    hub.world.thread("PRRT_kwDOAAAB")["comments"][-1]["body"] == "Fixed in abc123"
    hub.world.pull_request("acme/widgets", 42)["issue_comments"][-1]["author"] == "octocat"

Tests may also edit ``world.data`` between requests (call ``world.reindex()`` after adding objects).
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .scenario import fill_user, fmt_time, implicit_review, node_id, normalize


@dataclass
class Located:
    """Where an object lives: kind is repository|pull_request|thread|comment|review|issue_comment|user."""

    kind: str
    obj: dict[str, Any]
    repo: dict[str, Any] | None = None
    pr: dict[str, Any] | None = None
    thread: dict[str, Any] | None = None


class World:
    def __init__(self, scenario: dict[str, Any] | str | Path) -> None:
        self.data: dict[str, Any] = normalize(scenario)
        self.lock = threading.RLock()
        self.reindex()

    # ---------------------------------------------------------------- lookups
    def __getitem__(self, key: str) -> Any:
        """``world["repositories"]`` is ``world.data["repositories"]``."""
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def viewer(self) -> str:
        return self.data["viewer"]["login"]

    @property
    def users(self) -> dict[str, dict[str, Any]]:
        return self.data["users"]

    @property
    def repositories(self) -> list[dict[str, Any]]:
        return self.data["repositories"]

    def reindex(self) -> None:
        """Rebuild the id indexes (after a test edited ``data`` by hand)."""
        nodes: dict[str, Located] = {}
        db: dict[tuple[str, int], Located] = {}
        for login, user in self.users.items():
            nodes[user.get("node_id") or ""] = Located("user", {"login": login, **user})
        for repo in self.repositories:
            nodes[repo["node_id"]] = Located("repository", repo, repo)
            for pr in repo["pull_requests"]:
                nodes[pr["node_id"]] = Located("pull_request", pr, repo, pr)
                for th in pr["threads"]:
                    nodes[th["id"]] = Located("thread", th, repo, pr, th)
                    for c in th["comments"]:
                        db[("comment", c["id"])] = nodes[c["node_id"]] = Located("comment", c, repo, pr, th)
                for r in pr["reviews"]:
                    db[("review", r["id"])] = nodes[r["node_id"]] = Located("review", r, repo, pr)
                for ic in pr["issue_comments"]:
                    db[("issue_comment", ic["id"])] = nodes[ic["node_id"]] = Located("issue_comment", ic, repo, pr)
        self._nodes, self._db = nodes, db

    def locate(self, node_id_: str) -> Located | None:
        """Find any object by its GraphQL node id."""
        found = self._nodes.get(node_id_)
        if found is None:
            self.reindex()
            found = self._nodes.get(node_id_)
        return found

    def locate_db(self, kind: str, database_id: int) -> Located | None:
        """Find a comment/review/issue_comment by its REST id (= GraphQL fullDatabaseId)."""
        found = self._db.get((kind, database_id))
        if found is None:
            self.reindex()
            found = self._db.get((kind, database_id))
        return found

    def _get(self, kind: str, key: int | str) -> dict[str, Any]:
        loc = self.locate_db(kind, key) if isinstance(key, int) else self.locate(key)
        if loc is None or loc.kind != kind:
            raise KeyError(f"fakehub world: no {kind} {key!r}")
        return loc.obj

    def thread(self, thread_id: str) -> dict[str, Any]:
        return self._get("thread", thread_id)

    def comment(self, key: int | str) -> dict[str, Any]:
        """A review comment by REST id or node id."""
        return self._get("comment", key)

    def review(self, key: int | str) -> dict[str, Any]:
        return self._get("review", key)

    def issue_comment(self, key: int | str) -> dict[str, Any]:
        return self._get("issue_comment", key)

    def repo(self, owner: str, name: str) -> dict[str, Any] | None:
        """Case-insensitive, like GitHub."""
        for repo in self.repositories:
            if repo["owner"].lower() == owner.lower() and repo["name"].lower() == name.lower():
                return repo
        return None

    def pull(self, owner: str, name: str, number: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        repo = self.repo(owner, name)
        for pr in repo["pull_requests"] if repo else []:
            if pr["number"] == number:
                return repo, pr
        return None

    def pull_request(self, full_name: str, number: int) -> dict[str, Any]:
        owner, _, name = full_name.partition("/")
        found = self.pull(owner, name, number)
        if found is None:
            raise KeyError(f"fakehub world: no pull request {full_name}#{number}")
        return found[1]

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the current state, in scenario format."""
        with self.lock:
            return copy.deepcopy(self.data)

    # ---------------------------------------------------------------- what the viewer may see
    def comment_visible(self, c: dict[str, Any]) -> bool:
        return c["state"] != "PENDING" or c["author"] == self.viewer

    def visible_comments(self, th: dict[str, Any]) -> list[dict[str, Any]]:
        return [c for c in th["comments"] if self.comment_visible(c)]

    def visible_threads(self, pr: dict[str, Any]) -> list[dict[str, Any]]:
        return [th for th in pr["threads"] if any(self.comment_visible(c) for c in th["comments"])]

    def visible_reviews(self, pr: dict[str, Any]) -> list[dict[str, Any]]:
        return [r for r in pr["reviews"] if r["state"] != "PENDING" or r["author"] == self.viewer]

    def pending_review(self, pr: dict[str, Any]) -> dict[str, Any] | None:
        """The viewer's own unsubmitted review on `pr`, if any."""
        for r in pr["reviews"]:
            if r["state"] == "PENDING" and r["author"] == self.viewer:
                return r
        return None

    def review_comments(self, pr: dict[str, Any], review_id: int) -> list[dict[str, Any]]:
        return [c for th in pr["threads"] for c in th["comments"] if c["review"] == review_id]

    def root_of(self, c: dict[str, Any], th: dict[str, Any]) -> dict[str, Any] | None:
        """The comment `c` replies to (the thread's first comment), or None for the root itself."""
        return None if th["comments"][0] is c else th["comments"][0]

    # ---------------------------------------------------------------- urls and time
    def web(self, *parts: Any) -> str:
        return "/".join([self.data["web_url"], *(str(p) for p in parts)])

    def pr_url(self, repo: dict[str, Any], pr: dict[str, Any]) -> str:
        return self.web(repo["owner"], repo["name"], "pull", pr["number"])

    def now(self) -> str:
        return self.data["now"] or fmt_time(datetime.now(timezone.utc))

    def _next_id(self, kind: str) -> int:
        return max([k[1] for k in self._db if k[0] == kind] + [0]) + 1

    # ---------------------------------------------------------------- writes (callers check permissions)
    def set_resolved(self, thread_id: str, resolved: bool) -> dict[str, Any]:
        with self.lock:
            th = self.thread(thread_id)
            th["resolved"] = resolved
            th["collapsed"] = resolved
            th["resolved_by"] = fill_user(self.data, self.viewer) if resolved else None
            return th

    def add_reply(self, thread_id: str, body: str, review_node_id: str | None = None) -> dict[str, Any]:
        """Append a reply by the viewer, as GitHub does: into the viewer's pending review if there is
        one (state PENDING), otherwise into a new submitted COMMENTED review with an empty body."""
        with self.lock:
            loc = self.locate(thread_id)
            assert loc is not None and loc.kind == "thread" and loc.pr is not None and loc.repo is not None
            th, pr, repo = loc.obj, loc.pr, loc.repo
            now = self.now()
            review = self.review(review_node_id) if review_node_id else self.pending_review(pr)
            if review is None:
                review = implicit_review(self.viewer, now, pr, self.data, "COMMENTED")
                review["id"] = self._next_id("review")
                review["node_id"] = node_id("PRR", review["id"])
                pr["reviews"].append(review)
            root = th["comments"][0]
            new_id = self._next_id("comment")
            assoc = "OWNER" if self.viewer == repo["owner"] else self.users[self.viewer]["association"]
            comment = {
                "id": new_id, "node_id": node_id("PRRC", new_id), "author": self.viewer, "body": body,
                "created_at": now, "updated_at": now, "author_association": assoc,
                "diff_hunk": root["diff_hunk"], "commit_id": pr["head_sha"],
                "original_commit_id": root["original_commit_id"], "review": review["id"],
                "state": "PENDING" if review["state"] == "PENDING" else "SUBMITTED",
                "minimized": False, "minimized_reason": None, "reactions": {},
            }
            th["comments"].append(comment)
            if comment["state"] == "SUBMITTED":
                pr["updated_at"] = now
            self.reindex()
            return comment

    def add_issue_comment(self, pr_node_id: str, body: str) -> dict[str, Any]:
        with self.lock:
            loc = self.locate(pr_node_id)
            assert loc is not None and loc.kind == "pull_request" and loc.repo is not None
            pr, repo = loc.obj, loc.repo
            now = self.now()
            new_id = self._next_id("issue_comment")
            assoc = "OWNER" if self.viewer == repo["owner"] else self.users[self.viewer]["association"]
            ic = {"id": new_id, "node_id": node_id("IC", new_id), "author": self.viewer, "body": body,
                  "created_at": now, "updated_at": now, "author_association": assoc, "minimized": False,
                  "minimized_reason": None, "reactions": {}}
            pr["issue_comments"].append(ic)
            pr["updated_at"] = now
            self.reindex()
            return ic
