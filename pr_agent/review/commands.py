"""Ready-to-paste commands for review feedback.

Every value is quoted with :func:`shlex.quote`; untrusted text (comment bodies, paths) never
appears in a command at all — only ids, numbers and the repository name, which are quoted anyway.
The reply body is a placeholder the agent replaces; it always sits inside single quotes, so any
replacement text is posted literally (``$(…)``, backticks, ``"`` and newlines included) — only a
single quote must be written as ``'\''``.
"""

from __future__ import annotations

import shlex

from pr_agent.refs import PRRef

REPLY_PLACEHOLDER = "YOUR_REPLY_HERE"

RESOLVE_MUTATION = "mutation($id:ID!){resolveReviewThread(input:{threadId:$id}){thread{id isResolved}}}"


def _gh_api(ref: PRRef) -> list[str]:
    argv = ["gh", "api"]
    if ref.host and ref.host != "github.com":
        argv += ["--hostname", ref.host]
    return argv


def _join(argv: list[str]) -> str:
    return " ".join(_always_quoted(a) if REPLY_PLACEHOLDER in a else shlex.quote(a) for a in argv)


def _always_quoted(arg: str) -> str:
    """Single quotes even when not needed, so the placeholder can be replaced by any text in place."""
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def review_reply_command(ref: PRRef, root_comment_id: int) -> str:
    """POST a reply into the thread of a review comment (REST; needs the root comment's numeric id)."""
    path = f"repos/{ref.owner}/{ref.repo}/pulls/{ref.number}/comments/{root_comment_id}/replies"
    return _join([*_gh_api(ref), "--method", "POST", path, "-f", f"body={REPLY_PLACEHOLDER}"])


def conversation_reply_command(ref: PRRef) -> str:
    """Post a conversation (issue) comment on the PR."""
    path = f"repos/{ref.owner}/{ref.repo}/issues/{ref.number}/comments"
    return _join([*_gh_api(ref), "--method", "POST", path, "-f", f"body={REPLY_PLACEHOLDER}"])


def resolve_command(ref: PRRef, thread_id: str) -> str:
    """Resolve a review thread with the GraphQL mutation, through plain gh."""
    return _join([*_gh_api(ref), "graphql", "-f", f"query={RESOLVE_MUTATION}", "-f", f"id={thread_id}"])


def view_command(ref: PRRef) -> str:
    argv = ["gh", "pr", "view", str(ref.number), "--repo", _repo_arg(ref), "--web"]
    return _join(argv)


def _repo_arg(ref: PRRef) -> str:
    if ref.host and ref.host != "github.com":
        return f"{ref.host}/{ref.owner}/{ref.repo}"
    return f"{ref.owner}/{ref.repo}"
