"""What GitHub says about a PR's CI, through the gh gateway: the check rollup of the head commit (one
GraphQL query), and for a failed GitHub Actions job its steps, its log (streamed to a spooled temp file)
and its check-run annotations."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import IO, Any
from urllib.parse import quote

from pr_agent.ci.rollup import Rollup, build_rollup
from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.gh import iter_nodes, load_query
from pr_agent.refs import PRRef

LOG_SPOOL_BYTES = 8 << 20  # logs up to 8 MB stay in memory, bigger ones go to a temp file
MAX_ANNOTATION_PAGES = 3
_DEGRADE = ("not_found", "forbidden")


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

    def with_required(self, names: list[str]) -> Snapshot:
        """The same snapshot with more required check names (from rulesets read separately)."""
        extra = [n for n in names if n and n not in self.required]
        if not extra:
            return self
        required = self.required + extra
        return replace(self, required=required, rollup=build_rollup(self.nodes, required))


def _pr_not_found(ref: PRRef, err: PrAgentError | None = None) -> PrAgentError:
    from pr_agent.review.fetch import pr_not_found

    return pr_not_found(ref, err)


def _graphql_pr(ctx: Context, ref: PRRef, query: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        data = ctx.gh.graphql(load_query(query), {"owner": ref.owner, "repo": ref.repo, "number": ref.number,
                                                  **(extra or {})}, hostname=ref.host)
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


def fetch_snapshot(ctx: Context, ref: PRRef, ruleset_checks: list[str] | None = None) -> Snapshot:
    """The head commit and its check rollup (every page), with required checks that never reported."""
    pr = _graphql_pr(ctx, ref, "pr_checks")
    head = str(pr.get("headRefOid") or "")
    commit = next(iter_nodes(pr.get("commits")), {}).get("commit") or {}
    rollup = pr.get("statusCheckRollup") or {}
    contexts = rollup.get("contexts") or {}
    nodes = list(iter_nodes(contexts))
    info = contexts.get("pageInfo") or {}
    pages = 0
    while info.get("hasNextPage") and pages < 50:
        page = _graphql_pr(ctx, ref, "pr_rollup_page", {"after": info["endCursor"]})
        conn = (page.get("statusCheckRollup") or {}).get("contexts") or {}
        nodes.extend(iter_nodes(conn))
        info = conn.get("pageInfo") or {}
        pages += 1
    rule = ((pr.get("baseRef") or {}).get("refUpdateRule") or {})
    required = [str(n) for n in rule.get("requiredStatusCheckContexts") or [] if n]
    required += [n for n in ruleset_checks or [] if n not in required]
    return Snapshot(head_sha=head, committed_at=commit.get("committedDate") if commit.get("oid") == head else None,
                    pr_state=str(pr.get("state") or ""), base_ref=str(pr.get("baseRefName") or ""),
                    rollup=build_rollup(nodes, required), rollup_state=rollup.get("state"), nodes=nodes,
                    required=required)


def fetch_job(ctx: Context, ref: PRRef, job_id: int) -> dict[str, Any] | None:
    """``GET /actions/jobs/{id}`` (steps with times); None when it is not an Actions job."""
    try:
        data = ctx.gh.rest("GET", f"repos/{ref.full_name}/actions/jobs/{job_id}", hostname=ref.host).json()
    except PrAgentError as err:
        if err.code in _DEGRADE:
            return None
        raise
    return data if isinstance(data, dict) else None


def fetch_annotations(ctx: Context, ref: PRRef, check_run_id: int) -> list[dict[str, Any]] | None:
    """A check run's annotations (test reporters put per-test results there); None when not readable
    (gh notes fine-grained tokens get 403 here)."""
    try:
        items = ctx.gh.rest_pages(f"repos/{ref.full_name}/check-runs/{check_run_id}/annotations",
                                  hostname=ref.host, max_pages=MAX_ANNOTATION_PAGES)
    except PrAgentError as err:
        if err.code in _DEGRADE:
            return None
        raise
    out: list[dict[str, Any]] = []
    for item in items:
        out.extend(x for x in (item if isinstance(item, list) else [item]) if isinstance(x, dict))
    return out


def download_log(ctx: Context, ref: PRRef, job_id: int) -> IO[bytes]:
    """The job's raw log in a spooled temp file positioned at 0 (the caller closes it).
    Raises ``not_found`` while the log is not available (job still running, or expired)."""
    spool = tempfile.SpooledTemporaryFile(max_size=LOG_SPOOL_BYTES)  # noqa: SIM115 (returned to the caller)
    try:
        ctx.gh.download(f"repos/{ref.full_name}/actions/jobs/{job_id}/logs", spool, hostname=ref.host)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool  # type: ignore[return-value]


def text_lines(raw: IO[bytes]) -> Iterator[str]:
    """Decoded lines of a binary log file (invalid UTF-8 replaced), streamed."""
    for line in raw:
        yield line.decode("utf-8", "replace")
