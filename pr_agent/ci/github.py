"""What GitHub says about a PR's CI, through the gh gateway: the check rollup of the head commit (one
GraphQL query, with the base branch's required checks from branch protection and rulesets; further rollup
pages are handed to ``on_page`` as they arrive), and a failed GitHub Actions job's log (streamed to a spooled
temp file). Steps and annotations come from :mod:`pr_agent.ci.details`."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import quote

from pr_agent.ci.logs import decoded_lines
from pr_agent.ci.rollup import Rollup, build_rollup
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.ghwire import iter_nodes
from pr_agent.queries import load_query
from pr_agent.refs import PRRef

LOG_SPOOL_BYTES = 8 << 20  # logs up to 8 MB stay in memory, bigger ones go to a temp file
MAX_ROLLUP_PAGES = 50  # further pages of 100 contexts after the first
_DEGRADE = ("not_found", "forbidden")
_RULES_PATH = "repository.pullRequest.baseRef.rules"


@dataclass
class Snapshot:
    """One look at the PR's CI."""

    head_sha: str
    committed_at: str | None
    pr_state: str
    base_ref: str
    rollup: Rollup
    rollup_state: str | None
    nodes: list[dict[str, Any]] = field(default_factory=list, repr=False)
    required: list[str] = field(default_factory=list)
    rules_unreadable: bool = False  # the base branch's rulesets could not be read (403/404)
    unread_contexts: int = 0  # rollup contexts beyond the page cap (said in the summary)


def _pr_not_found(ref: PRRef, err: PrAgentError | None = None) -> PrAgentError:
    from pr_agent.review.fetch import pr_not_found

    return pr_not_found(ref, err)


def _graphql_pr(ctx: Context, ref: PRRef, query: str, extra: dict[str, Any] | None = None,
                refused: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The PR object of one query. With ``refused``, a refused ``baseRef.rules`` (NOT_FOUND / FORBIDDEN) is
    recorded there instead of failing the whole read."""
    variables = {"owner": ref.owner, "repo": ref.repo, "number": ref.number, **(extra or {})}
    try:
        if refused is None:
            data = ctx.gh.graphql(load_query(query), variables, hostname=ref.host)
        else:
            data, errors = ctx.gh.graphql_partial(load_query(query), variables, tolerate=(_RULES_PATH,),
                                                  hostname=ref.host)
            refused.extend(errors)
    except PrAgentError as err:
        if err.code == "not_found":
            raise _pr_not_found(ref, err) from None
        raise
    pr = (data.get("repository") or {}).get("pullRequest")
    if not pr:
        raise _pr_not_found(ref)
    return pr  # type: ignore[no-any-return]


def fetch_ruleset_checks(ctx: Context, ref: PRRef, branch: str) -> list[str] | None:
    """Check names the base branch's rulesets require (None when we may not read them)."""
    try:
        rules = ctx.gh.rest_pages(f"repos/{ref.full_name}/rules/branches/{quote(branch, safe='')}",
                                  hostname=ref.host, max_pages=5)
    except PrAgentError as err:
        if err.code in _DEGRADE:
            return None
        raise
    names: list[str] = []
    for rule in rules:
        if isinstance(rule, dict) and rule.get("type") == "required_status_checks":
            for item in (rule.get("parameters") or {}).get("required_status_checks") or []:
                if isinstance(item, dict) and item.get("context"):
                    names.append(str(item["context"]))
    return names


def _rule_checks(rules: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for rule in iter_nodes(rules):
        if rule.get("type") == "REQUIRED_STATUS_CHECKS":
            for item in (rule.get("parameters") or {}).get("requiredStatusChecks") or []:
                if isinstance(item, dict) and item.get("context"):
                    names.append(str(item["context"]))
    return names


def fetch_snapshot(ctx: Context, ref: PRRef,
                   on_page: Callable[[list[dict[str, Any]], list[str]], None] | None = None,
                   on_pr: Callable[[str, str], None] | None = None) -> Snapshot:
    """The head commit and its check rollup (every page), with required checks that never reported.

    The required check names are classic protection's (``refUpdateRule``) plus the rulesets' (``baseRef.rules``,
    in the same query; only a ruleset list longer than a page is read over REST). ``on_page(nodes, required)``
    sees each rollup page as soon as it arrives, so work on its failed checks can start before the next page
    is read; ``on_pr(base branch, head commit)`` is called before the first page is handed over."""
    refused: list[dict[str, Any]] = []
    pr = _graphql_pr(ctx, ref, "pr_checks", refused=refused)
    head = str(pr.get("headRefOid") or "")
    if on_pr is not None:
        on_pr(str(pr.get("baseRefName") or ""), head)
    commit = next(iter_nodes(pr.get("commits")), {}).get("commit") or {}
    base_ref = pr.get("baseRef") or {}
    rule = base_ref.get("refUpdateRule") or {}
    required = [str(n) for n in rule.get("requiredStatusCheckContexts") or [] if n]
    rules = base_ref.get("rules")
    ruleset_checks: list[str] | None
    if refused or (base_ref and rules is None):  # refused (403/404-like): said, never a silently shorter list
        ruleset_checks = None
    elif (rules or {}).get("pageInfo", {}).get("hasNextPage"):
        ruleset_checks = fetch_ruleset_checks(ctx, ref, str(pr.get("baseRefName") or ""))
    else:
        ruleset_checks = _rule_checks(rules or {})
    required += [n for n in dict.fromkeys(ruleset_checks or []) if n not in required]
    rollup = pr.get("statusCheckRollup") or {}
    contexts = rollup.get("contexts") or {}
    nodes = list(iter_nodes(contexts))
    info = contexts.get("pageInfo") or {}
    pages = 0
    with ctx.gh.pool(1) as chain:  # the next page is asked for before this page's jobs start: it is the longer path
        latest = nodes
        while True:
            more_pages = bool(info.get("hasNextPage")) and pages < MAX_ROLLUP_PAGES
            following = chain.submit(_graphql_pr, ctx, ref, "pr_rollup_page", {"after": info.get("endCursor")}) \
                if more_pages else None
            if on_page is not None:
                on_page(latest, required)
            if following is None:
                break
            conn = (following.result().get("statusCheckRollup") or {}).get("contexts") or {}
            latest = list(iter_nodes(conn))
            nodes.extend(latest)
            info = conn.get("pageInfo") or {}
            pages += 1
    total = contexts.get("totalCount")
    unread = max(0, total - len(nodes)) if isinstance(total, int) and info.get("hasNextPage") else 0
    if info.get("hasNextPage") and not unread:
        unread = 1  # at least one more page exists
    return Snapshot(head_sha=head, committed_at=commit.get("committedDate") if commit.get("oid") == head else None,
                    pr_state=str(pr.get("state") or ""), base_ref=str(pr.get("baseRefName") or ""),
                    rollup=build_rollup(nodes, required), rollup_state=rollup.get("state"), nodes=nodes,
                    required=required, rules_unreadable=ruleset_checks is None, unread_contexts=unread)


def log_expired(job_id: int, err: PrAgentError) -> PrAgentError:
    """GitHub's HTTP 410 "Logs have expired" for a job log, named as what it is."""
    return PrAgentError("log_expired", f"The log of job {job_id} has expired: GitHub no longer keeps it (Actions "
                        "logs are kept 90 days by default, or as the repository's retention setting says).",
                        suggestion="Its check run's annotations and step names are still readable "
                        "(get_failing_tests shows them); only a new run of the job makes a new log.",
                        details={**err.details, "job_id": job_id})


def download_log(ctx: Context, ref: PRRef, job_id: int) -> IO[bytes]:
    """The job's raw log in a spooled temp file positioned at 0 (the caller closes it).
    Raises ``not_found`` while the log is not available (job still running) and ``log_expired`` once GitHub
    answers 410 (past the retention period, or deleted)."""
    spool = tempfile.SpooledTemporaryFile(max_size=LOG_SPOOL_BYTES)  # noqa: SIM115 (returned to the caller)
    try:
        ctx.gh.download(f"repos/{ref.full_name}/actions/jobs/{job_id}/logs", spool, hostname=ref.host)
    except PrAgentError as err:
        spool.close()
        if err.details.get("status") == 410:
            raise log_expired(job_id, err) from None
        raise
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool  # type: ignore[return-value]


def text_lines(raw: IO[bytes]) -> Iterator[str]:
    """Decoded lines of a binary log file, streamed, whatever its encoding (``logs.decoded_lines``: UTF-8
    with or without BOM, UTF-16 LE/BE; invalid bytes become U+FFFD)."""
    return decoded_lines(iter(lambda: raw.read(1 << 20), b""))
