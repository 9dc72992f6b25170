"""fakehub REST routes for merge readiness: branch rules, branches (with the non-admin protection stub),
classic protection (admins only) and compare. Registered into rest.ROUTES by tests/fakehub/rest.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from . import rest
from .spec import node_id, sha


def _repo(ctx: Any) -> dict[str, Any]:
    repo = ctx.world.repo(ctx.params["owner"], ctx.params["repo"])
    if repo is None:
        raise rest.not_found()
    return repo


def _branches(repo: dict[str, Any]) -> dict[str, str]:
    """branch name -> tip sha, for every branch the world knows of."""
    out = {repo["default_branch"]: sha(repo["owner"], repo["name"], repo["default_branch"])}
    for pr in repo["pull_requests"]:
        out[pr["base_ref"]] = pr["base_sha"]
        out.setdefault(pr["head_ref"], pr["head_sha"])
    for name in repo.get("branch_rules") or {}:
        out.setdefault(name, sha(repo["owner"], repo["name"], name))
    return out


def commit_object(ctx: Any, repo: dict[str, Any], commit_sha: str) -> dict[str, Any]:
    api = f"{ctx.objects.repo_api(repo)}/commits/{commit_sha}"
    web = ctx.world.web(repo["owner"], repo["name"], "commit", commit_sha)
    parent = sha(commit_sha, "parent")
    person = {"name": "Octo Cat", "email": "octocat@example.com", "date": "2026-11-01T09:00:00Z"}
    return {
        "url": api, "sha": commit_sha, "node_id": node_id("C", commit_sha), "html_url": web,
        "comments_url": f"{api}/comments",
        "commit": {"url": f"{ctx.objects.repo_api(repo)}/git/commits/{commit_sha}", "author": person,
                   "committer": person, "message": "Commit", "comment_count": 0,
                   "tree": {"sha": sha(commit_sha, "tree"), "url": f"{ctx.objects.repo_api(repo)}/git/trees/x"},
                   "verification": {"verified": False, "reason": "unsigned", "payload": None, "signature": None,
                                    "verified_at": None}},
        "author": None, "committer": None,
        "parents": [{"sha": parent, "url": f"{ctx.objects.repo_api(repo)}/commits/{parent}",
                     "html_url": ctx.world.web(repo["owner"], repo["name"], "commit", parent)}],
    }


def get_branch_rules(ctx: Any) -> rest.RestResponse:
    repo = _repo(ctx)
    branch = unquote(ctx.params["branch"])
    rules = ((repo.get("branch_rules") or {}).get(branch) or {}).get("rulesets") or []
    items = [{"type": r["type"], "parameters": r["parameters"], "ruleset_source_type": rs["source_type"],
              "ruleset_source": rs["source"], "ruleset_id": rs["id"]} for rs in rules for r in rs["rules"]]
    page, headers = ctx.paginate(items)
    return rest.RestResponse(200, page, headers)


def _status_checks(classic: dict[str, Any], full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"enforcement_level": "everyone" if classic["required_checks"] else "off",
                           "contexts": classic["required_checks"],
                           "checks": [{"context": c, "app_id": None} for c in classic["required_checks"]]}
    if full:
        out["strict"] = classic["strict"]
    return out


def get_branch(ctx: Any) -> rest.RestResponse:
    repo = _repo(ctx)
    branch = unquote(ctx.params["branch"])
    tips = _branches(repo)
    if branch not in tips:
        raise rest.RestError(404, {"message": "Branch not found", "documentation_url": rest.DOCS, "status": "404"})
    classic = ((repo.get("branch_rules") or {}).get(branch) or {}).get("classic")
    base = f"{ctx.objects.repo_api(repo)}/branches/{branch}"
    protection: dict[str, Any] = {"enabled": bool(classic),
                                  "required_status_checks": _status_checks(classic, False) if classic else
                                  {"enforcement_level": "off", "contexts": [], "checks": []}}
    body = {"name": branch, "commit": commit_object(ctx, repo, tips[branch]),
            "_links": {"self": base, "html": ctx.world.web(repo["owner"], repo["name"], "tree", branch)},
            "protected": bool(classic), "protection": protection, "protection_url": f"{base}/protection"}
    return rest.RestResponse(200, body)


def get_branch_protection(ctx: Any) -> rest.RestResponse:
    repo = _repo(ctx)
    branch = unquote(ctx.params["branch"])
    classic = ((repo.get("branch_rules") or {}).get(branch) or {}).get("classic")
    if repo["viewer_permission"] != "ADMIN":
        raise rest.not_found()
    if not classic:
        raise rest.RestError(404, {"message": "Branch not protected", "documentation_url": rest.DOCS,
                                   "status": "404"})
    url = f"{ctx.objects.repo_api(repo)}/branches/{branch}/protection"
    body: dict[str, Any] = {
        "url": url, "enabled": True, "required_status_checks": {**_status_checks(classic, True),
                                                                 "url": f"{url}/required_status_checks"},
        "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": classic["enforce_admins"]},
        "required_conversation_resolution": {"enabled": classic["conversation_resolution"]},
    }
    if classic["required_approvals"] or classic["code_owner_reviews"]:
        body["required_pull_request_reviews"] = {
            "url": f"{url}/required_pull_request_reviews", "dismiss_stale_reviews": False,
            "require_code_owner_reviews": classic["code_owner_reviews"],
            "required_approving_review_count": classic["required_approvals"], "require_last_push_approval": False}
    return rest.RestResponse(200, body)


def compare(ctx: Any) -> rest.RestResponse:
    repo = _repo(ctx)
    base, sep, head = unquote(ctx.params["basehead"]).partition("...")
    pr = next((p for p in repo["pull_requests"] if sep and p["base_ref"] == base
               and head in (p["head_sha"], p["head_ref"])), None)
    if pr is None:
        raise rest.not_found()
    ms = pr["merge_state"]
    behind, ahead = ms["behind_by"], ms["ahead_by"]
    status = "identical" if not (behind or ahead) else "ahead" if not behind else "behind" if not ahead else "diverged"
    web = ctx.world.web(repo["owner"], repo["name"], "compare", f"{base}...{head}")
    body = {"url": f"{ctx.objects.repo_api(repo)}/compare/{base}...{head}", "html_url": web,
            "permalink_url": web, "diff_url": f"{web}.diff", "patch_url": f"{web}.patch",
            "base_commit": commit_object(ctx, repo, pr["base_sha"]),
            "merge_base_commit": commit_object(ctx, repo, sha(pr["base_sha"], "merge-base")),
            "status": status, "ahead_by": ahead, "behind_by": behind, "total_commits": ahead, "commits": [],
            "files": []}
    return rest.RestResponse(200, body)


ROUTES: dict[str, Any] = {
    "GET /repos/{owner}/{repo}/rules/branches/{branch}": get_branch_rules,
    "GET /repos/{owner}/{repo}/branches/{branch}": get_branch,
    "GET /repos/{owner}/{repo}/branches/{branch}/protection": get_branch_protection,
    "GET /repos/{owner}/{repo}/compare/{basehead}": compare,
}
