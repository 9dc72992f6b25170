"""fakehub: CODEOWNERS and the code-owner review requirement, as GitHub applies them.

Scenario keys: ``codeowners`` on a repository (the text of its CODEOWNERS file on the base branch, at
``codeowners_path``, default ``.github/CODEOWNERS``: served as ``Repository.object(expression:
"BRANCH:PATH")`` → ``Blob.text``),
``teams`` on a repository (``"org/team": [member logins]``) and ``files`` on a pull request (the paths it
changes). GitHub (docs "About code owners"): the LAST matching line of CODEOWNERS wins; a line with no
owners leaves the path unowned; patterns follow gitignore rules (``*`` within a path segment, ``**`` across,
a leading ``/`` anchors at the root, a pattern without ``/`` matches at any depth, a directory matches
everything below it). When the base branch requires code-owner review, the owners of the changed files are
requested as reviewers (``ReviewRequest.asCodeOwner: true``) and ``reviewDecision`` stays REVIEW_REQUIRED
until, for every owned changed file, one of its owners (a user, or a member of an owning team) with write
access approved.
"""

from __future__ import annotations

import re
from typing import Any

from . import spec as spec_mod

spec_mod.SPEC["repository"].update({"codeowners": str, "codeowners_path": str, "teams": dict})
spec_mod.SPEC["pull_request"].update({"files": list})


def _regex(pattern: str) -> re.Pattern[str]:
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    out = ""
    i = 0
    while i < len(body):
        if body.startswith("**", i):
            out += ".*"
            i += 2
        elif body[i] == "*":
            out += "[^/]*"
            i += 1
        elif body[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(body[i])
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{out}(?:/.*)?$")


def rules(text: str | None) -> list[tuple[re.Pattern[str], list[str]]]:
    out = []
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pattern, *owners = line.split()
        out.append((_regex(pattern), [o.removeprefix("@") for o in owners]))
    return out


def owners_of(repo: dict[str, Any], path: str) -> list[str]:
    found: list[str] = []
    for rx, owners in rules(repo.get("codeowners")):
        if rx.match(path):
            found = owners  # the last match wins
    return found


def _covers(repo: dict[str, Any], owner: str, login: str) -> bool:
    if "/" in owner:
        return login in ((repo.get("teams") or {}).get(owner) or [])
    return owner.lower() == login.lower()


def unmet(repo: dict[str, Any], pr: dict[str, Any], approvers: list[str]) -> dict[str, list[str]]:
    """Changed file -> its owners, for the owned files no owner approved yet."""
    out = {}
    for path in pr.get("files") or []:
        owners = owners_of(repo, path)
        if owners and not any(_covers(repo, o, a) for o in owners for a in approvers):
            out[path] = owners
    return out


def requested_owners(repo: dict[str, Any], pr: dict[str, Any], approvers: list[str]) -> list[str]:
    """The code owners GitHub requested and who have not approved yet, in CODEOWNERS order."""
    seen: list[str] = []
    for owners in unmet(repo, pr, approvers).values():
        seen += [o for o in owners if o not in seen and o != pr["author"]]
    return seen


def blob(repo: dict[str, Any], expression: str) -> dict[str, Any] | None:
    """``Repository.object(expression: "BRANCH:PATH")``: the CODEOWNERS file as a Blob (any branch of the
    scenario, since its CODEOWNERS is the base branch's); null for every other path, as for a missing file."""
    from .spec import node_id

    _branch, _, path = expression.partition(":")
    text = repo.get("codeowners")
    if text is None or path != (repo.get("codeowners_path") or ".github/CODEOWNERS"):
        return None
    return {"__typename": "Blob", "id": node_id("BLOB", repo["name"], path), "text": text,
            "byteSize": len(text.encode()), "isBinary": False, "isTruncated": False}


def pr_fields(views: Any, pr: dict[str, Any]) -> dict[str, Any]:
    """``PullRequest.files``: the changed paths (scenario key ``files``)."""
    from .gql_views import connection

    def view(path: str) -> dict[str, Any]:
        return {"__typename": "PullRequestChangedFile", "path": path, "additions": 1, "deletions": 0,
                "changeType": "MODIFIED"}

    return {"files": lambda info, **a: connection(list(pr.get("files") or []), view, **a),
            "changedFiles": len(pr.get("files") or [])}
