"""What GitHub says about a PR's mergeability: one GraphQL round trip for the PR (with the base branch's
ruleset rules as ``baseRef.rules``), then — all concurrently — the further thread-state and rollup pages,
the classic-protection stub, the behind-by count, the REST rules when GraphQL cannot give everything (a
``pull_request`` rule's allowed merge methods, or more than 100 rules), and (while GitHub is still computing
it) a short poll of ``mergeable: UNKNOWN``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.gh import Gh
from pr_agent.merge.rules import REST_ONLY_PARAMETERS, rules_from_graphql
from pr_agent.queries import load_query
from pr_agent.refs import PRRef
from pr_agent.review.fetch import pr_not_found

POLLS = 4
DEFAULT_WAIT_S = 10.0
_DEGRADE = ("not_found", "forbidden")  # a source we may not read: say so, keep going
MAX_EXTRA_PAGES = 50  # per page chain (thread states, rollup), as checks caps its rollup
_PAGE_CHAINS = ("threads", "rollup")
RULES_PATH = "repository.pullRequest.baseRef.rules"


def poll_delays(env: Mapping[str, str]) -> list[float]:
    """Sleeps between re-reads of an UNKNOWN mergeable (1:2:3:4 of GH_PR_AGENT_MERGEABLE_WAIT, default 10s)."""
    from pr_agent import envvars  # a bad value is a typed error naming the variable

    total = envvars.seconds("GH_PR_AGENT_MERGEABLE_WAIT", env)
    weights = range(1, POLLS + 1)
    return [total * w / sum(weights) for w in weights]


def graphql_pr(gh: Gh, ref: PRRef, query: str, variables: dict[str, Any] | None = None,
               refused: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run a query rooted at repository(owner, name) → pullRequest(number); returns the repository. With
    ``refused``, a refused ``baseRef.rules`` (NOT_FOUND / FORBIDDEN for this token) is recorded there (the field
    comes back null) instead of failing the whole read."""
    all_vars = {"owner": ref.owner, "repo": ref.repo, "number": ref.number, **(variables or {})}
    try:
        if refused is None:
            data = gh.graphql(load_query(query), all_vars, hostname=ref.host)
        else:
            data, errors = gh.graphql_partial(load_query(query), all_vars, tolerate=(RULES_PATH,), hostname=ref.host)
            refused.extend(errors)
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
    code_owner_requests: list[str] = field(default_factory=list)  # requested by GitHub as code owners
    unresolved_threads: int = 0
    rollup_nodes: list[dict[str, Any]] = field(default_factory=list)
    rules: list[dict[str, Any]] | None = None
    rules_total: int | None = None  # totalCount of baseRef.rules
    branch: dict[str, Any] | None = None
    protection: dict[str, Any] | None = None
    protection_status: str = "skipped"  # read | absent | not_readable | skipped
    compare: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    ai_reviews: list[dict[str, Any]] = field(default_factory=list)  # the latest 50 reviews (AI-review coverage)
    ai_comments: list[dict[str, Any]] = field(default_factory=list)  # the latest 30 conversation comments
    owned_files: dict[str, list[str]] | None = None  # requested code owner -> changed files it owns (CODEOWNERS)


def _more_pages(gh: Gh, ref: PRRef, query: str, path: tuple[str, ...], conn: dict[str, Any]
                ) -> tuple[list[Any], bool]:
    """The nodes of the pages after ``conn`` (at most MAX_EXTRA_PAGES); and whether pages were left unread."""
    out: list[Any] = []
    info = conn.get("pageInfo") or {}
    for _ in range(MAX_EXTRA_PAGES):
        if not info.get("hasNextPage"):
            return out, False
        node: Any = graphql_pr(gh, ref, query, {"after": info["endCursor"]})["pullRequest"]
        for key in path:
            node = (node or {}).get(key) or {}
        out.extend(n for n in node.get("nodes") or [] if n)
        info = node.get("pageInfo") or {}
    return out, bool(info.get("hasNextPage"))


def _reviewer(node: Mapping[str, Any]) -> str | None:
    who = node.get("requestedReviewer") or {}
    return who.get("login") or who.get("combinedSlug")


def _rest_json(gh: Gh, ref: PRRef, path: str, **params: Any) -> Any:
    return gh.rest("GET", path, params=params or None, hostname=ref.host).json()


def fetch_readiness(ctx: Context, ref: PRRef) -> ReadinessFacts:
    """One query; then, all at once, the further thread-state and rollup pages (two independent chains), the
    REST reads and (while GitHub reports UNKNOWN) the mergeable poll. The critical path is the longer chain."""
    refused: list[dict[str, Any]] = []  # baseRef.rules refused: null, and the REST rules are read instead
    repo = graphql_pr(ctx.gh, ref, "pr_merge_readiness", refused=refused)
    pr = dict(repo.pop("pullRequest"))
    facts = ReadinessFacts(repo=repo, pr=pr)
    threads = pr.pop("reviewThreads", None) or {}
    rollup = pr.pop("statusCheckRollup", None) or {}
    contexts = rollup.get("contexts") or {}
    pr["rollupState"] = rollup.get("state")
    facts.reviews = [n for n in (pr.pop("latestOpinionatedReviews", None) or {}).get("nodes") or [] if n]
    facts.ai_reviews = [n for n in (pr.pop("aiReviews", None) or {}).get("nodes") or [] if n]
    facts.ai_comments = [n for n in (pr.pop("aiComments", None) or {}).get("nodes") or [] if n]
    requests = pr.pop("reviewRequests", None) or {}
    facts.review_requests = [r for r in (_reviewer(n) for n in requests.get("nodes") or [] if n) if r]
    facts.code_owner_requests = [r for r in (_reviewer(n) for n in requests.get("nodes") or []
                                             if n and n.get("asCodeOwner")) if r]
    base_ref = pr.get("baseRef") or {}
    rules_conn = base_ref.pop("rules", None) if isinstance(base_ref, dict) else None
    facts.rules = rules_from_graphql(rules_conn) if isinstance(rules_conn, dict) else None
    facts.rules_total = (rules_conn or {}).get("totalCount") if isinstance(rules_conn, dict) else None

    base = pr.get("baseRefName") or ""
    branch_q = quote(base, safe="")
    repo_path = f"repos/{ref.full_name}"
    tasks: dict[str, Callable[[], Any]] = {
        "threads": lambda: _more_pages(ctx.gh, ref, "pr_thread_states_page", ("reviewThreads",), threads),
        "rollup": lambda: _more_pages(ctx.gh, ref, "pr_rollup_page", ("statusCheckRollup", "contexts"), contexts),
        "branch": lambda: _rest_json(ctx.gh, ref, f"{repo_path}/branches/{branch_q}"),
        "compare": lambda: _rest_json(ctx.gh, ref, f"{repo_path}/compare/{branch_q}...{pr.get('headRefOid')}",
                                      per_page=1),
    }
    if _rest_rules_needed(facts.rules, rules_conn):
        tasks["rules"] = lambda: ctx.gh.rest_pages(f"{repo_path}/rules/branches/{branch_q}", hostname=ref.host)
    if pr.get("reviewDecision") == "REVIEW_REQUIRED" and facts.code_owner_requests:
        tasks["owners"] = lambda: _owned_files(ctx.gh, ref, base, facts.code_owner_requests)
    if repo.get("viewerPermission") == "ADMIN":
        tasks["protection"] = lambda: _rest_json(ctx.gh, ref, f"{repo_path}/branches/{branch_q}/protection")

    def run(name: str) -> tuple[str, Any, PrAgentError | None]:
        try:
            return name, tasks[name](), None
        except PrAgentError as err:
            if name in _PAGE_CHAINS or err.code not in _DEGRADE:
                raise  # a later page that fails fails the call: never the first page alone as the whole answer
            return name, None, err

    with ctx.gh.pool(max_workers=1) as pool:
        batch = pool.submit(ctx.gh.map, run, list(tasks), len(tasks))
        facts.polls = poll_mergeable(ctx, ref, pr)
        results = batch.result()
    thread_nodes = [n for n in threads.get("nodes") or [] if n]
    facts.rollup_nodes = [n for n in contexts.get("nodes") or [] if n]
    for name, value, err in results:
        if name == "threads":
            thread_nodes += value[0]
            _capped(facts, value[1], f"{len(thread_nodes)} of {threads.get('totalCount')} review threads "
                    "(whether each is resolved)")
        elif name == "rollup":
            facts.rollup_nodes += value[0]
            _capped(facts, value[1], f"the first {len(facts.rollup_nodes)} checks of the status rollup")
        else:
            _store(facts, name, value, err, base)
    facts.unresolved_threads = sum(1 for n in thread_nodes if not n.get("isResolved"))
    return facts


def _owned_files(gh: Gh, ref: PRRef, base: str, owners: list[str]) -> tuple[dict[str, list[str]] | None, str]:
    """Which changed files each requested code owner owns: the base branch's CODEOWNERS (the first of its three
    locations that exists) against the PR's changed files (the first 100). ({}, note) when it cannot tell."""
    from pr_agent.merge import codeowners

    where = {"inGithub": f"{base}:.github/CODEOWNERS", "inRoot": f"{base}:CODEOWNERS",
             "inDocs": f"{base}:docs/CODEOWNERS"}
    repo = graphql_pr(gh, ref, "pr_code_owners", where)
    text = next(((repo.get(k) or {}).get("text") for k in where if (repo.get(k) or {}).get("text") is not None),
                None)
    if text is None:
        return None, f"No CODEOWNERS file was found on {base!r}, so the files each code owner owns are not known."
    files = (repo["pullRequest"].get("files") or {})
    paths = [n["path"] for n in files.get("nodes") or [] if n and n.get("path")]
    note = (f"Only the first {len(paths)} of the PR's {files.get('totalCount')} changed files were matched "
            "against CODEOWNERS." if (files.get("totalCount") or 0) > len(paths) else "")
    return codeowners.files_by_owner(codeowners.parse(text), paths, owners), note


def _rest_rules_needed(rules: list[dict[str, Any]] | None, conn: dict[str, Any] | None) -> bool:
    """GraphQL gave the rules; REST is still read for parameters only it has, or for rules past the first 100."""
    if rules is None:
        return True  # no baseRef (e.g. the base branch is gone): REST may still know
    if ((conn or {}).get("pageInfo") or {}).get("hasNextPage"):
        return True  # REST pages through all of them
    return any(r["type"] in REST_ONLY_PARAMETERS for r in rules)


def _capped(facts: ReadinessFacts, capped: bool, what: str) -> None:
    if capped:
        facts.notes.append(f"Read only {what}: stopped after {MAX_EXTRA_PAGES} further pages. GitHub's "
                           "mergeStateStatus still accounts for all of them.")


def _store(facts: ReadinessFacts, name: str, value: Any, err: PrAgentError | None, base: str) -> None:
    if name == "rules":
        if err is None:
            facts.rules = [r for r in value or [] if isinstance(r, dict)]
        elif facts.rules is not None:  # GraphQL's rules stand; say what only REST has
            _rest_rules_missing(facts, base)
    elif name == "owners":
        facts.owned_files = value[0] if err is None and value else None
        if err is None and value and value[1]:
            facts.notes.append(value[1])
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


def _rest_rules_missing(facts: ReadinessFacts, base: str) -> None:
    rules = facts.rules or []
    if facts.rules_total is not None and facts.rules_total > len(rules):
        facts.notes.append(f"Only {len(rules)} of the {facts.rules_total} ruleset rules of {base!r} could be read; "
                           "GitHub's merge state still accounts for all of them.")
    if any(r["type"] in REST_ONLY_PARAMETERS for r in rules):
        facts.notes.append(f"Which merge methods the rulesets of {base!r} allow could not be read (GitHub "
                           "gives them only over REST); GitHub still enforces them when merging.")
