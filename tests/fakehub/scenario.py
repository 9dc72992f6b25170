"""Scenario files: check them, and fill every optional field with a realistic default.

The format is documented in fixtures/scenarios/README.md. The result of :func:`normalize` has exactly
the same shape and keys as the input, with nothing left out, so the live world (``hub.world.data``)
reads like the scenario file that produced it. Keys starting with ``_`` are comments and are dropped.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from . import ext_ci, ext_stack
from .ext_merge import normalize_branch_rules, normalize_pull
from .spec import (
    ASSOCIATIONS,
    DEFAULT_PR_TIME,
    ID_BASE,
    MINIMIZE_REASONS,
    PERMISSIONS,
    PR_STATES,
    REACTIONS,
    REVIEW_STATES,
    USER_TYPES,
    WRITERS,
    ScenarioError,
    check,
    fmt_time,
    load,
    node_id,
    one_of,
    parse_time,
    sha,
    strip_bot,
)

__all__ = ["REACTIONS", "ScenarioError", "fill_user", "fmt_time", "implicit_review", "node_id", "normalize"]


class _Ids:
    """Allocates database ids per kind, skipping every id the scenario states explicitly."""

    def __init__(self, scenario: dict[str, Any]) -> None:
        self.used: dict[str, set[int]] = {k: set() for k in ID_BASE}
        self.next = dict(ID_BASE)
        for repo in scenario.get("repositories") or []:
            for pr in (repo.get("pull_requests") or []) if isinstance(repo, dict) else []:
                if not isinstance(pr, dict):
                    continue
                for kind, items in (("review", pr.get("reviews")), ("issue_comment", pr.get("issue_comments"))):
                    self.used[kind] |= {x["id"] for x in items or [] if isinstance(x, dict) and x.get("id")}
                for thread in pr.get("threads") or []:
                    comments = thread.get("comments") if isinstance(thread, dict) else None
                    self.used["comment"] |= {c["id"] for c in comments or [] if isinstance(c, dict) and c.get("id")}

    def take(self, kind: str, explicit: int | None, where: str, seen: set[tuple[str, int]]) -> int:
        if explicit is None:
            while self.next[kind] in self.used[kind]:
                self.next[kind] += 1
            explicit = self.next[kind]
            self.used[kind].add(explicit)
        if (kind, explicit) in seen:
            raise ScenarioError(f"{where}: duplicate {kind} id {explicit}")
        seen.add((kind, explicit))
        return explicit


def normalize(source: dict[str, Any] | str | Path) -> dict[str, Any]:
    """Check a scenario and return a complete copy with every default filled in."""
    sc = check(load(source), "scenario", "scenario")
    viewer = check(sc["viewer"], "viewer", "viewer")
    users: dict[str, dict[str, Any]] = {}
    for login, user in (sc.get("users") or {}).items():
        users[strip_bot(login)] = check(user or {}, "user", f"users.{login}")
    vuser = users.setdefault(viewer["login"], {"type": "User"})
    for key in ("name", "id", "node_id"):
        if viewer.get(key) is not None:
            vuser[key] = viewer[key]
    out: dict[str, Any] = {
        "viewer": {"login": viewer["login"]}, "users": users,
        "web_url": (sc.get("web_url") or "https://github.localhost").rstrip("/"),
        "now": sc.get("now"), "description": sc.get("description") or "",
    }
    if out["now"]:
        parse_time(out["now"], "now")
    rl = check(sc.get("rate_limit") or {}, "rate_limit", "rate_limit")
    out["rate_limit"] = {"limit": rl.get("limit") or 5000, "used": rl.get("used") or 0,
                         "remaining": rl.get("remaining"), "reset": rl.get("reset")}
    if out["rate_limit"]["remaining"] is None:
        out["rate_limit"]["remaining"] = out["rate_limit"]["limit"] - out["rate_limit"]["used"]
    ids, seen = _Ids(sc), set()
    repos = []
    for i, repo in enumerate(sc.get("repositories") or []):
        repos.append(_repo(check(repo, "repository", f"repositories[{i}]"), f"repositories[{i}]", out, ids, seen))
    out["repositories"] = repos
    ext_stack.check_forks(repos)
    for login in list(users):
        fill_user(out, login)
    return out




def fill_user(sc: dict[str, Any], login: str, where: str = "users") -> str:
    """Make sure `login` is in sc['users'] with every field set; return the GraphQL login."""
    bare = strip_bot(login)
    user = sc["users"].setdefault(bare, {"type": "Bot" if login.endswith("[bot]") else "User"})
    utype = one_of(user.get("type") or "User", USER_TYPES, f"{where}.{bare}.type")
    user["type"] = utype
    user.setdefault("id", None)
    if user["id"] is None:
        user["id"] = 10_000 + zlib.crc32(bare.encode()) % 90_000_000
    prefix = {"User": "U", "Bot": "BOT", "Organization": "O", "Mannequin": "MDg6TWFubmVxdWlu"}[utype]
    user["node_id"] = user.get("node_id") or node_id(prefix, user["id"])
    user["name"] = user.get("name")
    user["site_admin"] = bool(user.get("site_admin"))
    user["created_at"] = user.get("created_at") or "2015-03-14T09:26:53Z"
    default_assoc = "NONE" if utype == "Bot" else "MEMBER"
    user["association"] = one_of(user.get("association") or default_assoc, ASSOCIATIONS, f"users.{bare}")
    user["rest_login"] = user.get("rest_login") or (f"{bare}[bot]" if utype == "Bot" else bare)
    user["rest_comment_login"] = user.get("rest_comment_login") or user["rest_login"]
    return bare


def _repo(repo: dict[str, Any], where: str, sc: dict[str, Any], ids: _Ids, seen: set) -> dict[str, Any]:
    owner = repo["owner"]
    if owner not in sc["users"]:
        sc["users"][owner] = {"type": "Organization"}
    fill_user(sc, owner)
    repo["id"] = ids.take("repository", repo.get("id"), where, seen)
    repo["node_id"] = repo.get("node_id") or node_id("R", repo["id"])
    repo["default_branch"] = repo.get("default_branch") or "main"
    repo["viewer_permission"] = one_of(repo.get("viewer_permission", "WRITE"), PERMISSIONS,
                                       f"{where}.viewer_permission")
    repo["private"] = bool(repo.get("private"))
    repo["description"] = repo.get("description")
    repo["created_at"] = repo.get("created_at") or "2024-01-15T08:00:00Z"
    repo["graphql_extra"] = repo.get("graphql_extra") or {}
    repo["branch_rules"] = normalize_branch_rules(repo.get("branch_rules"), repo, where)
    ext_stack.normalize_repo(repo, where)
    prs, numbers = [], set()
    for i, pr in enumerate(repo.get("pull_requests") or []):
        w = f"{where}.pull_requests[{i}]"
        pr = _pull(check(pr, "pull_request", w), w, repo, sc, ids, seen)
        if pr["number"] in numbers:
            raise ScenarioError(f"{w}: duplicate pull request number {pr['number']}")
        numbers.add(pr["number"])
        prs.append(pr)
    repo["pull_requests"] = prs
    return repo


def _pull(pr: dict[str, Any], where: str, repo: dict[str, Any], sc: dict[str, Any], ids: _Ids,
          seen: set) -> dict[str, Any]:
    n = pr["number"]
    full = f"{repo['owner']}/{repo['name']}"
    pr["id"] = ids.take("pull_request", pr.get("id"), where, seen)
    pr["node_id"] = pr.get("node_id") or node_id("PR", full, n)
    pr["title"] = pr.get("title") or f"Pull request #{n}"
    pr["body"] = pr.get("body") or ""
    pr["state"] = one_of(pr.get("state") or "OPEN", PR_STATES, f"{where}.state")
    pr["draft"] = bool(pr.get("draft"))
    pr["author"] = fill_user(sc, pr.get("author") or sc["viewer"]["login"])
    pr["author_association"] = _assoc(pr.get("author_association"), pr["author"], repo, sc, where)
    pr["head_ref"] = pr.get("head_ref") or f"feature/pr-{n}"
    pr["base_ref"] = pr.get("base_ref") or repo["default_branch"]
    pr["head_sha"] = pr.get("head_sha") or sha(full, n, "head")
    pr["base_sha"] = pr.get("base_sha") or sha(full, n, "base")
    created = parse_time(pr.get("created_at") or DEFAULT_PR_TIME, f"{where}.created_at")
    pr["created_at"] = fmt_time(created)
    clock = [created]

    def tick(explicit: str | None, w: str) -> str:
        if explicit:
            return fmt_time(parse_time(explicit, w))
        clock[0] += timedelta(minutes=7)
        return fmt_time(clock[0])

    pr["graphql_extra"] = pr.get("graphql_extra") or {}
    pr["rest_extra"] = pr.get("rest_extra") or {}
    normalize_pull(pr, where, lambda login: fill_user(sc, login))
    ext_ci.normalize(pr, where)
    pr["viewer_pending_review"] = bool(pr.get("viewer_pending_review"))
    reviews = [check(r, "review", f"{where}.reviews[{i}]") for i, r in enumerate(pr.get("reviews") or [])]
    for i, r in enumerate(reviews):
        r["id"] = ids.take("review", r.get("id"), f"{where}.reviews[{i}]", seen)
    by_id = {r["id"]: r for r in reviews}
    writer = repo["viewer_permission"] in WRITERS or pr["author"] == sc["viewer"]["login"]
    pc = _PrCtx(pr, repo, sc, ids, seen, tick, reviews, by_id, writer)
    threads = [_thread(check(th, "thread", f"{where}.threads[{ti}]"), f"{where}.threads[{ti}]", ti, pc)
               for ti, th in enumerate(pr.get("threads") or [])]
    pr["threads"] = threads
    for i, r in enumerate(reviews):
        w = f"{where}.reviews[{i}]"
        r["node_id"] = r.get("node_id") or node_id("PRR", r["id"])
        r["author"] = fill_user(sc, r["author"])
        r["state"] = one_of(r.get("state") or "COMMENTED", REVIEW_STATES, f"{w}.state")
        r["body"] = r.get("body") or ""
        own = [c["created_at"] for th in threads for c in th["comments"] if c["review"] == r["id"]]
        first = min(own) if own else r.get("submitted_at")
        r["created_at"] = tick(r.get("created_at") or first, f"{w}.created_at")
        if r["state"] == "PENDING":
            r["submitted_at"] = None
        else:
            r["submitted_at"] = tick(r.get("submitted_at") or max([r["created_at"], *own]), f"{w}.submitted_at")
        r["commit_id"] = r.get("commit_id") or pr["head_sha"]
        r["author_association"] = _assoc(r.get("author_association"), r["author"], repo, sc, w)
        r["minimized"] = bool(r.get("minimized"))
        r["reactions"] = _reactions(r.get("reactions"), w)
        r["implicit"] = bool(r.get("implicit"))
    mine = [r for r in reviews if r["state"] == "PENDING" and r["author"] == sc["viewer"]["login"]]
    if pr["viewer_pending_review"] and not mine:
        r = implicit_review(sc["viewer"]["login"], tick(None, where), pr, sc, "PENDING")
        r["id"] = ids.take("review", None, where, seen)
        r["node_id"] = node_id("PRR", r["id"])
        r["implicit"] = False
        reviews.append(r)
    pr["viewer_pending_review"] = pr["viewer_pending_review"] or bool(mine)
    reviews.sort(key=lambda r: (r["submitted_at"] or r["created_at"], r["id"]))
    pr["reviews"] = reviews
    ics = []
    for i, ic in enumerate(pr.get("issue_comments") or []):
        w = f"{where}.issue_comments[{i}]"
        ic = check(ic, "issue_comment", w)
        ic["id"] = ids.take("issue_comment", ic.get("id"), w, seen)
        ic["node_id"] = ic.get("node_id") or node_id("IC", ic["id"])
        ic["author"] = fill_user(sc, ic["author"])
        ic["created_at"] = tick(ic.get("created_at"), f"{w}.created_at")
        ic["updated_at"] = tick(ic.get("updated_at") or ic["created_at"], f"{w}.updated_at")
        ic["author_association"] = _assoc(ic.get("author_association"), ic["author"], repo, sc, w)
        ic["minimized"] = bool(ic.get("minimized"))
        ic["minimized_reason"] = _reason(ic, w)
        ic["reactions"] = _reactions(ic.get("reactions"), w)
        ics.append(ic)
    pr["issue_comments"] = ics
    stamps = [pr["created_at"], *(c["updated_at"] for t in threads for c in t["comments"]),
              *(r["submitted_at"] or r["created_at"] for r in reviews), *(c["updated_at"] for c in ics)]
    pr["updated_at"] = tick(pr.get("updated_at") or max(stamps), f"{where}.updated_at")
    for key in ("closed_at", "merged_at"):
        pr[key] = tick(pr[key], f"{where}.{key}") if pr.get(key) else None
    if pr["state"] != "OPEN" and not pr["closed_at"]:
        pr["closed_at"] = pr["updated_at"]
    if pr["state"] == "MERGED" and not pr["merged_at"]:
        pr["merged_at"] = pr["closed_at"]
    ext_stack.normalize_pull(pr, where, repo, lambda login: fill_user(sc, login))
    return pr


@dataclass
class _PrCtx:
    pr: dict[str, Any]
    repo: dict[str, Any]
    sc: dict[str, Any]
    ids: _Ids
    seen: set[tuple[str, int]]
    tick: Callable[[str | None, str], str]
    reviews: list[dict[str, Any]]
    by_id: dict[int, dict[str, Any]]
    writer: bool


def _thread(th: dict[str, Any], w: str, index: int, pc: _PrCtx) -> dict[str, Any]:
    pr, repo, sc = pc.pr, pc.repo, pc.sc
    th["id"] = th.get("id") or node_id("PRRT", repo["owner"] + "/" + repo["name"], pr["number"], index)
    th["path"] = th.get("path") or "README.md"
    th["subject_type"] = one_of(th.get("subject_type") or "LINE", ("LINE", "FILE"), f"{w}.subject_type")
    for key in ("line", "start_line"):
        th[key] = th.get(key)
    th["original_line"] = th.get("original_line", th["line"])
    th["original_start_line"] = th.get("original_start_line", th["start_line"])
    th["diff_side"] = one_of(th.get("diff_side") or "RIGHT", ("LEFT", "RIGHT"), f"{w}.diff_side")
    th["start_diff_side"] = th.get("start_diff_side") or (th["diff_side"] if th["start_line"] else None)
    th["resolved"] = bool(th.get("resolved"))
    th["outdated"] = bool(th.get("outdated"))
    th["collapsed"] = th["resolved"] if th.get("collapsed") is None else th["collapsed"]
    rb = th.get("resolved_by") or (pr["author"] if th["resolved"] else None)
    th["resolved_by"] = fill_user(sc, rb) if rb else None
    for key, default in (("viewer_can_resolve", pc.writer), ("viewer_can_unresolve", pc.writer),
                         ("viewer_can_reply", True)):
        th[key] = default if th.get(key) is None else th[key]
    if not th["comments"]:
        raise ScenarioError(f"{w}.comments: a thread needs at least one comment")
    th["comments"] = [_comment(check(c, "comment", f"{w}.comments[{ci}]"), f"{w}.comments[{ci}]", th, pc)
                      for ci, c in enumerate(th["comments"])]
    return th


def _comment(c: dict[str, Any], cw: str, th: dict[str, Any], pc: _PrCtx) -> dict[str, Any]:
    pr, repo, sc = pc.pr, pc.repo, pc.sc
    c["id"] = pc.ids.take("comment", c.get("id"), cw, pc.seen)
    c["node_id"] = c.get("node_id") or node_id("PRRC", c["id"])
    c["author"] = fill_user(sc, c["author"])
    c["created_at"] = pc.tick(c.get("created_at"), f"{cw}.created_at")
    c["updated_at"] = pc.tick(c.get("updated_at") or c["created_at"], f"{cw}.updated_at")
    c["author_association"] = _assoc(c.get("author_association"), c["author"], repo, sc, cw)
    line = max((th["line"] or th["original_line"] or 1) - 3, 1)
    c["diff_hunk"] = c.get("diff_hunk") or f"@@ -{line},6 +{line},7 @@"
    c["commit_id"] = c.get("commit_id") or pr["head_sha"]
    c["original_commit_id"] = c.get("original_commit_id") or c["commit_id"]
    c["minimized"] = bool(c.get("minimized"))
    c["minimized_reason"] = _reason(c, cw)
    c["reactions"] = _reactions(c.get("reactions"), cw)
    if c.get("review") is None:
        state = "PENDING" if c.get("state") == "PENDING" else "COMMENTED"
        review = implicit_review(c["author"], c["created_at"], pr, sc, state)
        review["id"] = pc.ids.take("review", None, cw, pc.seen)
        review["node_id"] = node_id("PRR", review["id"])
        pc.reviews.append(review)
        pc.by_id[review["id"]] = review
        c["review"] = review["id"]
    elif c["review"] not in pc.by_id:
        raise ScenarioError(f"{cw}.review: no review with id {c['review']} in this pull request")
    pending = pc.by_id[c["review"]].get("state") == "PENDING"
    c["state"] = one_of(c.get("state") or ("PENDING" if pending else "SUBMITTED"), ("PENDING", "SUBMITTED"),
                        f"{cw}.state")
    return c


def implicit_review(author: str, when: str, pr: dict[str, Any], sc: dict[str, Any], state: str) -> dict:
    """The review GitHub creates around a lone review comment or a reply (empty body)."""
    return {"id": None, "node_id": None, "author": author, "state": state, "body": "",
            "created_at": when, "submitted_at": None if state == "PENDING" else when,
            "commit_id": pr["head_sha"], "author_association": sc["users"][author]["association"],
            "minimized": False, "reactions": {}, "implicit": True}


def _assoc(value: str | None, login: str, repo: dict[str, Any], sc: dict[str, Any], where: str) -> str:
    if value is None:
        value = "OWNER" if login == repo["owner"] else sc["users"][login]["association"]
    return one_of(value, ASSOCIATIONS, f"{where}.author_association")


def _reason(obj: dict[str, Any], where: str) -> str | None:
    reason = obj.get("minimized_reason")
    if reason is None:
        return "outdated" if obj["minimized"] else None
    return one_of(reason.lower().replace("_", "-"), MINIMIZE_REASONS, f"{where}.minimized_reason")


def _reactions(value: dict[str, Any] | None, where: str) -> dict[str, int]:
    out = {}
    for key, count in (value or {}).items():
        one_of(key, REACTIONS, f"{where}.reactions")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ScenarioError(f"{where}.reactions.{key}: expected a count >= 0")
        out[key] = count
    return out
