"""Ready-to-paste commands for review feedback, built by :mod:`pr_agent.shellcmd`.

Untrusted text (comment bodies, paths) never appears in a command at all — only ids, numbers and the
repository name, which are quoted anyway. **A reply command holds no text of its own**: gh reads the body
from standard input (``-F body=@-``), so the agent pipes its own words in (``… < reply.md``, a quoted
heredoc) and nothing needs quoting. Run verbatim with nothing on stdin, the body is empty and GitHub refuses
it (REST: 422 ``missing_field``/"body cannot be blank"; GraphQL: "Body can't be blank"), so nothing is
posted: executing any emitted command never writes text the user did not write (issue 18, item 3).
:data:`REPLY_NEEDS_INPUT` is what such a command needs (``action_commands.needs_input``).
"""

from __future__ import annotations

from pr_agent import surface
from pr_agent.refs import PRRef
from pr_agent.shellcmd import command

BODY_FROM_STDIN = "body=@-"  # gh api: "@-" reads the field's value from standard input
REPLY_NEEDS_INPUT = ("stdin",)  # the reply's text, written by the agent, on the command's standard input

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
    return command(argv)


def review_reply_command(ref: PRRef, root_comment_id: int) -> str:
    """POST a reply into the thread of a review comment (REST; needs the root comment's numeric id)."""
    path = f"repos/{ref.owner}/{ref.repo}/pulls/{ref.number}/comments/{root_comment_id}/replies"
    return _cmd([*_gh_api(ref), "-X", "POST", path, "-F", BODY_FROM_STDIN])


def pending_reply_command(ref: PRRef, thread_id: str, review_id: str) -> str:
    """Add a reply to the viewer's pending review (published when that review is submitted)."""
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={REPLY_INTO_REVIEW_MUTATION}", "-f", f"thread={thread_id}",
                 "-f", f"review={review_id}", "-F", BODY_FROM_STDIN])


def submit_review_command(ref: PRRef, review_id: str) -> str:
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={SUBMIT_REVIEW_MUTATION}", "-f", f"review={review_id}"])


def discard_review_command(ref: PRRef, review_id: str) -> str:
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={DISCARD_REVIEW_MUTATION}", "-f", f"review={review_id}"])


def conversation_reply_command(ref: PRRef) -> str:
    """Post a conversation (issue) comment on the PR."""
    path = f"repos/{ref.owner}/{ref.repo}/issues/{ref.number}/comments"
    return _cmd([*_gh_api(ref), "-X", "POST", path, "-F", BODY_FROM_STDIN])


def resolve_command(ref: PRRef, thread_id: str) -> str:
    """Resolve a review thread with the GraphQL mutation, through plain gh."""
    return _cmd([*_gh_api(ref), "graphql", "-f", f"query={RESOLVE_MUTATION}", "-f", f"id={thread_id}"])


def view_command(ref: PRRef) -> str:
    """The PR in a browser: a plain gh command on both faces (it needs nothing of ours, and gh is there: the
    MCP server itself runs on it)."""
    return surface.show(surface.run(["gh", "pr", "view", str(ref.number), "--repo", _repo_arg(ref), "--web"],
                                    why="Open the pull request in a browser."))


def _repo_arg(ref: PRRef) -> str:
    if ref.host and ref.host != "github.com":
        return f"{ref.host}/{ref.owner}/{ref.repo}"
    return f"{ref.owner}/{ref.repo}"
