"""Fetch every review thread (with every comment), review and conversation comment of a PR.

One GraphQL round trip gets the first page of all three connections (100 threads × 100 comments,
100 reviews, 100 conversation comments). Only when a connection has more pages do further round
trips happen, and the independent continuations (more reviews, more conversation comments, the rest
of each long thread) run concurrently with the walk over the thread pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pr_agent.errors import PrAgentError, command_repair
from pr_agent.gh import Gh
from pr_agent.queries import load_query
from pr_agent.refs import PRRef
from pr_agent.shellcmd import command


def pr_list_argv(ref: PRRef) -> list[str]:
    repo = f"{ref.host}/{ref.full_name}" if ref.host and ref.host != "github.com" else ref.full_name
    return ["gh", "pr", "list", "--repo", repo]


def pr_list_argv_text(ref: PRRef) -> str:
    return command(pr_list_argv(ref))


@dataclass
class Feedback:
    pr: dict[str, Any]
    viewer: str = ""
    threads: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    rollup_nodes: list[dict[str, Any]] = field(default_factory=list)  # the head's status checks (first 100)


def pr_not_found(ref: PRRef, err: PrAgentError | None = None) -> PrAgentError:
    return PrAgentError(
        "pr_not_found",
        f"Pull request {ref} was not found (or your gh login cannot see it).",
        suggestion=f"Check the owner, repository and number; `{pr_list_argv_text(ref)}` lists open PRs.",
        details={"pr": str(ref), **({"github_message": err.message} if err else {})},
        repair=command_repair(pr_list_argv(ref)),
    )


def _pr_of(data: dict[str, Any], ref: PRRef) -> dict[str, Any]:
    pr = (data.get("repository") or {}).get("pullRequest")
    if not pr:
        raise pr_not_found(ref)
    return pr


def graphql_pr(gh: Gh, ref: PRRef, query: str, variables: dict[str, Any],
               root: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run a query rooted at repository.pullRequest, mapping NOT_FOUND to pr_not_found.

    ``root``, when given, receives the whole ``data`` object (for fields beside the repository)."""
    try:
        data = gh.graphql(load_query(query), {"owner": ref.owner, "repo": ref.repo, "number": ref.number,
                                              **variables}, hostname=ref.host)
    except PrAgentError as err:
        if err.code == "not_found":
            raise pr_not_found(ref, err) from None
        raise
    if root is not None:
        root.update(data)
    return _pr_of(data, ref)


def fetch_feedback(gh: Gh, ref: PRRef, *, full: bool) -> Feedback:
    root: dict[str, Any] = {}
    pr = graphql_pr(gh, ref, "pr_feedback", {"full": full}, root)
    fb = Feedback(pr={k: v for k, v in pr.items()
                      if k not in ("reviewThreads", "reviews", "comments", "statusCheckRollup")},
                  viewer=(root.get("viewer") or {}).get("login") or "")
    rollup = pr.get("statusCheckRollup") or {}
    fb.rollup_nodes = [n for n in (rollup.get("contexts") or {}).get("nodes") or [] if n]
    threads_conn, reviews_conn, comments_conn = pr["reviewThreads"], pr["reviews"], pr["comments"]
    fb.threads = list(threads_conn["nodes"])
    fb.reviews = list(reviews_conn["nodes"])
    fb.issue_comments = list(comments_conn["nodes"])

    def more(kind: str, conn: dict[str, Any]) -> list[dict[str, Any]]:
        query, key = {"reviews": ("pr_reviews_page", "reviews"), "comments": ("pr_comments_page", "comments")}[kind]
        out: list[dict[str, Any]] = []
        info = conn["pageInfo"]
        while info["hasNextPage"]:
            page = graphql_pr(gh, ref, query, {"after": info["endCursor"], "full": full})[key]
            out.extend(page["nodes"])
            info = page["pageInfo"]
        return out

    def thread_rest(thread: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        info = thread["comments"]["pageInfo"]
        while info["hasNextPage"]:
            data = gh.graphql(load_query("thread_comments_page"),
                              {"thread": thread["id"], "after": info["endCursor"], "full": full}, hostname=ref.host)
            page = (data.get("node") or {}).get("comments")
            if page is None:
                raise PrAgentError("unexpected_response", f"Thread {thread['id']} vanished while being read.",
                                   suggestion="Retry the call.", details={"thread_id": thread["id"]})
            out.extend(page["nodes"])
            info = page["pageInfo"]
        return out

    # Independent continuations overlap: more reviews, more conversation comments and every long
    # thread's tail run in the pool while this thread walks the thread pages, and each page's long
    # threads start the moment that page arrives (so the critical path is the thread-page chain).
    with gh.pool() as pool:
        tails: list[tuple[dict[str, Any], Any]] = []

        def start_tails(threads: list[dict[str, Any]]) -> None:
            tails.extend((t, pool.submit(thread_rest, t)) for t in threads if _needs_more(t))

        start_tails(fb.threads)
        reviews_f = pool.submit(more, "reviews", reviews_conn) if reviews_conn["pageInfo"]["hasNextPage"] else None
        comments_f = (pool.submit(more, "comments", comments_conn)
                      if comments_conn["pageInfo"]["hasNextPage"] else None)
        info = threads_conn["pageInfo"]
        while info["hasNextPage"]:
            page = graphql_pr(gh, ref, "pr_threads_page", {"after": info["endCursor"], "full": full})["reviewThreads"]
            fb.threads.extend(page["nodes"])
            start_tails(page["nodes"])
            info = page["pageInfo"]
        if reviews_f is not None:
            fb.reviews.extend(reviews_f.result())
        if comments_f is not None:
            fb.issue_comments.extend(comments_f.result())
        for thread, future in tails:
            thread["comments"]["nodes"].extend(future.result())
    return fb


def _needs_more(thread: dict[str, Any]) -> bool:
    """Resolved threads are never reported, so their long tails are not worth a round trip."""
    return bool(thread["comments"]["pageInfo"]["hasNextPage"]) and not thread["isResolved"]
