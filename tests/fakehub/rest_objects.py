"""REST (v3) JSON objects built from the world, shaped to pass the pinned OpenAPI response schemas."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .world import World

REST_REACTIONS = {"THUMBS_UP": "+1", "THUMBS_DOWN": "-1", "LAUGH": "laugh", "HOORAY": "hooray",
                  "CONFUSED": "confused", "HEART": "heart", "ROCKET": "rocket", "EYES": "eyes"}
REPO_URLS = {
    "archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}", "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}", "contents_url": "/contents/{+path}",
    "contributors_url": "/contributors", "deployments_url": "/deployments", "downloads_url": "/downloads",
    "events_url": "/events", "forks_url": "/forks", "git_commits_url": "/git/commits{/sha}",
    "git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
    "languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
    "teams_url": "/teams", "trees_url": "/git/trees{/sha}",
}
PERMISSION_FLAGS = {"ADMIN": 5, "MAINTAIN": 4, "WRITE": 3, "TRIAGE": 2, "READ": 1, None: 0}


class RestObjects:
    def __init__(self, world: World, api: str) -> None:
        self.world, self.api = world, api.rstrip("/")

    def repo_api(self, repo: dict[str, Any]) -> str:
        return f"{self.api}/repos/{repo['owner']}/{repo['name']}"

    # ---------------------------------------------------------------- users
    def user(self, login: str | None, *, comment: bool = False) -> dict[str, Any] | None:
        if login is None:
            return None
        u = self.world.users[login]
        rest_login = u["rest_comment_login" if comment else "rest_login"]
        bot = u["type"] == "Bot"
        url = f"{self.api}/users/{quote(rest_login)}"
        return {
            "login": rest_login, "id": u["id"], "node_id": u["node_id"],
            "avatar_url": f"https://avatars.githubusercontent.com/{'in' if bot else 'u'}/{u['id']}?v=4",
            "gravatar_id": "", "url": url,
            "html_url": self.world.web("apps", login) if bot else self.world.web(rest_login),
            "followers_url": f"{url}/followers", "following_url": f"{url}/following{{/other_user}}",
            "gists_url": f"{url}/gists{{/gist_id}}", "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{url}/subscriptions", "organizations_url": f"{url}/orgs",
            "repos_url": f"{url}/repos", "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events", "type": u["type"], "user_view_type": "public",
            "site_admin": u["site_admin"],
        }

    def private_user(self, login: str) -> dict[str, Any]:
        u = self.world.users[login]
        return {
            **(self.user(login) or {}), "user_view_type": "private", "name": u["name"], "company": None,
            "blog": "", "location": None, "email": None, "notification_email": None, "hireable": None,
            "bio": None, "twitter_username": None, "public_repos": len(self.world.repositories),
            "public_gists": 0, "followers": 0, "following": 0, "created_at": u["created_at"],
            "updated_at": u["created_at"], "private_gists": 0, "total_private_repos": 0,
            "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0, "two_factor_authentication": True,
            "plan": {"name": "pro", "space": 976562499, "collaborators": 0, "private_repos": 9999},
        }

    # ---------------------------------------------------------------- repositories and pulls
    def repository(self, repo: dict[str, Any]) -> dict[str, Any]:
        full = f"{repo['owner']}/{repo['name']}"
        base = self.repo_api(repo)
        level = PERMISSION_FLAGS[repo["viewer_permission"]]
        host = self.world.data["web_url"].split("://", 1)[-1]
        open_prs = sum(1 for p in repo["pull_requests"] if p["state"] == "OPEN")
        stamp = max([repo["created_at"], *(p["updated_at"] for p in repo["pull_requests"])])
        owner = self.user(repo["owner"])
        out = {
            "id": repo["id"], "node_id": repo["node_id"], "name": repo["name"], "full_name": full,
            "owner": owner, "private": repo["private"], "html_url": self.world.web(full),
            "description": repo["description"], "fork": False, "url": base,
            **{key: base + suffix for key, suffix in REPO_URLS.items()},
            "created_at": repo["created_at"], "updated_at": stamp, "pushed_at": stamp,
            "git_url": f"git://{host}/{full}.git", "ssh_url": f"git@{host}:{full}.git",
            "clone_url": self.world.web(f"{full}.git"), "svn_url": self.world.web(full), "homepage": None,
            "size": 1024, "stargazers_count": 0, "watchers_count": 0, "language": "Python",
            "has_issues": True, "has_projects": True, "has_downloads": True, "has_wiki": True,
            "has_pages": False, "has_discussions": False, "forks_count": 0, "mirror_url": None,
            "archived": False, "disabled": False, "open_issues_count": open_prs, "license": None,
            "allow_forking": True, "is_template": False, "web_commit_signoff_required": False,
            "topics": [], "visibility": "private" if repo["private"] else "public", "forks": 0,
            "open_issues": open_prs, "watchers": 0, "default_branch": repo["default_branch"],
            "permissions": {"admin": level >= 5, "maintain": level >= 4, "push": level >= 3,
                            "triage": level >= 2, "pull": level >= 1},
            "allow_squash_merge": True, "allow_merge_commit": True, "allow_rebase_merge": True,
            "allow_auto_merge": False, "delete_branch_on_merge": False, "allow_update_branch": False,
            "use_squash_pr_title_as_default": False, "squash_merge_commit_title": "COMMIT_OR_PR_TITLE",
            "squash_merge_commit_message": "COMMIT_MESSAGES", "merge_commit_title": "MERGE_MESSAGE",
            "merge_commit_message": "PR_TITLE", "network_count": 0, "subscribers_count": 0,
        }
        if self.world.users[repo["owner"]]["type"] == "Organization":
            out["organization"] = owner
        return out

    def pull(self, repo: dict[str, Any], pr: dict[str, Any]) -> dict[str, Any]:
        base = self.repo_api(repo)
        n = pr["number"]
        html = self.world.pr_url(repo, pr)
        url = f"{base}/pulls/{n}"
        repo_obj = self.repository(repo)

        def side(ref: str, sha: str, where: str | None = None) -> dict[str, Any]:
            # the head of a fork PR lives in the fork (ext_stack: head_repository)
            owner, _, name = (where or f"{repo['owner']}/{repo['name']}").partition("/")
            obj = repo_obj if where is None else self.repository(self.world.repo(owner, name) or repo)
            return {"label": f"{owner}:{ref}", "ref": ref, "sha": sha, "user": self.user(owner), "repo": obj}

        fork = pr.get("head_repository") if pr.get("head_repository", "").lower() != \
            f"{repo['owner']}/{repo['name']}".lower() else None

        link = {"self": url, "html": html, "issue": f"{base}/issues/{n}", "comments": f"{base}/issues/{n}/comments",
                "review_comments": f"{url}/comments", "review_comment": f"{base}/pulls/comments{{/number}}",
                "commits": f"{url}/commits", "statuses": f"{base}/statuses/{pr['head_sha']}"}
        merged = pr["state"] == "MERGED"
        return {
            "url": url, "id": pr["id"], "node_id": pr["node_id"], "html_url": html, "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch", "issue_url": link["issue"], "commits_url": link["commits"],
            "review_comments_url": link["review_comments"], "review_comment_url": link["review_comment"],
            "comments_url": link["comments"], "statuses_url": link["statuses"], "number": n,
            "state": "open" if pr["state"] == "OPEN" else "closed", "locked": False, "title": pr["title"],
            "user": self.user(pr["author"]), "body": pr["body"] or None, "labels": [], "milestone": None,
            "active_lock_reason": None, "created_at": pr["created_at"], "updated_at": pr["updated_at"],
            "closed_at": pr["closed_at"], "merged_at": pr["merged_at"],
            "merge_commit_sha": pr["head_sha"] if merged else None, "assignee": None, "assignees": [],
            "requested_reviewers": [], "requested_teams": [], "head": side(pr["head_ref"], pr["head_sha"], fork),
            "base": side(pr["base_ref"], pr["base_sha"]),
            "_links": {k: {"href": v} for k, v in link.items()},
            "author_association": pr["author_association"], "auto_merge": None, "draft": pr["draft"],
            "merged": merged, "mergeable": None, "rebaseable": None, "mergeable_state": "unknown",
            "merged_by": self.user(pr["author"]) if merged else None,
            "comments": len(pr["issue_comments"]),
            "review_comments": sum(len(self.world.visible_comments(t)) for t in pr["threads"]),
            "maintainer_can_modify": bool(pr.get("maintainer_can_modify")),
            "commits": 1, "additions": 0, "deletions": 0, "changed_files": 0,
            **pr["rest_extra"],
        }

    # ---------------------------------------------------------------- comments and reviews
    def reactions(self, reactions: dict[str, int], url: str) -> dict[str, Any]:
        out: dict[str, Any] = {"url": f"{url}/reactions", "total_count": sum(reactions.values())}
        out.update({rest: reactions.get(gql, 0) for gql, rest in REST_REACTIONS.items()})
        return out

    def review_comment(self, repo: dict[str, Any], pr: dict[str, Any], th: dict[str, Any],
                       c: dict[str, Any]) -> dict[str, Any]:
        base = self.repo_api(repo)
        url = f"{base}/pulls/comments/{c['id']}"
        html = f"{self.world.pr_url(repo, pr)}#discussion_r{c['id']}"
        pr_url = f"{base}/pulls/{pr['number']}"
        file_level = th["subject_type"] == "FILE"
        hide = th["outdated"] or file_level
        out = {
            "url": url, "pull_request_review_id": c["review"], "id": c["id"], "node_id": c["node_id"],
            "diff_hunk": c["diff_hunk"], "path": th["path"], "position": None if hide else 1,
            "original_position": None if file_level else 1, "commit_id": c["commit_id"],
            "original_commit_id": c["original_commit_id"], "user": self.user(c["author"], comment=True),
            "body": c["body"], "created_at": c["created_at"], "updated_at": c["updated_at"], "html_url": html,
            "pull_request_url": pr_url, "author_association": c["author_association"],
            "_links": {"self": {"href": url}, "html": {"href": html}, "pull_request": {"href": pr_url}},
            "reactions": self.reactions(c["reactions"], url),
            "start_line": None if hide else th["start_line"],
            "original_start_line": None if file_level else th["original_start_line"],
            "start_side": th["start_diff_side"] if th["start_line"] and not hide else None,
            "line": None if hide else th["line"], "original_line": None if file_level else th["original_line"],
            "side": th["diff_side"], "subject_type": th["subject_type"].lower(),
        }
        root = self.world.root_of(c, th)
        if root is not None:
            out["in_reply_to_id"] = root["id"]
        return out

    def review(self, repo: dict[str, Any], pr: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
        pr_url = f"{self.repo_api(repo)}/pulls/{pr['number']}"
        html = f"{self.world.pr_url(repo, pr)}#pullrequestreview-{r['id']}"
        out = {
            "id": r["id"], "node_id": r["node_id"], "user": self.user(r["author"]), "body": r["body"],
            "state": r["state"], "html_url": html, "pull_request_url": pr_url,
            "author_association": r["author_association"],
            "_links": {"html": {"href": html}, "pull_request": {"href": pr_url}}, "commit_id": r["commit_id"],
        }
        if r["submitted_at"]:
            out["submitted_at"] = r["submitted_at"]
        return out

    def issue_comment(self, repo: dict[str, Any], pr: dict[str, Any], ic: dict[str, Any]) -> dict[str, Any]:
        base = self.repo_api(repo)
        url = f"{base}/issues/comments/{ic['id']}"
        return {
            "url": url, "html_url": f"{self.world.pr_url(repo, pr)}#issuecomment-{ic['id']}",
            "issue_url": f"{base}/issues/{pr['number']}", "id": ic["id"], "node_id": ic["node_id"],
            "user": self.user(ic["author"]), "created_at": ic["created_at"], "updated_at": ic["updated_at"],
            "author_association": ic["author_association"], "body": ic["body"],
            "reactions": self.reactions(ic["reactions"], url), "performed_via_github_app": None,
        }

    # ---------------------------------------------------------------- misc
    def root(self) -> dict[str, Any]:
        a, web = self.api, self.world.data["web_url"]
        return {
            "current_user_url": f"{a}/user", "current_user_authorizations_html_url":
            f"{web}/settings/connections/applications{{/client_id}}", "authorizations_url": f"{a}/authorizations",
            "code_search_url": f"{a}/search/code?q={{query}}{{&page,per_page,sort,order}}",
            "commit_search_url": f"{a}/search/commits?q={{query}}{{&page,per_page,sort,order}}",
            "emails_url": f"{a}/user/emails", "emojis_url": f"{a}/emojis", "events_url": f"{a}/events",
            "feeds_url": f"{a}/feeds", "followers_url": f"{a}/user/followers",
            "following_url": f"{a}/user/following{{/target}}", "gists_url": f"{a}/gists{{/gist_id}}",
            "hub_url": f"{a}/hub", "issue_search_url": f"{a}/search/issues?q={{query}}{{&page,per_page,sort,order}}",
            "issues_url": f"{a}/issues", "keys_url": f"{a}/user/keys",
            "label_search_url": f"{a}/search/labels?q={{query}}&repository_id={{repository_id}}{{&page,per_page}}",
            "notifications_url": f"{a}/notifications", "organization_url": f"{a}/orgs/{{org}}",
            "organization_repositories_url": f"{a}/orgs/{{org}}/repos{{?type,page,per_page,sort}}",
            "organization_teams_url": f"{a}/orgs/{{org}}/teams", "public_gists_url": f"{a}/gists/public",
            "rate_limit_url": f"{a}/rate_limit", "repository_url": f"{a}/repos/{{owner}}/{{repo}}",
            "repository_search_url": f"{a}/search/repositories?q={{query}}{{&page,per_page,sort,order}}",
            "current_user_repositories_url": f"{a}/user/repos{{?type,page,per_page,sort}}",
            "starred_url": f"{a}/user/starred{{/owner}}{{/repo}}", "starred_gists_url": f"{a}/gists/starred",
            "topic_search_url": f"{a}/search/topics?q={{query}}{{&page,per_page}}", "user_url": f"{a}/users/{{user}}",
            "user_organizations_url": f"{a}/user/orgs",
            "user_repositories_url": f"{a}/users/{{user}}/repos{{?type,page,per_page,sort}}",
            "user_search_url": f"{a}/search/users?q={{query}}{{&page,per_page,sort,order}}",
        }
