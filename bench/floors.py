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


def all_output_pages(single: Floor, calls: int) -> Floor:
    """Reading every output page of a paged tool (comments: 50 items a call, checks: 30 failures): the floor
    is one fetch (later pages could be served from it); the stateless cursor re-fetches for each call."""
    return Floor(single.requests, single.critical_path,
                 f"one fetch ({single.requests} requests) for all {calls} output pages")


# ---------------------------------------------------------------- CI, merge state and stacks
# What GitHub's GraphQL schema offers and these floors rely on (fixtures/github/graphql-schema.json.gz):
# CheckRun.steps and CheckRun.annotations (what GET …/actions/jobs/{id} and GET …/check-runs/{id}/annotations
# answer; for checks one nodes(ids:) query of the failed runs, see failing_tests), Ref.rules (the active
# ruleset rules of a branch, as GET …/rules/branches/{b}), Ref.target, and
# Commit.history. A fact reachable from the first query's objects rides on that query; REST-only facts
# (job logs, the compare of two commits) cost their own requests.
FAILED_CHECK_STATES = frozenset({"FAILURE", "ERROR", "TIMED_OUT", "STARTUP_FAILURE", "ACTION_REQUIRED"})


def _failed_actions_jobs(pr: dict[str, Any]) -> list[int]:
    """Rollup positions of the failed GitHub Actions jobs (the ones whose logs are read)."""
    out = []
    for k, c in enumerate(pr.get("checks") or []):
        if c.get("kind", "check_run") != "check_run" or (c.get("app") or "github-actions") != "github-actions":
            continue
        if (c.get("status") or "COMPLETED") == "COMPLETED" and (c.get("conclusion") or "") in FAILED_CHECK_STATES:
            out.append(k)
    return out


def _failed_check_runs(pr: dict[str, Any]) -> int:
    """Failed check runs of any app (their steps and annotations are read)."""
    return sum(1 for c in pr.get("checks") or [] if c.get("kind", "check_run") == "check_run"
               and (c.get("status") or "COMPLETED") == "COMPLETED"
               and (c.get("conclusion") or "") in FAILED_CHECK_STATES)


def failing_tests(pr: dict[str, Any], *, history: bool = True) -> Floor:
    """get_failing_tests: every rollup page, one ``nodes(ids:)`` query per 100 failed check runs (their steps
    and annotations), and each failed Actions job's log. A log is REST only and ``GET …/actions/jobs/{id}/logs``
    answers 302 to a blob URL that gh follows: 2 requests, 2 sequential. A job's log can start once the rollup
    page listing it arrived. The rulesets' required checks (``baseRef.rules``) ride on the first query.

    Why the steps and annotations cost a request of their own although ``CheckRun.steps`` and
    ``CheckRun.annotations`` are reachable from the rollup query: GitHub cannot filter the rollup's contexts by
    conclusion, so selecting them there would fetch ``steps(first: 100)`` and ``annotations(first: 50)`` for
    every check on every page: 201 connections instead of 1 per page (rate-limit cost 2 instead of 1), up to
    15,100 nodes instead of 100, and a response carrying every passed job's steps, on the queries that are
    on the critical path and repeated on every ``--wait`` poll. The one ``nodes`` query asks only for the
    failed runs, runs while their logs download and so adds no round trip to the critical path (a log takes
    2 after its page, the query 1 after the last page)."""
    p = pages(len(pr.get("checks") or []))
    failed = _failed_actions_jobs(pr)
    runs = _failed_check_runs(pr)
    queries = math.ceil(runs / PAGE)
    depth = max([p + (1 if runs else 0), *(k // PAGE + 1 + 2 for k in failed)])
    why = (f"{p} rollup page(s) of {len(pr.get('checks') or [])} checks (baseRef.rules rides on the first) + "
           f"{queries} nodes(ids:) query for the steps and annotations of {runs} failed check runs (off the "
           f"critical path) + {len(failed)} failed Actions jobs × 2 (job log: 302, then the blob)")
    extra, extra_depth, extra_why = _reports_and_history(pr, failed, history)
    return Floor(p + queries + 2 * len(failed) + extra, max(depth, extra_depth), why + extra_why)


def _reports_and_history(pr: dict[str, Any], failed: list[int], history: bool) -> tuple[int, int, str]:
    """The test-report artifacts and history verdicts of get_failing_tests (pr_agent/ci/artifacts.py,
    pr_agent/ci/history.py): per workflow run with a failed job (at most 4) its artifact list, and 2 requests
    (302, blob) per report artifact; with history, per run ``GET …/runs/{id}`` and the jobs of each earlier
    attempt (at most 2), per workflow its base-branch runs and the jobs of the run found there, and 2 per base
    job log read (at most 4). The chain run → workflow runs → base jobs → log (302, blob) starts once the
    rollup page naming the run arrived."""
    from pr_agent.ci.artifacts import MAX_ARTIFACTS, MAX_RUNS, is_report_artifact
    from pr_agent.ci.history import MAX_ATTEMPTS, MAX_BASE_LOGS

    checks = pr.get("checks") or []
    run_ids = list(dict.fromkeys(checks[k].get("run_id") for k in failed if checks[k].get("run_id")))[:MAX_RUNS]
    ci = pr.get("ci") or {}
    arts = [a for a in ci.get("artifacts") or [] if a.get("run_id") in run_ids and is_report_artifact(a)]
    downloads = sum(min(MAX_ARTIFACTS, sum(1 for a in arts if a.get("run_id") == r)) for r in run_ids)
    n, depth = len(run_ids) + 2 * downloads, (2 + (2 if downloads else 0)) if run_ids else 0
    why = f" + {len(run_ids)} artifact lists + {downloads} report artifacts × 2"
    if not history or not run_ids:
        return n, depth, why
    attempts = sum(min(MAX_ATTEMPTS, sum(1 for a in ci.get("attempts") or [] if a.get("run_id") == r))
                   for r in run_ids)
    workflows = {checks[k].get("workflow") for k in failed if checks[k].get("run_id") in run_ids}
    bases = {w: max((b for b in ci.get("base_runs") or [] if b.get("workflow") == w and b.get("event", "push")
                     not in ("pull_request", "pull_request_target")), key=lambda b: b.get("created_at", ""),
                    default=None) for w in workflows}
    names = {checks[k]["name"] for k in failed}
    base_logs = min(MAX_BASE_LOGS, sum(1 for b in bases.values() if b for j in b.get("jobs") or []
                                       if j["name"] in names and j.get("conclusion") == "failure"))
    found = sum(1 for b in bases.values() if b)
    failed_bases = [b for b in bases.values()
                    if b and any(j.get("conclusion") == "failure" for j in b.get("jobs") or [])]
    base_reports = sum(_base_report_downloads(b, names, ci.get("artifacts") or []) for b in failed_bases)
    n += len(run_ids) + attempts + len(workflows) + found + 2 * base_logs + len(failed_bases) + 2 * base_reports
    depth = max(depth, 1 + 2 + (1 if found else 0) + (2 if base_logs or base_reports else 0))
    why += (f" + history: {len(run_ids)} runs, {attempts} earlier attempts' jobs, {len(workflows)} workflows' base "
            f"runs, {found} base runs' jobs, {base_logs} base job logs × 2, {len(failed_bases)} failed base runs' "
            f"artifact lists (next to their jobs) + {base_reports} of their report artifacts × 2")
    return n, depth, why


def _base_report_downloads(base: dict[str, Any], names: set[str], artifacts: list[dict[str, Any]]) -> int:
    """The report artifacts of a failed base run that get read (pr_agent/ci/base_reports.py): those of its
    jobs that failed and are named like a failed job of the PR (at most MAX_ARTIFACTS)."""
    from pr_agent.ci.artifacts import MAX_ARTIFACTS, is_report_artifact, owner

    jobs = {j["name"]: j for j in base.get("jobs") or []}
    failed = [n for n, j in jobs.items() if j.get("conclusion") == "failure"]
    picked = 0
    for a in artifacts:
        if a.get("run_id") != base.get("id") or not is_report_artifact(a):
            continue
        name = owner(str(a.get("name") or ""), jobs) or (failed[0] if len(failed) == 1 else None)
        picked += name in names and name in failed
    return min(MAX_ARTIFACTS, picked)


def merge_readiness(pr: dict[str, Any], rulesets: list[dict[str, Any]] | None = None) -> Floor:
    """check_merge_readiness: one query (merge state, reviews, review requests, refUpdateRule, the rulesets
    as baseRef.rules, the first page of thread states and of the rollup), the further thread-state and
    rollup pages (two independent chains), and the REST reads that need the first answer (base name, head
    commit) but not each other: the behind-by count (``GET …/compare/{base}...{head}``), classic
    protection's stub (``GET …/branches/{base}``: ``protected`` and ``strict``, which a non-admin cannot read
    in GraphQL) and, when a ruleset has a ``pull_request`` rule, the branch's rules
    (``GET …/rules/branches/{base}``): that rule's ``allowed_merge_methods`` decides which ``gh pr merge``
    flag is recommended, and GraphQL's ``PullRequestParameters`` has no such field. mergeable is assumed
    known (the scenario has no UNKNOWN reads)."""
    t, r = pages(len(pr["threads"])), pages(len(pr.get("checks") or []))
    rest_rules = any(rule.get("type") == "pull_request" for rs in rulesets or [] for rule in rs.get("rules") or [])
    depth = max(t, r, 2)
    why = (f"1 query (rules as baseRef.rules) + {t - 1} thread-state pages + {r - 1} rollup pages (independent "
           "chains) + compare and branch stub (REST, both after the first query)"
           + (" + the REST rules read (allowed_merge_methods of the pull_request rule is REST-only)"
              if rest_rules else ""))
    rest = 2 + int(rest_rules)
    return Floor(1 + (t - 1) + (r - 1) + rest, depth, why, alias_floor=max(t, r) + rest)


def conflicts() -> Floor:
    """detect_merge_conflicts with a local clone: one read of the PR (mergeable, base, head). The files come
    from ``git merge-tree`` in the clone, which costs no request; with a clone the local merge is exact, so
    an UNKNOWN mergeable need not be waited out."""
    return Floor(1, 1, "1 query (mergeable, base and head); the conflicting files come from git merge-tree "
                 "in the clone (no request)")


def _open(pulls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in pulls if (p.get("state") or "OPEN") == "OPEN"]


def _levels_above(dep: dict[str, Any], pulls: list[dict[str, Any]]) -> int:
    """How many 'open PRs based on these branches' lookups a level-by-level walk up from ``dep`` needs
    (the last one finds nothing): the height of the stack above ``dep`` + 1."""
    level, heads, seen = 0, {dep["head_ref"]}, {dep["number"]}
    while heads:
        level += 1
        kids = [p for p in _open(pulls) if p["base_ref"] in heads and p["number"] not in seen]
        seen.update(p["number"] for p in kids)
        heads = {p["head_ref"] for p in kids}
    return level


def stack(base: dict[str, Any], dep: dict[str, Any], pulls: list[dict[str, Any]], default_branch: str,
          what: str = "both PRs") -> Floor:
    """manage_stacked_prs / rebase_after_squash_merge given both PRs: one query holds both PRs (aliased),
    the target branch's tip (``baseRef.target``), the landed commit's history (``mergeCommit.history``) and
    the first page of the repository's open PRs (head and base names), from which the PRs stacked above
    the dependent are read. Walking up level by level instead costs one lookup per level (+1 that finds
    nothing), so the floor is the smaller of the two. Ancestors below a base that is not on the default
    branch add their own chain (merged ancestors are not in the open list)."""
    above = _levels_above(dep, pulls)
    listing = pages(len(_open(pulls)))
    below = 0
    heads = {p["head_ref"]: p for p in pulls}
    cur = base
    while cur["base_ref"] != default_branch and cur["base_ref"] in heads and below < 10:
        below += 1
        cur = heads[cur["base_ref"]]
    up = min(above, listing - 1)
    why = (f"1 query ({what} aliased, target tip, landed commit's history, open PRs: {len(_open(pulls))} = "
           f"{listing} page(s)) + {up} more open-PR page(s) (a level-by-level walk would need {above} lookups)"
           + (f" + {below} ancestor lookup(s)" if below else ""))
    return Floor(1 + below + up, 1 + max(below, up), why)
