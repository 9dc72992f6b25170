"""GraphQL views of world objects: dicts keyed by GraphQL field names.

A value that is callable is a resolver taking ``(info, **args)``; it runs only if the query selects the
field. A field missing from a view is *not served by fakehub*: asking for it fails the request loudly
(HTTP 501) instead of quietly returning null. Add the field here (or via ``graphql_extra`` in the
scenario) when a tool needs it.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any

from graphql import GraphQLResolveInfo

from . import ext_ci, ext_codeowners, ext_merge, ext_stack
from .scenario import REACTIONS, node_id
from .world import Located, World

MAX_PAGE = 100
INT32_MAX = 2**31 - 1


class GitHubError(Exception):
    """An error GitHub reports in `errors[]` with a `type` (NOT_FOUND, FORBIDDEN, ...)."""

    def __init__(self, type_: str | None, message: str) -> None:
        super().__init__(message)
        self.type = type_


def encode_cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if text.startswith("cursor:v2:"):
            return int(text[len("cursor:v2:"):])
    except ValueError:
        pass
    raise GitHubError(None, f"`{cursor}` does not appear to be a valid cursor.")


def connection(items: list[Any], view: Callable[[Any], dict[str, Any]], first: int | None = None,
               after: str | None = None, last: int | None = None, before: str | None = None,
               skip: int | None = None, **_filters: Any) -> dict[str, Any]:
    """A GitHub-style connection over `items` (limits were checked before execution)."""
    start = decode_cursor(after) + 1 if after else 0
    end = min(decode_cursor(before), len(items)) if before else len(items)
    start = max(start, 0) + (skip or 0)
    window = range(start, max(start, end))
    if first is not None:
        window = window[:max(first, 0)]
    if last is not None:
        window = window[len(window) - min(max(last, 0), len(window)):]
    nodes = [view(items[i]) for i in window]
    edges = [{"node": n, "cursor": encode_cursor(i)} for n, i in zip(nodes, window, strict=True)]
    return {
        "totalCount": len(items), "nodes": nodes, "edges": edges,
        "pageInfo": {
            "hasNextPage": (bool(window) and window[-1] < len(items) - 1) or (not window and start < len(items)),
            "hasPreviousPage": bool(window) and window[0] > 0,
            "startCursor": encode_cursor(window[0]) if window else None,
            "endCursor": encode_cursor(window[-1]) if window else None,
        },
    }


def body_html(body: str) -> str:
    return "".join(f'<p dir="auto">{html.escape(p).replace(chr(10), "<br>" + chr(10))}</p>'
                   for p in body.split("\n\n") if p) if body else ""


class Views:
    def __init__(self, world: World) -> None:
        self.world = world

    # ---------------------------------------------------------------- actors
    def actor(self, login: str | None) -> dict[str, Any] | None:
        if login is None:
            return None
        u = self.world.users[login]
        bot = u["type"] == "Bot"
        path = f"/apps/{login}" if bot else f"/{login}"
        return {
            "__typename": u["type"], "login": login, "id": u["node_id"], "databaseId": u["id"],
            "name": u["name"], "avatarUrl": f"https://avatars.githubusercontent.com/{'in' if bot else 'u'}/"
            f"{u['id']}?v=4", "url": self.world.data["web_url"] + path, "resourcePath": path,
            "createdAt": u["created_at"], "updatedAt": u["created_at"], "isSiteAdmin": u["site_admin"],
            "isViewer": login == self.world.viewer,
        }

    # ---------------------------------------------------------------- repository and pull request
    def repo(self, repo: dict[str, Any]) -> dict[str, Any]:
        full = f"{repo['owner']}/{repo['name']}"
        return {
            "__typename": "Repository", "id": repo["node_id"], "databaseId": repo["id"], "name": repo["name"],
            "nameWithOwner": full, "url": self.world.web(full), "resourcePath": f"/{full}",
            "owner": self.actor(repo["owner"]), "isPrivate": repo["private"],
            "visibility": "PRIVATE" if repo["private"] else "PUBLIC", "description": repo["description"],
            "createdAt": repo["created_at"], "isArchived": False, "isFork": False,
            "viewerPermission": repo["viewer_permission"],
            "defaultBranchRef": {"__typename": "Ref", "id": node_id("REF", full, repo["default_branch"]),
                                 "name": repo["default_branch"], "prefix": "refs/heads/"},
            "pullRequest": lambda info, number: self._pull_request(repo, number),
            "pullRequests": lambda info, **a: self._pull_requests(repo, **a),
            **ext_merge.repo_fields(repo),
            **ext_stack.repo_fields(self, repo),
            **repo["graphql_extra"],
        }

    def _pull_request(self, repo: dict[str, Any], number: int) -> dict[str, Any]:
        for pr in repo["pull_requests"]:
            if pr["number"] == number:
                return self.pr(repo, pr)
        raise GitHubError("NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}.")

    def _pull_requests(self, repo: dict[str, Any], states: list[str] | None = None,
                       headRefName: str | None = None, baseRefName: str | None = None,
                       orderBy: dict[str, str] | None = None, labels: Any = None,
                       **page: Any) -> dict[str, Any]:
        prs = [p for p in repo["pull_requests"] if (not states or p["state"] in states)
               and (headRefName is None or p["head_ref"] == headRefName)
               and (baseRefName is None or p["base_ref"] == baseRefName)]
        if orderBy:
            key = "updated_at" if orderBy.get("field") == "UPDATED_AT" else "created_at"
            prs.sort(key=lambda p: (p[key], p["number"]), reverse=orderBy.get("direction") == "DESC")
        return connection(prs, lambda p: self.pr(repo, p), **page)

    def pr(self, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
        w = self.world
        return {
            "__typename": "PullRequest", "id": pr["node_id"], "databaseId": pr["id"],
            "fullDatabaseId": str(pr["id"]), "number": pr["number"], "title": pr["title"], "body": pr["body"],
            "bodyText": pr["body"], "bodyHTML": body_html(pr["body"]), "url": w.pr_url(repo, pr),
            "permalink": w.pr_url(repo, pr),
            "resourcePath": f"/{repo['owner']}/{repo['name']}/pull/{pr['number']}", "state": pr["state"],
            "isDraft": pr["draft"], "closed": pr["state"] != "OPEN", "merged": pr["state"] == "MERGED",
            "createdAt": pr["created_at"], "updatedAt": pr["updated_at"], "closedAt": pr["closed_at"],
            "mergedAt": pr["merged_at"], "author": self.actor(pr["author"]),
            "authorAssociation": pr["author_association"], "headRefName": pr["head_ref"],
            "baseRefName": pr["base_ref"], "headRefOid": pr["head_sha"], "baseRefOid": pr["base_sha"],
            "isCrossRepository": False, "viewerDidAuthor": pr["author"] == w.viewer,
            # GitHub: maintainers may push to a fork PR's branch only when its author allows it; a same-repository
            # PR answers false (`gh pr checkout` reads it)
            "maintainerCanModify": bool(pr.get("maintainer_can_modify", False)),
            "repository": lambda info: self.repo(repo), "baseRepository": lambda info: self.repo(repo),
            "headRepository": lambda info: self.repo(repo),
            "headRepositoryOwner": lambda info: self.actor(repo["owner"]),
            "reviewThreads": lambda info, **a: connection(
                w.visible_threads(pr), lambda t: self.thread(repo, pr, t), **a),
            "reviews": lambda info, states=None, author=None, **a: connection(
                [r for r in w.visible_reviews(pr) if (not states or r["state"] in states)
                 and (author is None or r["author"] == author)], lambda r: self.review(repo, pr, r), **a),
            "comments": lambda info, orderBy=None, **a: connection(
                pr["issue_comments"], lambda c: self.issue_comment(repo, pr, c), **a),
            **ext_merge.pr_fields(self, repo, pr),
            **ext_stack.pr_fields(self, repo, pr),
            **ext_ci.pr_fields(self, repo, pr),
            **ext_codeowners.pr_fields(self, pr),
            **pr["graphql_extra"],
        }

    # ---------------------------------------------------------------- review threads and comments
    def thread(self, repo: dict[str, Any], pr: dict[str, Any], th: dict[str, Any]) -> dict[str, Any]:
        hide = th["outdated"] or th["subject_type"] == "FILE"
        file_level = th["subject_type"] == "FILE"
        return {
            "__typename": "PullRequestReviewThread", "id": th["id"], "isResolved": th["resolved"],
            "isOutdated": th["outdated"], "isCollapsed": th["collapsed"], "path": th["path"],
            "line": None if hide else th["line"], "startLine": None if hide else th["start_line"],
            "originalLine": None if file_level else th["original_line"],
            "originalStartLine": None if file_level else th["original_start_line"],
            "diffSide": th["diff_side"], "startDiffSide": th["start_diff_side"],
            "subjectType": th["subject_type"],
            "viewerCanResolve": th["viewer_can_resolve"] and not th["resolved"],
            "viewerCanUnresolve": th["viewer_can_unresolve"] and th["resolved"],
            "viewerCanReply": th["viewer_can_reply"], "resolvedBy": self.actor(th["resolved_by"]),
            "comments": lambda info, **a: connection(
                self.world.visible_comments(th), lambda c: self.comment(repo, pr, th, c), **a),
            "pullRequest": lambda info: self.pr(repo, pr), "repository": lambda info: self.repo(repo),
        }

    def _common(self, repo: dict[str, Any], pr: dict[str, Any], obj: dict[str, Any], anchor: str) -> dict:
        """Fields shared by review comments, reviews and issue comments."""
        created, updated = obj["created_at"], obj.get("updated_at") or obj["created_at"]
        url = f"{self.world.pr_url(repo, pr)}#{anchor}{obj['id']}"
        return {
            "id": obj["node_id"], "fullDatabaseId": str(obj["id"]),
            "databaseId": obj["id"] if obj["id"] <= INT32_MAX else None, "url": url,
            "resourcePath": url.removeprefix(self.world.data["web_url"]), "body": obj["body"],
            "bodyText": obj["body"], "bodyHTML": body_html(obj["body"]), "createdAt": created,
            "updatedAt": updated, "lastEditedAt": updated if updated != created else None,
            "author": self.actor(obj["author"]), "authorAssociation": obj["author_association"],
            "isMinimized": obj["minimized"], "minimizedReason": obj.get("minimized_reason"),
            "viewerDidAuthor": obj["author"] == self.world.viewer, "includesCreatedEdit": False,
            "createdViaEmail": False, "reactionGroups": self.reaction_groups(obj["reactions"]),
            "pullRequest": lambda info: self.pr(repo, pr), "repository": lambda info: self.repo(repo),
        }

    def comment(self, repo: dict[str, Any], pr: dict[str, Any], th: dict[str, Any],
                c: dict[str, Any]) -> dict[str, Any]:
        view = self.thread(repo, pr, th)
        root = self.world.root_of(c, th)
        pending = c["state"] == "PENDING"
        return {
            **self._common(repo, pr, c, "discussion_r"), "__typename": "PullRequestReviewComment",
            "publishedAt": None if pending else c["created_at"], "state": c["state"],
            "replyTo": (lambda info: self.comment(repo, pr, th, root)) if root else None,
            "outdated": th["outdated"], "diffHunk": c["diff_hunk"], "path": th["path"],
            "subjectType": th["subject_type"], "line": view["line"], "startLine": view["startLine"],
            "originalLine": view["originalLine"], "originalStartLine": view["originalStartLine"],
            "pullRequestReview": lambda info: self.review(repo, pr, self.world.review(c["review"])),
        }

    def review(self, repo: dict[str, Any], pr: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
        return {
            **self._common(repo, pr, {**r, "minimized_reason": None}, "pullrequestreview-"),
            "__typename": "PullRequestReview", "state": r["state"], "submittedAt": r["submitted_at"],
            "publishedAt": r["submitted_at"], "updatedAt": r["submitted_at"] or r["created_at"],
            "lastEditedAt": None, "minimizedReason": "outdated" if r["minimized"] else None,
            "comments": lambda info, **a: self._review_comments(repo, pr, r, **a),
            "commit": lambda info: ext_stack.commit_or_bare(self, repo, r["commit_id"], r["created_at"]),
        }

    def _review_comments(self, repo: dict[str, Any], pr: dict[str, Any], r: dict[str, Any],
                         **page: Any) -> dict[str, Any]:
        pairs = [(th, c) for th in pr["threads"] for c in th["comments"]
                 if c["review"] == r["id"] and self.world.comment_visible(c)]
        return connection(pairs, lambda tc: self.comment(repo, pr, tc[0], tc[1]), **page)

    def issue_comment(self, repo: dict[str, Any], pr: dict[str, Any], ic: dict[str, Any]) -> dict[str, Any]:
        return {**self._common(repo, pr, ic, "issuecomment-"), "__typename": "IssueComment",
                "publishedAt": ic["created_at"]}

    @staticmethod
    def reaction_groups(reactions: dict[str, int]) -> list[dict[str, Any]]:
        def counted(n: int) -> Callable[..., dict[str, Any]]:
            return lambda info, **a: {"totalCount": n}

        return [{"content": r, "createdAt": None, "viewerHasReacted": False,
                 "reactors": counted(reactions.get(r, 0)), "users": counted(reactions.get(r, 0))}
                for r in REACTIONS]

    # ---------------------------------------------------------------- any node
    def located(self, loc: Located) -> dict[str, Any]:
        repo, pr = loc.repo, loc.pr
        if loc.kind == "user":
            return self.actor(loc.obj["login"]) or {}
        assert repo is not None
        if loc.kind == "repository":
            return self.repo(repo)
        assert pr is not None
        if loc.kind == "pull_request":
            return self.pr(repo, pr)
        if loc.kind == "thread":
            return self.thread(repo, pr, loc.obj)
        if loc.kind == "comment":
            assert loc.thread is not None
            return self.comment(repo, pr, loc.thread, loc.obj)
        if loc.kind == "review":
            return self.review(repo, pr, loc.obj)
        return self.issue_comment(repo, pr, loc.obj)

    def node(self, node_id_: str, info: GraphQLResolveInfo | None = None) -> dict[str, Any]:
        loc = self.world.locate(node_id_)
        if loc is None and node_id_.startswith("CR_"):
            check_run = ext_ci.locate_check_run(self, node_id_)
            if check_run is not None:
                return check_run
        if loc is None or not self._visible(loc):
            raise GitHubError("NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id_}'")
        return self.located(loc)

    def _visible(self, loc: Located) -> bool:
        if loc.kind == "comment":
            return self.world.comment_visible(loc.obj)
        if loc.kind == "review":
            return loc.obj["state"] != "PENDING" or loc.obj["author"] == self.world.viewer
        return True
