"""fakehub: git history for stacked PRs (scenario keys ``commits`` and ``branches`` on a repository;
``commits``, ``merge_commit``, ``head_ref_deleted``, ``timeline``, ``head_repository`` and
``maintainer_can_modify`` on a pull request; documented in fixtures/scenarios/README.md).

Fork PRs: ``head_repository`` ("owner/name", default the PR's own repository) is where the head branch lives.
As on GitHub, such a PR has ``isCrossRepository`` true, ``headRepository`` / ``headRepositoryOwner`` the fork
(which the scenario must list among its repositories), and ``maintainerCanModify`` as the scenario
says ("Allow edits by maintainers"; always false for a same-repository PR, as GitHub serves it).

Served over GraphQL: ``Repository.ref(qualifiedName)``, ``Repository.object(oid)`` and ``Ref.target`` of a
pull request's ``baseRef``/``headRef`` (themselves null for a branch that no longer exists, as on GitHub);
``Commit`` (message, dates, author, ``parents``, ``history`` in git log's order);
``PullRequest.mergeCommit``, ``PullRequest.commits`` and
``PullRequest.timelineItems`` (BaseRefChangedEvent, HeadRefDeletedEvent, HeadRefRestoredEvent,
HeadRefForcePushedEvent, MergedEvent). A merged pull request gets its MergedEvent, and one with
``head_ref_deleted`` its HeadRefDeletedEvent, unless the timeline lists them. Tests build ``commits`` from
a real repository (tests/e2e/stack_repos.py), so the SHAs match the git objects the tool reads locally.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from typing import Any

from . import spec as spec_mod
from .spec import ScenarioError, check, node_id, one_of, parse_time

EVENT_TYPES = {"base_ref_changed": "BaseRefChangedEvent", "head_ref_deleted": "HeadRefDeletedEvent",
               "head_ref_restored": "HeadRefRestoredEvent", "head_ref_force_pushed": "HeadRefForcePushedEvent",
               "merged": "MergedEvent"}
ITEM_TYPES = {re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper(): name for name in EVENT_TYPES.values()}
SPEC: dict[str, dict[str, Any]] = {
    "commit": {"oid": str, "message": str, "parents": list, "authored_date": str, "committed_date": str,
               "author_name": str, "author_email": str, "author_login": str},
    "event": {"type": str, "created_at": str, "actor": str, "previous": str, "current": str, "before": str,
              "after": str, "commit": str},
}
REQUIRED = {"commit": ("oid",), "event": ("type",)}
spec_mod.SPEC.update({f"stack.{kind}": keys for kind, keys in SPEC.items()})
spec_mod.REQUIRED.update({f"stack.{kind}": keys for kind, keys in REQUIRED.items()})
_OID = re.compile(r"[0-9a-f]{40}")


def _oid(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _OID.fullmatch(value):
        raise ScenarioError(f"{where}: {value!r} is not a 40-hex commit id")
    return value


# ------------------------------------------------------------------ scenario normalization
def normalize_repo(repo: dict[str, Any], where: str) -> None:
    commits = []
    for i, c in enumerate(repo.get("commits") or []):
        w = f"{where}.commits[{i}]"
        c = check(c, "stack.commit", w)
        c["oid"] = _oid(c["oid"], f"{w}.oid")
        c["parents"] = [_oid(p, f"{w}.parents") for p in c.get("parents") or []]
        c["message"] = c.get("message") or f"Commit {c['oid'][:7]}"
        c["authored_date"] = c.get("authored_date") or "2026-11-01T09:00:00Z"
        c["committed_date"] = c.get("committed_date") or c["authored_date"]
        for key in ("authored_date", "committed_date"):
            parse_time(c[key], f"{w}.{key}")
        c["author_name"] = c.get("author_name") or "Octo Cat"
        c["author_email"] = c.get("author_email") or "octocat@example.com"
        c["author_login"] = c.get("author_login")
        commits.append(c)
    known = {c["oid"] for c in commits}
    for i, c in enumerate(commits):
        for p in c["parents"]:
            if p not in known:
                raise ScenarioError(f"{where}.commits[{i}].parents: {p} is not listed in commits")
    repo["commits"] = commits
    branches = repo.get("branches") or {}
    if not isinstance(branches, dict):
        raise ScenarioError(f"{where}.branches: expected an object branch -> commit id")
    repo["branches"] = {str(k): _oid(v, f"{where}.branches.{k}") for k, v in branches.items()}
    for name, oid in repo["branches"].items():
        if known and oid not in known:
            raise ScenarioError(f"{where}.branches.{name}: {oid} is not listed in commits")


def normalize_pull(pr: dict[str, Any], where: str, repo: dict[str, Any], fill_user: Callable[[str], str]) -> None:
    known = {c["oid"] for c in repo.get("commits") or []}

    def listed(oid: Any, w: str) -> str:
        oid = _oid(oid, w)
        if known and oid not in known:
            raise ScenarioError(f"{w}: {oid} is not listed in the repository's commits")
        return oid

    pr["commits"] = [listed(o, f"{where}.commits") for o in pr.get("commits") or []]
    pr["merge_commit"] = listed(pr["merge_commit"], f"{where}.merge_commit") if pr.get("merge_commit") else None
    if pr["merge_commit"] and pr["state"] != "MERGED":
        raise ScenarioError(f"{where}.merge_commit: only a MERGED pull request has one")
    pr["head_ref_deleted"] = bool(pr.get("head_ref_deleted"))
    full = f"{repo['owner']}/{repo['name']}"
    head_repo = pr.get("head_repository") or full
    if not isinstance(head_repo, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", head_repo):
        raise ScenarioError(f"{where}.head_repository: {head_repo!r} is not 'owner/name'")
    pr["head_repository"] = head_repo
    if pr.get("maintainer_can_modify") and head_repo.lower() == full.lower():
        raise ScenarioError(f"{where}.maintainer_can_modify: only a fork PR (head_repository) has it")
    pr["maintainer_can_modify"] = bool(pr.get("maintainer_can_modify"))
    if head_repo.lower() != full.lower():
        fill_user(head_repo.split("/")[0])
    events = []
    for i, e in enumerate(pr.get("timeline") or []):
        w = f"{where}.timeline[{i}]"
        e = check(e, "stack.event", w)
        one_of(e["type"], tuple(EVENT_TYPES), f"{w}.type")
        for key in ("before", "after", "commit"):
            e[key] = listed(e[key], f"{w}.{key}") if e.get(key) else None
        e["created_at"] = e.get("created_at") or pr["updated_at"]
        parse_time(e["created_at"], f"{w}.created_at")
        e["actor"] = fill_user(e.get("actor") or pr["author"])
        e["previous"], e["current"] = e.get("previous"), e.get("current")
        events.append(e)
    kinds = {e["type"] for e in events}
    blank = {"previous": None, "current": None, "before": None, "after": None}
    if pr["state"] == "MERGED" and "merged" not in kinds:
        events.append({**blank, "type": "merged", "created_at": pr["merged_at"], "actor": pr["author"],
                       "commit": pr["merge_commit"]})
    if pr["head_ref_deleted"] and "head_ref_deleted" not in kinds:
        events.append({**blank, "type": "head_ref_deleted", "created_at": pr["closed_at"] or pr["updated_at"],
                       "actor": pr["author"], "commit": None})
    events.sort(key=lambda e: e["created_at"])
    pr["timeline"] = events


def check_forks(repos: list[dict[str, Any]]) -> None:
    """A fork PR's ``head_repository`` must be a listed repository (GitHub serves it in full: REST head.repo)."""
    listed = {f"{r['owner']}/{r['name']}".lower() for r in repos}
    for i, repo in enumerate(repos):
        for j, pr in enumerate(repo["pull_requests"]):
            if pr["head_repository"].lower() not in listed:
                raise ScenarioError(f"repositories[{i}].pull_requests[{j}].head_repository: "
                                    f"{pr['head_repository']!r} is not a listed repository")


def add_base_change(pr: dict[str, Any], base: str, actor: str, when: str) -> None:
    """What GitHub records when a PR's base branch changes."""
    pr["timeline"].append({"type": "base_ref_changed", "created_at": when, "actor": actor,
                           "previous": pr["base_ref"], "current": base, "before": None, "after": None,
                           "commit": None})
    pr["base_ref"] = base
    pr["updated_at"] = when


# ------------------------------------------------------------------ GraphQL views
def _index(repo: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["oid"]: c for c in repo.get("commits") or []}


def _stamp(c: dict[str, Any]) -> float:
    return -parse_time(c["committed_date"], "commit").timestamp()


def commit_view(views: Any, repo: dict[str, Any], oid: str | None) -> dict[str, Any] | None:
    from .gql_views import connection

    commits = _index(repo)
    c = commits.get(oid or "")
    if c is None:
        return None
    full = f"{repo['owner']}/{repo['name']}"
    url = views.world.web(full, "commit", c["oid"])
    headline, _, body = c["message"].partition("\n")
    login = c["author_login"]
    person = {"name": c["author_name"], "email": c["author_email"], "date": c["authored_date"],
              "user": views.actor(login) if login and login in views.world.users else None}

    def history(info: Any, **a: Any) -> dict[str, Any]:
        # git log's order: the newest committer date first, a commit's parents queued only once it is shown
        # (so a child comes before its parent even when a rebase gave them the same date), ties by queue order
        seen, order, queue, n = {c["oid"]}, [], [(_stamp(c), 0, c["oid"])], 0
        while queue:
            _, _, oid = heapq.heappop(queue)
            order.append(commits[oid])
            for p in commits[oid]["parents"]:
                if p not in seen and p in commits:
                    seen.add(p)
                    n += 1
                    heapq.heappush(queue, (_stamp(commits[p]), n, p))
        return connection(order, lambda x: commit_view(views, repo, x["oid"]), **a)

    return {
        "__typename": "Commit", "id": node_id("C", c["oid"]), "oid": c["oid"], "abbreviatedOid": c["oid"][:7],
        "message": c["message"], "messageHeadline": headline, "messageBody": body.strip("\n"),
        "authoredDate": c["authored_date"], "committedDate": c["committed_date"], "url": url,
        "resourcePath": url.removeprefix(views.world.data["web_url"]), "author": person,
        "committer": {**person, "date": c["committed_date"]},
        "parents": lambda info, **a: connection(c["parents"], lambda o: commit_view(views, repo, o), **a),
        "history": history, "repository": lambda info: views.repo(repo),
        "statusCheckRollup": lambda info: _commit_rollup(views, repo, c["oid"]),
    }


def _commit_rollup(views: Any, repo: dict[str, Any], oid: str) -> dict[str, Any] | None:
    from .ext_merge import commit_rollup  # ext_merge imports this module

    return commit_rollup(views, repo, oid)


def commit_or_bare(views: Any, repo: dict[str, Any], oid: str, when: str) -> dict[str, Any]:
    """The commit ``oid``: its full view when the scenario lists it in ``commits``, else the little fakehub
    knows of it (a head or review commit): oid, links, ``when`` as its dates, and its status checks."""
    full = f"{repo['owner']}/{repo['name']}"
    url = views.world.web(full, "commit", oid)
    return commit_view(views, repo, oid) or {
        "__typename": "Commit", "id": node_id("C", oid), "oid": oid, "abbreviatedOid": oid[:7], "url": url,
        "resourcePath": url.removeprefix(views.world.data["web_url"]), "authoredDate": when, "committedDate": when,
        "statusCheckRollup": lambda info: _commit_rollup(views, repo, oid)}


def _event_view(views: Any, repo: dict[str, Any], pr: dict[str, Any], i: int, e: dict[str, Any]) -> dict[str, Any]:
    full = f"{repo['owner']}/{repo['name']}"
    out: dict[str, Any] = {
        "__typename": EVENT_TYPES[e["type"]], "id": node_id("EV", full, pr["number"], i),
        "createdAt": e["created_at"], "actor": views.actor(e["actor"]),
        "pullRequest": lambda info: views.pr(repo, pr),
    }
    if e["type"] == "base_ref_changed":
        out.update(previousRefName=e["previous"], currentRefName=e["current"], databaseId=None)
    elif e["type"] == "head_ref_deleted":
        out.update(headRefName=pr["head_ref"], headRef=None)
    elif e["type"] == "head_ref_force_pushed":
        out.update(beforeCommit=commit_view(views, repo, e["before"]), afterCommit=commit_view(views, repo, e["after"]),
                   ref=None)
    elif e["type"] == "merged":
        url = f"{views.world.pr_url(repo, pr)}#event-{i}"
        out.update(commit=commit_view(views, repo, e["commit"]), mergeRefName=pr["base_ref"], mergeRef=None,
                   url=url, resourcePath=url.removeprefix(views.world.data["web_url"]))
    return out


def is_fork_pr(repo: dict[str, Any], pr: dict[str, Any]) -> bool:
    return str(pr.get("head_repository") or "").lower() not in ("", f"{repo['owner']}/{repo['name']}".lower())


def head_repository_view(views: Any, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
    """``PullRequest.headRepository``: the fork (its full view when the scenario lists it), else the PR's repo."""
    if not is_fork_pr(repo, pr):
        return views.repo(repo)
    owner, _, name = pr["head_repository"].partition("/")
    return {**views.repo(views.world.repo(owner, name)), "isFork": True}  # listed: scenario.check_forks


def pr_fields(views: Any, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
    """Extra GraphQL fields of a PullRequest view (merged in by gql_views.Views.pr)."""
    from .gql_views import connection

    full = f"{repo['owner']}/{repo['name']}"
    fork = is_fork_pr(repo, pr)

    def pr_commit(oid: str) -> dict[str, Any]:
        url = f"{views.world.pr_url(repo, pr)}/commits/{oid}"
        return {"__typename": "PullRequestCommit", "id": node_id("PURC", full, pr["number"], oid),
                "commit": commit_or_bare(views, repo, oid, pr["created_at"]), "url": url,
                "resourcePath": url.removeprefix(views.world.data["web_url"]),
                "pullRequest": lambda info: views.pr(repo, pr)}

    def timeline(info: Any, itemTypes: list[str] | None = None, **a: Any) -> dict[str, Any]:
        wanted = {ITEM_TYPES.get(t) for t in itemTypes} if itemTypes else None
        items = [(i, e) for i, e in enumerate(pr["timeline"]) if wanted is None or EVENT_TYPES[e["type"]] in wanted]
        conn = connection(items, lambda ie: _event_view(views, repo, pr, *ie), **a)
        return {**conn, "filteredCount": len(items), "pageCount": len(items), "updatedAt": pr["updated_at"]}

    return {
        "mergeCommit": lambda info: commit_view(views, repo, pr["merge_commit"]),
        # a scenario that lists no commits but has checks: the head commit they ran on (`gh pr checks` reads them
        # as commits(last: 1) { commit { statusCheckRollup } })
        "commits": lambda info, **a: connection(pr["commits"] or ([pr["head_sha"]] if pr.get("checks") else []),
                                                pr_commit, **a),
        "timelineItems": timeline,
        "isCrossRepository": fork,
        "headRepository": lambda info: head_repository_view(views, repo, pr),
        "headRepositoryOwner": lambda info: views.actor(pr["head_repository"].split("/")[0] if fork
                                                        else repo["owner"]),
        "maintainerCanModify": pr["maintainer_can_modify"],
    }


def _branch_commit(views: Any, repo: dict[str, Any], branch: str) -> dict[str, Any] | None:
    oid = repo["branches"].get(branch)
    if oid is None:
        return None
    return commit_view(views, repo, oid) or {"__typename": "Commit", "oid": oid}


def branch_gone(repo: dict[str, Any], pr: dict[str, Any], which: str) -> bool:
    """Whether a PR's head or base branch (`which`) no longer exists, so that GitHub serves its ``headRef`` /
    ``baseRef`` as null: the scenario lists its ``branches`` and not this one, or (the head) the PR's timeline
    ends with the branch's deletion (``head_ref_deleted``, not followed by a restore)."""
    branch = pr[f"{which}_ref"]
    fork_head = which == "head" and is_fork_pr(repo, pr)  # a fork's branches are not the repository's
    if repo.get("branches") and branch not in repo["branches"] and not fork_head:
        return True
    kinds = [e["type"] for e in pr.get("timeline") or [] if e["type"] in ("head_ref_deleted", "head_ref_restored")]
    return which == "head" and bool(kinds) and kinds[-1] == "head_ref_deleted"


def ref_target(views: Any, repo: dict[str, Any], branch: str) -> dict[str, Any]:
    """``Ref.target`` for a PR's ``baseRef``/``headRef`` view (ext_merge): the branch's commit from the
    scenario's ``branches`` (null when the scenario lists no branches; a branch missing from a listing has no
    Ref at all, see branch_gone)."""
    return {"target": lambda info: _branch_commit(views, repo, branch)}


def repo_fields(views: Any, repo: dict[str, Any]) -> dict[str, Any]:
    """Extra GraphQL fields of a Repository view (merged in by gql_views.Views.repo)."""
    full = f"{repo['owner']}/{repo['name']}"

    def ref(info: Any, qualifiedName: str) -> dict[str, Any] | None:
        name = qualifiedName.removeprefix("refs/heads/")
        if name not in repo["branches"]:
            return None
        return {"__typename": "Ref", "id": node_id("REF", full, name), "name": name, "prefix": "refs/heads/",
                "target": _branch_commit(views, repo, name)}

    def obj(info: Any, oid: str | None = None, expression: str | None = None) -> dict[str, Any] | None:
        if oid is None and expression and ":" in expression:  # BRANCH:PATH names a file (ext_codeowners)
            from .ext_codeowners import blob

            return blob(repo, expression)
        return commit_view(views, repo, oid or (repo["branches"].get(expression or "")))

    return {"ref": ref, "object": obj}
