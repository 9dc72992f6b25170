"""Ready-to-paste commands for review feedback, built by :mod:`pr_agent.shellcmd`.

Untrusted text (comment bodies, paths) never appears in a command at all — only ids, numbers and the
repository name, which are quoted anyway. The reply body is a placeholder the agent replaces; it always
sits inside single quotes, so any replacement text is posted literally (``$(…)``, backticks, ``"`` and
newlines included) — only a single quote must be written as ``'\\''``.
"""

from __future__ import annotations

from pr_agent.refs import PRRef
from pr_agent.shellcmd import command

REPLY_PLACEHOLDER = "YOUR_REPLY_HERE"

RESOLVE_MUTATION = "mutation($id:ID!){resolveReviewThread(input:{threadId:$id}){thread{id isResolved}}}"
# a reply into the viewer's pending review (GitHub refuses REST replies while one exists)
REPLY_INTO_REVIEW_MUTATION = (
    "mutation($thread:ID!,$review:ID!,$body:String!){addPullRequestReviewThreadReply(input:"
    "{pullRequestReviewThreadId:$thread,pullRequestReviewId:$review,body:$body}){comment{id url}}}")
SUBMIT_REVIEW_MUTATION = (
    "mutation($review:ID!){submitPullRequestReview(input:{pullRequestReviewId:$review,event:COMMENT})"
    "{pullRequestReview{id state}}}")
DISCARD_REVIEW_MUTATION = (
    "mutation($review:ID!){deletePullRequestReview(input:{pullRequestReviewId:$review}){pullRequestReview{id}}}")


def _gh_api(ref: PRRef) -> list[str]:
    argv = ["gh", "api"]
    if ref.host and ref.host != "github.com":
        argv += ["--hostname", ref.host]
    return argv


def _cmd(argv: list[str]) -> str:
    return command(argv, slot=REPLY_PLACEHOLDER)


def review_reply_command(ref: PRRef, root_comment_id: int) -> str:
    """POST a reply into the thread of a review comment (REST; needs the root comment's numeric id)."""
    path = f"repos/{ref.owner}/{ref.repo}/pulls/{ref.number}/comments/{root_comment_id}/replies"
    return _cmd([*_gh_api(ref), "--method", "POST", path, "-f", f"body={REPLY_PLACEHOLDER}"])


def pending_reply_command(ref: PRRef, thread_id: str, review_id: str) -> str:
    """Add a reply to the viewer's pending review (published when that review is submitted)."""
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={REPLY_INTO_REVIEW_MUTATION}", "-f", f"thread={thread_id}",
                 "-f", f"review={review_id}", "-f", f"body={REPLY_PLACEHOLDER}"])


def submit_review_command(ref: PRRef, review_id: str) -> str:
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={SUBMIT_REVIEW_MUTATION}", "-f", f"review={review_id}"])


def discard_review_command(ref: PRRef, review_id: str) -> str:
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={DISCARD_REVIEW_MUTATION}", "-f", f"review={review_id}"])


def conversation_reply_command(ref: PRRef) -> str:
    """Post a conversation (issue) comment on the PR."""
    path = f"repos/{ref.owner}/{ref.repo}/issues/{ref.number}/comments"
    return _cmd([*_gh_api(ref), "--method", "POST", path, "-f", f"body={REPLY_PLACEHOLDER}"])


def resolve_command(ref: PRRef, thread_id: str) -> str:
    """Resolve a review thread with the GraphQL mutation, through plain gh."""
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={RESOLVE_MUTATION}", "-f", f"id={thread_id}"])


def view_command(ref: PRRef) -> str:
    return _cmd(["gh", "pr", "view", str(ref.number), "--repo", _repo_arg(ref), "--web"])


def _repo_arg(ref: PRRef) -> str:
    if ref.host and ref.host != "github.com":
        return f"{ref.host}/{ref.owner}/{ref.repo}"
    return f"{ref.owner}/{ref.repo}"
