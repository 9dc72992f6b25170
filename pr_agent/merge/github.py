"""What GitHub says about a PR's mergeability: one GraphQL round trip for the PR, then — concurrently —
the branch rules a non-admin can read, the behind-by count, and (while GitHub is still computing it)
a short poll of ``mergeable: UNKNOWN``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh, load_query
from pr_agent.refs import PRRef
from pr_agent.review.fetch import pr_not_found

POLLS = 4
DEFAULT_WAIT_S = 10.0
_DEGRADE = ("not_found", "forbidden")  # a source we may not read: say so, keep going


def poll_delays(env: Mapping[str, str]) -> list[float]:
    """Sleeps between re-reads of an UNKNOWN mergeable (1:2:3:4 of GH_PR_AGENT_MERGEABLE_WAIT, default 10s)."""
    try:
        total = max(0.0, float(env.get("GH_PR_AGENT_MERGEABLE_WAIT", DEFAULT_WAIT_S)))
    except ValueError:
        total = DEFAULT_WAIT_S
    weights = range(1, POLLS + 1)
    return [total * w / sum(weights) for w in weights]


def graphql_pr(gh: Gh, ref: PRRef, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run a query rooted at repository(owner, name) → pullRequest(number); returns the repository."""
    try:
        data = gh.graphql(load_query(query), {"owner": ref.owner, "repo": ref.repo, "number": ref.number,
                                              **(variables or {})}, hostname=ref.host)
    except PrAgentError as err:
        if err.code == "not_found":
            raise pr_not_found(ref, err) from None
        raise
    repo = data.get("repository") or {}
    if not repo.get("pullRequest"):
        raise pr_not_found(ref)
    return repo


def unknown(pr: Mapping[str, Any]) -> bool:
    return pr.get("mergeable") == "UNKNOWN" or pr.get("mergeStateStatus") == "UNKNOWN"


def poll_mergeable(ctx: Context, ref: PRRef, pr: dict[str, Any], sleep: Callable[[float], None] = time.sleep
                   ) -> int:
    """Re-read mergeable/mergeStateStatus while GitHub reports UNKNOWN; updates ``pr``; returns the polls made.
    Still UNKNOWN afterwards means unknown — never "no conflicts"."""
    polls = 0
    delays = poll_delays(ctx.env)
    while unknown(pr) and polls < len(delays):
        ctx.report(polls, len(delays), "GitHub is still computing whether the PR can merge; asking again")
        sleep(delays[polls])
        polls += 1
        fresh = graphql_pr(ctx.gh, ref, "pr_mergeable")["pullRequest"]
        for key in ("mergeable", "mergeStateStatus"):
            pr[key] = fresh.get(key)
    return polls


@dataclass
class ReadinessFacts:
    repo: dict[str, Any]
    pr: dict[str, Any]
    polls: int = 0
    reviews: list[dict[str, Any]] = field(default_factory=list)
    review_requests: list[str] = field(default_factory=list)
    unresolved_threads: int = 0
    rollup_nodes: list[dict[str, Any]] = field(default_factory=list)
    rules: list[dict[str, Any]] | None = None
    branch: dict[str, Any] | None = None
    protection: dict[str, Any] | None = None
    protection_status: str = "skipped"  # read | absent | not_readable | skipped
    compare: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def _more_pages(gh: Gh, ref: PRRef, query: str, path: tuple[str, ...], conn: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    info = conn.get("pageInfo") or {}
    while info.get("hasNextPage"):
        node: Any = graphql_pr(gh, ref, query, {"after": info["endCursor"]})["pullRequest"]
        for key in path:
            node = (node or {}).get(key) or {}
        out.extend(n for n in node.get("nodes") or [] if n)
        info = node.get("pageInfo") or {}
    return out


def _reviewer(node: Mapping[str, Any]) -> str | None:
    who = node.get("requestedReviewer") or {}
    return who.get("login") or who.get("combinedSlug")


def _rest_json(gh: Gh, ref: PRRef, path: str, **params: Any) -> Any:
    return gh.rest("GET", path, params=params or None, hostname=ref.host).json()


def fetch_readiness(ctx: Context, ref: PRRef) -> ReadinessFacts:
    repo = graphql_pr(ctx.gh, ref, "pr_merge_readiness")
    pr = dict(repo.pop("pullRequest"))
    facts = ReadinessFacts(repo=repo, pr=pr)
    threads = pr.pop("reviewThreads", None) or {}
    thread_nodes = [n for n in threads.get("nodes") or [] if n]
    thread_nodes += _more_pages(ctx.gh, ref, "pr_thread_states_page", ("reviewThreads",), threads)
    facts.unresolved_threads = sum(1 for n in thread_nodes if not n.get("isResolved"))
    rollup = pr.pop("statusCheckRollup", None) or {}
    contexts = rollup.get("contexts") or {}
    facts.rollup_nodes = [n for n in contexts.get("nodes") or [] if n]
    facts.rollup_nodes += _more_pages(ctx.gh, ref, "pr_rollup_page", ("statusCheckRollup", "contexts"), contexts)
    pr["rollupState"] = rollup.get("state")
    facts.reviews = [n for n in (pr.pop("latestOpinionatedReviews", None) or {}).get("nodes") or [] if n]
    requests = pr.pop("reviewRequests", None) or {}
    facts.review_requests = [r for r in (_reviewer(n) for n in requests.get("nodes") or [] if n) if r]

    base = pr.get("baseRefName") or ""
    branch_q = quote(base, safe="")
    repo_path = f"repos/{ref.full_name}"
    tasks: dict[str, Callable[[], Any]] = {
        "rules": lambda: ctx.gh.rest_pages(f"{repo_path}/rules/branches/{branch_q}", hostname=ref.host),
        "branch": lambda: _rest_json(ctx.gh, ref, f"{repo_path}/branches/{branch_q}"),
        "compare": lambda: _rest_json(ctx.gh, ref, f"{repo_path}/compare/{branch_q}...{pr.get('headRefOid')}",
                                      per_page=1),
    }
    if repo.get("viewerPermission") == "ADMIN":
        tasks["protection"] = lambda: _rest_json(ctx.gh, ref, f"{repo_path}/branches/{branch_q}/protection")

    def run(name: str) -> tuple[str, Any, PrAgentError | None]:
        try:
            return name, tasks[name](), None
        except PrAgentError as err:
            if err.code not in _DEGRADE:
                raise
            return name, None, err

    with ThreadPoolExecutor(max_workers=1) as pool:
        batch = pool.submit(ctx.gh.map, run, list(tasks))
        facts.polls = poll_mergeable(ctx, ref, pr)
        results = batch.result()
    for name, value, err in results:
        _store(facts, name, value, err, base)
    return facts


def _store(facts: ReadinessFacts, name: str, value: Any, err: PrAgentError | None, base: str) -> None:
    if name == "rules":
        facts.rules = [r for r in value or [] if isinstance(r, dict)] if err is None else None
    elif name == "branch":
        facts.branch = value if isinstance(value, dict) else None
    elif name == "compare":
        facts.compare = value if isinstance(value, dict) else None
        if err is not None:
            facts.notes.append(f"GitHub could not compare {base!r} with the PR head, so behind-by is unknown.")
    elif name == "protection":
        if err is None and isinstance(value, dict):
            facts.protection, facts.protection_status = value, "read"
        elif err is not None and "not protected" in str(err.details.get("github_message", "")).lower():
            facts.protection_status = "absent"
        else:
            facts.protection_status = "not_readable"
