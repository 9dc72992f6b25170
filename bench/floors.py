"""Round-trip floors computed from the world fakehub serves (the same data the tools read).

Two numbers per tool call:

- ``requests``: the fewest GitHub requests the page sizes allow. GraphQL pages hold at most 100 nodes
  per connection; the first page of every connection a query names is "batched" into that query, so
  only further pages (and the tails of threads with more than 100 comments) cost extra requests.
- ``critical_path``: the fewest *sequential* round trips. Page k of a connection needs the cursor of
  page k-1; a thread's comment tail can start as soon as the thread page that lists it arrives.
  Everything else can overlap. With latency L per request, no implementation can finish sooner than
  ``critical_path * L`` plus its local work.

``alias_floor`` is the request count if every continuation at the same depth were aliased into one
GraphQL document (one request per dependency level): a bound, not a target.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

PAGE = 100  # GitHub's maximum `first:` for a connection
OUTPUT_PAGE = 50  # find_unresolved_comments items per call


@dataclass(frozen=True)
class Floor:
    requests: int
    critical_path: int
    why: str
    alias_floor: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pages(n: int, size: int = PAGE) -> int:
    return max(1, math.ceil(n / size))


def _visible_reviews(pr: dict[str, Any], viewer: str) -> list[dict[str, Any]]:
    return [r for r in pr["reviews"] if r["state"] != "PENDING" or r["author"] == viewer]


def feedback_fetch(pr: dict[str, Any], viewer: str) -> Floor:
    """find_unresolved_comments: every thread (with every comment of the unresolved ones), review and
    conversation comment. Tails of resolved threads are never reported, so they are not needed."""
    threads = pr["threads"]
    t_pages = pages(len(threads))
    r_pages = pages(len(_visible_reviews(pr, viewer)))
    c_pages = pages(len(pr["issue_comments"]))
    tails = 0
    depth = max(t_pages, r_pages, c_pages)
    for k, thread in enumerate(threads):
        if thread["resolved"]:
            continue
        extra = pages(len(thread["comments"])) - 1
        tails += extra
        depth = max(depth, k // PAGE + 1 + extra)
    requests = 1 + (t_pages - 1) + (r_pages - 1) + (c_pages - 1) + tails
    why = (f"1 query (first page of threads, reviews, conversation) + {t_pages - 1} thread pages + "
           f"{r_pages - 1} review pages + {c_pages - 1} conversation pages + {tails} comment-tail pages of "
           f"unresolved threads over {PAGE} comments")
    return Floor(requests, depth, why, alias_floor=depth)


def resolve_thread(reply: bool) -> Floor:
    """resolve_review_thread by thread id: one read (thread, owning PR, viewer, pending review) and the
    mutation; with a reply, the reply mutation first. Reply and resolve are not merged into one document:
    GraphQL runs both fields even when the first fails, which would resolve a thread whose reply was lost."""
    if reply:
        return Floor(3, 3, "read thread state + reply mutation + resolve mutation (must be sequential)")
    return Floor(2, 2, "read thread state + resolve mutation")


def resolve_by_comment(pr: dict[str, Any], thread_index: int) -> Floor:
    """By comment id: GitHub has no comment -> thread field, so threads are scanned page by page up to the
    page holding the comment, then resolved."""
    page = thread_index // PAGE + 1
    return Floor(page + 1, page + 1, f"scan {page} thread page(s) to find the comment's thread + resolve "
                 "mutation (no comment->thread field in GitHub's schema)")


def all_output_pages(single: Floor, items: int) -> Floor:
    """Reading every page of find_unresolved_comments: the floor is one fetch (later pages could be served
    from it); the stateless cursor re-fetches the PR for each of the ceil(items/50) calls."""
    return Floor(single.requests, single.critical_path,
                 f"one fetch ({single.requests} requests) for all {pages(items, OUTPUT_PAGE)} output pages")
