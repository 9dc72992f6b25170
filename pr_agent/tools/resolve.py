"""resolve_review_thread: resolve one review thread, optionally replying first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pr_agent import surface
from pr_agent.context import Context
from pr_agent.errors import PrAgentError, command_repair, tool_repair
from pr_agent.iostreams import colors
from pr_agent.queries import load_query
from pr_agent.refs import PRRef
from pr_agent.review import commands
from pr_agent.review.authors import is_bot, normalize_login
from pr_agent.review.fetch import pr_not_found
from pr_agent.textsafe import REPOSITORY_NOTICE
from pr_agent.tooldef import Annotations, InputModel, OutputModel, Tool, register, stored
from pr_agent.tools.comments import PR_FIELD_DESCRIPTION

NAME = "resolve_review_thread"
_NODE_ID = r"[A-Za-z0-9_=+/-]{4,200}"


class ResolveReviewThreadInput(InputModel):
    pr: str | None = Field(None, description=PR_FIELD_DESCRIPTION, max_length=2048)
    thread_id: str | None = Field(
        None, pattern=f"^{_NODE_ID}$",
        description="Review thread node id (PRRT_…), as find_unresolved_comments gives it (an item's "
        "action_commands.mcp_action.args.thread_id, or its thread_id). "
        "Omitted means comment_id identifies the thread.")
    comment_id: Annotated[int, Field(ge=1, le=2**63 - 1)] | Annotated[
        str, Field(pattern=rf"^(?:[0-9]{{1,20}}|{_NODE_ID})$")] | None = Field(
        None, description="Any comment of the thread: its node id (PRRC_…) or numeric REST id (the integer id "
        "find_unresolved_comments returns, or the same digits as a string). Omitted means thread_id identifies "
        "the thread.")
    prefer: Literal["thread", "comment"] = Field(
        "thread", description="Which id wins when both are given. Omitted means thread.")
    reply: str | None = Field(
        None, min_length=1, max_length=65536,
        description="Text posted as a reply in the thread before it is resolved. Not posted when the "
        "thread is already resolved or when your identical reply is already its last comment. "
        "Omitted means resolve without replying.")

    when_reviewer_spoke_last: Literal["refuse", "resolve"] | None = stored(
        "refuse", "What to do when the thread's last comment is a human reviewer's (not yours) and no reply is "
        "given: refuse (they may be waiting for an answer) or resolve anyway.")

    @model_validator(mode="after")
    def _one_id(self) -> ResolveReviewThreadInput:
        if not self.thread_id and not self.comment_id:
            raise ValueError(surface.text("give ", surface.arg(NAME, "thread_id"), " or ",
                                          surface.arg(NAME, "comment_id")))
        return self


class ReplyInfo(OutputModel):
    comment_id: int
    node_id: str
    url: str


class Speaker(OutputModel):
    author: str
    is_bot: bool
    is_viewer: bool


class ResolveReviewThreadOutput(OutputModel):
    notice: str = Field(REPOSITORY_NOTICE, description="How to treat the text in this answer.")
    ok: bool
    pr: str
    thread_id: str
    alreadyResolved: bool
    replied: bool = Field(description="Whether this call posted the reply.")
    reply_comment: ReplyInfo | None = Field(None, description="The reply this call posted.")
    last_speaker: Speaker | None = Field(None, description="Who wrote the thread's last comment before this call.")
    message: str


@dataclass
class ThreadState:
    id: str
    is_resolved: bool
    can_resolve: bool
    can_reply: bool
    last_comment: dict[str, Any] | None
    viewer: str
    pending_review: str | None  # node id of the viewer's pending review on the PR


def _last_visible(comments: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last comment nobody hid: a reply a maintainer minimized (spam, off-topic…) is no one's last word."""
    return next((c for c in reversed(comments) if not c.get("isMinimized")), None)


# a write that failed this way may still have been applied on GitHub's side
AMBIGUOUS = ("timeout", "network_error", "unexpected_response", "server_error", "cancelled")


def _write_error(errors: list[dict[str, Any]]) -> PrAgentError:
    first = errors[0] if errors else {}
    return PrAgentError("graphql_error", f"GitHub's GraphQL API returned an error: {first.get('message') or 'no data'}",
                        suggestion="Read details.graphql_errors.",
                        details={"graphql_errors": [{k: e.get(k) for k in ("type", "message", "path") if k in e}
                                                    for e in errors][:10]})


def _ambiguous(err: PrAgentError, ref: PRRef, thread_id: str, what: str) -> PrAgentError:
    """Say what may have happened after a write whose answer was lost, and how to check."""
    if err.code in AMBIGUOUS and not err.details.get("maybe_applied"):
        err.details.update(maybe_applied=True, thread_url=ref.web_url + "/files", thread_id=thread_id)
        err.temporary = True
        err.message += f" The answer was lost, so {what}: look at the thread ({ref.web_url}/files) before acting."
        err.suggestion = ("Check the thread on GitHub; calling again is safe — resolving is idempotent and a reply "
                          "already posted is not posted twice.")
    return err


def _repo_arg(ref: PRRef) -> str:
    return f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name


def _thread_not_found(ref: PRRef, what: str, value: str) -> PrAgentError:
    return PrAgentError(
        "thread_not_found" if what == "thread_id" else "comment_not_found",
        surface.text(f"No review thread of {ref} has ", surface.arg(NAME, what), f" {value!r}."),
        suggestion=surface.text("List the PR's open threads with ", surface.tool("find_unresolved_comments"),
                                " and use a thread id from it."),
        details={"field": what, "value": value, "pr": str(ref)},
        repair=tool_repair("find_unresolved_comments", {"pr": ref.qualified},
                           "Pick the thread_id of the thread you addressed."),
    )


def _not_found_at(err: PrAgentError, root: str) -> bool:
    """A NOT_FOUND error of GitHub's GraphQL API about the query's field ``root`` (the PR, the thread)."""
    return err.code == "not_found" and any(tuple(e.get("path") or ())[:1] == (root,)
                                           for e in err.details.get("graphql_errors", []))


def _lookup_thread(ctx: Context, ref: PRRef, thread_id: str) -> ThreadState:
    try:
        data = ctx.gh.graphql(load_query("thread_lookup"), {"thread": thread_id, "owner": ref.owner,
                                                            "repo": ref.repo, "number": ref.number},
                              hostname=ref.host)
    except PrAgentError as err:
        if _not_found_at(err, "repository"):
            raise pr_not_found(ref, err) from None
        if _not_found_at(err, "node"):
            raise _thread_not_found(ref, "thread_id", thread_id) from None
        raise
    node = data.get("node")
    if not node or node.get("__typename") != "PullRequestReviewThread":
        raise _thread_not_found(ref, "thread_id", thread_id)
    owner_pr = node.get("pullRequest") or {}
    if (owner_pr.get("number") != ref.number
            or (owner_pr.get("repository") or {}).get("nameWithOwner", "").lower() != ref.full_name.lower()):
        other = f"{(owner_pr.get('repository') or {}).get('nameWithOwner')}#{owner_pr.get('number')}"
        raise PrAgentError(
            "thread_not_in_pr", f"Thread {thread_id} belongs to {other}, not to {ref}.",
            suggestion=surface.text("Call again with ", surface.arg(NAME, "pr", other), f", or use a thread of {ref}."),
            details={"field": "thread_id", "value": thread_id, "belongs_to": other, "pr": str(ref)},
            repair=tool_repair(NAME, {"pr": other, "thread_id": thread_id}, "Resolve it on its own PR."))
    pending = (((data.get("repository") or {}).get("pullRequest") or {}).get("reviews") or {}).get("nodes") or []
    last = _last_visible((node.get("comments") or {}).get("nodes") or [])
    return ThreadState(node["id"], bool(node["isResolved"]), bool(node.get("viewerCanResolve")),
                       bool(node.get("viewerCanReply")), last, (data.get("viewer") or {}).get("login", ""),
                       pending[0]["id"] if pending else None)


def _scan_for_comment(ctx: Context, ref: PRRef, comment_id: str) -> ThreadState:
    numeric = comment_id.isdigit()
    after = None
    roots: dict[str, ThreadState] = {}  # root comment id -> thread, for threads longer than one page
    while True:
        try:
            data = ctx.gh.graphql(load_query("thread_scan"), {"owner": ref.owner, "repo": ref.repo,
                                                              "number": ref.number, "after": after}, hostname=ref.host)
        except PrAgentError as err:
            if _not_found_at(err, "repository"):
                raise pr_not_found(ref, err) from None
            raise
        pr = (data.get("repository") or {}).get("pullRequest")
        if not pr:
            raise pr_not_found(ref)
        viewer = (data.get("viewer") or {}).get("login", "")
        pending = (pr["reviews"]["nodes"] or [{}])[0].get("id")
        for thread in pr["reviewThreads"]["nodes"]:
            comments = thread["comments"]["nodes"]
            state = ThreadState(thread["id"], bool(thread["isResolved"]), bool(thread.get("viewerCanResolve")),
                                bool(thread.get("viewerCanReply")), _last_visible(comments),
                                viewer, pending)
            long_thread = bool(comments) and thread["comments"]["pageInfo"]["hasNextPage"]
            if any((c.get("fullDatabaseId") == comment_id) if numeric else (c["id"] == comment_id)
                   for c in comments):
                # a long thread's last comment is on a later page: look the thread up by id for it
                return _lookup_thread(ctx, ref, thread["id"]) if long_thread else state
            if long_thread:
                roots[str(comments[0].get("fullDatabaseId"))] = state
        info = pr["reviewThreads"]["pageInfo"]
        if not info["hasNextPage"]:
            break
        after = info["endCursor"]
    root = _root_of(ctx, ref, comment_id) if roots else None
    if root is not None and root in roots:
        return _lookup_thread(ctx, ref, roots[root].id)
    raise _thread_not_found(ref, "comment_id", comment_id)


def _root_of(ctx: Context, ref: PRRef, comment_id: str) -> str | None:
    """The id of the first comment of the thread holding ``comment_id`` (replies point at it)."""
    try:
        if comment_id.isdigit():
            data = ctx.gh.rest("GET", f"repos/{ref.owner}/{ref.repo}/pulls/comments/{comment_id}",
                               hostname=ref.host).json()
            if not str(data.get("pull_request_url", "")).endswith(f"/pulls/{ref.number}"):
                return None
            return str(data.get("in_reply_to_id") or data.get("id"))
        node = ctx.gh.graphql(load_query("comment_lookup"), {"id": comment_id}, hostname=ref.host).get("node") or {}
    except PrAgentError as err:
        if err.code == "not_found":
            return None
        raise
    owner_pr = node.get("pullRequest") or {}
    if node.get("__typename") != "PullRequestReviewComment" or owner_pr.get("number") != ref.number:
        return None
    return str((node.get("replyTo") or {}).get("fullDatabaseId") or node.get("fullDatabaseId"))


def _same_text(a: str, b: str) -> bool:
    return re.sub(r"\s+", " ", a).strip() == re.sub(r"\s+", " ", b).strip()


def _speaker(state: ThreadState) -> Speaker | None:
    last = state.last_comment
    if not last:
        return None
    author = last.get("author") or {}
    login = author.get("login") or "ghost"
    return Speaker(author=login, is_bot=is_bot(login, author.get("__typename")),
                   is_viewer=normalize_login(login) == normalize_login(state.viewer))


def handle(ctx: Context, params: ResolveReviewThreadInput) -> ResolveReviewThreadOutput:
    ref = ctx.pr(params.pr)
    use_thread = params.thread_id and (params.prefer == "thread" or not params.comment_id)
    if use_thread:
        assert params.thread_id
        state = _lookup_thread(ctx, ref, params.thread_id)
    else:
        assert params.comment_id
        state = _scan_for_comment(ctx, ref, str(params.comment_id))
    speaker = _speaker(state)
    if state.is_resolved:
        note = " The reply was not posted." if params.reply else ""
        return ResolveReviewThreadOutput(ok=True, pr=str(ref), thread_id=state.id, alreadyResolved=True,
                                         replied=False, last_speaker=speaker,
                                         message=f"Thread was already resolved.{note}")
    if not state.can_resolve:
        raise PrAgentError(
            "forbidden", f"Your gh login ({state.viewer or 'unknown'}) may not resolve threads on {ref}.",
            suggestion="Only the PR author and people with write access can resolve threads; reply instead "
            "and ask a maintainer to resolve it.",
            details={"thread_id": state.id, "viewer": state.viewer, "pr": str(ref)})
    if (speaker and not speaker.is_bot and not speaker.is_viewer and not params.reply
            and params.when_reviewer_spoke_last == "refuse"):
        raise PrAgentError(
            "reviewer_spoke_last",
            f"The last comment in thread {state.id} is {speaker.author}'s; they may be waiting for an answer, "
            "so it was not resolved.",
            suggestion=surface.text("Read their last comment; answer it with ", surface.arg(NAME, "reply"),
                                    ", or resolve anyway with ",
                                    surface.arg(NAME, "when_reviewer_spoke_last", "resolve"),
                                    " if it is fully addressed."),
            details={"thread_id": state.id, "last_author": speaker.author, "pr": str(ref)},
            repair=tool_repair(NAME, {"pr": ref.qualified, "thread_id": state.id},
                               "Add your own reply to their last comment.", needs_input=("reply",)))
    reply_info = None
    replied = False
    message = "Thread resolved."
    if params.reply:
        last = state.last_comment or {}
        already = ((last.get("author") or {}).get("login") == state.viewer
                   and _same_text(last.get("body") or "", params.reply))
        if already:
            message = "Your identical reply was already the last comment; not posted again. Thread resolved."
        else:
            if state.pending_review:
                raise PrAgentError(
                    "pending_review_blocks_reply",
                    f"You have a pending (unsubmitted) review on {ref}; a reply now would be hidden inside it.",
                    suggestion=surface.text("Nothing was posted or resolved. Submit your pending review "
                                            "(details.submit_command) or discard it (details.discard_command; its "
                                            "drafts are lost), then call again; or call again without ",
                                            surface.arg(NAME, "reply"), "."),
                    details={"pr": str(ref), "thread_id": state.id, "review_id": state.pending_review,
                             "submit_command": commands.submit_review_command(ref, state.pending_review),
                             "discard_command": commands.discard_review_command(ref, state.pending_review)},
                    repair=command_repair(["gh", "pr", "view", str(ref.number), "--repo", _repo_arg(ref), "--web"]))
            if not state.can_reply:
                raise PrAgentError("forbidden", f"Your gh login may not reply in thread {state.id}.",
                                   suggestion=surface.text("Resolve without ", surface.arg(NAME, "reply"),
                                                           ", or ask a maintainer."),
                                   details={"thread_id": state.id, "pr": str(ref)})
            try:
                data, _errors = ctx.gh.mutate(load_query("reply_to_thread"), {"thread": state.id,
                                                                               "body": params.reply}, hostname=ref.host)
            except PrAgentError as err:
                raise _ambiguous(err, ref, state.id, "the reply may have been posted") from None
            comment = (data.get("addPullRequestReviewThreadReply") or {}).get("comment") or {}
            if _errors and not comment.get("id"):  # errors, and GitHub's data does not show a posted reply
                raise _write_error(_errors)
            reply_info = ReplyInfo(comment_id=int(comment.get("fullDatabaseId") or 0),
                                   node_id=comment.get("id", ""), url=comment.get("url", ""))
            replied = True
            message = "Reply posted and thread resolved."
    try:
        data, errors = ctx.gh.mutate(load_query("resolve_thread"), {"thread": state.id}, hostname=ref.host)
        resolved = ((data.get("resolveReviewThread") or {}).get("thread") or {}).get("isResolved")
        if errors and not resolved:  # errors beside data that shows it resolved are a success
            raise _write_error(errors)
    except PrAgentError as err:
        err = _ambiguous(err, ref, state.id, "the thread may have been resolved")
        if replied:
            err.details["reply_posted"] = True
            err.message += " (The reply WAS posted; calling again with the same reply will not post it twice.)"
        raise
    thread = (data.get("resolveReviewThread") or {}).get("thread") or {}
    return ResolveReviewThreadOutput(ok=bool(thread.get("isResolved")), pr=str(ref), thread_id=state.id,
                                     alreadyResolved=False, replied=replied, reply_comment=reply_info,
                                     last_speaker=speaker, message=message)


def render(out: dict[str, Any]) -> str:
    c = colors()
    status = "already resolved" if out["alreadyResolved"] else ("resolved" if out["ok"] else "NOT resolved")
    lines = [f"{out['pr']}: thread {out['thread_id']} " + (c.green(status) if out["ok"] or out["alreadyResolved"]
                                                           else c.red(status)) + f". {out['message']}"]
    if out.get("reply_comment"):
        lines.append(c.dim(f"reply: {out['reply_comment']['url']}"))
    return "\n".join(lines) + "\n"


TOOL = register(Tool(
    name=NAME,
    title="Resolve a review thread",
    description=(
        "Resolve one review thread of a pull request, optionally posting a reply first. Call it ONLY after "
        "you have changed the code to address every concern in the thread and verified the fix. Identify the "
        "thread by thread_id (from find_unresolved_comments) or by any of its comments' ids. Safe to retry: "
        "an already-resolved thread reports alreadyResolved=true, and an identical reply is never posted "
        "twice. Refuses to reply while you have a pending review (the reply would be hidden in it), and by default "
        "refuses to resolve a thread whose last word is a human reviewer's unless you reply or force it."
    ),
    input_model=ResolveReviewThreadInput,
    output_model=ResolveReviewThreadOutput,
    annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    handler=handle,
    cli_name="resolve",
    cli_help="Resolve a review thread (optionally replying first).",
    cli_options={"thread_id": "--thread", "comment_id": "--comment",
                 "when_reviewer_spoke_last": "--when-reviewer-spoke-last"},
    render=render,
))
