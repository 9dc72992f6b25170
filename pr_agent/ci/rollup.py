"""Classify a PR's status-check rollup: one table, shared by every tool that looks at CI.

Input is the ``nodes`` of GraphQL ``statusCheckRollup.contexts`` as selected by the ``RollupContexts``
fragment (``pr_agent/queries/fragments_rollup.graphql``): ``CheckRun`` and ``StatusContext`` objects.
Everything here is pure (no network, no subprocess).

The buckets (reference: github-api-facts §1.2; gh's own tables are inconsistent, so we keep ours):

=========  ==========================================================================
bucket     states
=========  ==========================================================================
failed     FAILURE, ERROR, TIMED_OUT, STARTUP_FAILURE, ACTION_REQUIRED
cancelled  CANCELLED, STALE (GitHub abandoned the run; it will not finish by itself)
pending    QUEUED, IN_PROGRESS, PENDING, WAITING, REQUESTED, EXPECTED, and anything unknown
passed     SUCCESS, NEUTRAL, SKIPPED
=========  ==========================================================================

A check run's state is its ``conclusion`` once ``status`` is COMPLETED, else its ``status``; a status
context's state is its ``state``. Re-runs are collapsed to the latest run per check. A required check
that has not reported at all is listed as ``kind="missing"``, state EXPECTED, bucket pending.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

Bucket = Literal["failed", "cancelled", "pending", "passed"]
Kind = Literal["check_run", "status_context", "missing"]
BUCKETS: tuple[Bucket, ...] = ("failed", "cancelled", "pending", "passed")

FAILED_STATES = frozenset({"FAILURE", "ERROR", "TIMED_OUT", "STARTUP_FAILURE", "ACTION_REQUIRED"})
CANCELLED_STATES = frozenset({"CANCELLED", "STALE"})
PENDING_STATES = frozenset({"QUEUED", "IN_PROGRESS", "PENDING", "WAITING", "REQUESTED", "EXPECTED"})
PASSED_STATES = frozenset({"SUCCESS", "NEUTRAL", "SKIPPED"})


def classify(state: str | None) -> Bucket:
    """The bucket of one state; unknown or missing states are pending (never passed)."""
    value = (state or "").upper()
    if value in FAILED_STATES:
        return "failed"
    if value in CANCELLED_STATES:
        return "cancelled"
    if value in PASSED_STATES:
        return "passed"
    return "pending"


@dataclass(frozen=True)
class Check:
    """One check as the rollup reports it (after de-duplication)."""

    name: str                      # CheckRun.name or StatusContext.context: what required checks name
    kind: Kind
    state: str                     # conclusion / status / state, upper case
    bucket: Bucket
    required: bool = False
    workflow: str | None = None    # Actions workflow name
    event: str | None = None       # Actions event (pull_request, push, …)
    app: str | None = None         # the check suite's app slug (github-actions, …)
    url: str | None = None         # detailsUrl / targetUrl
    description: str | None = None # check run title / status description
    started_at: str | None = None
    completed_at: str | None = None
    check_run_id: int | None = None  # for GitHub Actions this is also the job id
    run_id: int | None = None        # Actions workflow run id
    node_id: str | None = None       # GraphQL id of the check run (for nodes(ids:))

    @property
    def display_name(self) -> str:
        return f"{self.workflow} / {self.name}" if self.workflow else self.name

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Identity across re-runs (gh's rule: name + workflow + event; a status context by its name)."""
        return (self.kind, self.name, self.workflow or "", self.event or "")


def check_from_node(node: Mapping[str, Any]) -> Check | None:
    """A :class:`Check` from one rollup node; None for nodes of an unknown type."""
    typename = node.get("__typename")
    if typename == "CheckRun":
        status = str(node.get("status") or "").upper()
        state = str(node.get("conclusion") or "").upper() if status == "COMPLETED" else status
        suite = node.get("checkSuite") or {}
        run = suite.get("workflowRun") or {}
        return Check(
            name=str(node.get("name") or ""), kind="check_run", state=state or "PENDING", bucket=classify(state),
            required=bool(node.get("isRequired")), workflow=((run.get("workflow") or {}).get("name")),
            event=run.get("event"), app=(suite.get("app") or {}).get("slug"), url=node.get("detailsUrl"),
            description=node.get("title"), started_at=node.get("startedAt"), completed_at=node.get("completedAt"),
            check_run_id=node.get("databaseId"), run_id=run.get("databaseId"), node_id=node.get("id"))
    if typename == "StatusContext":
        state = str(node.get("state") or "").upper()
        return Check(
            name=str(node.get("context") or ""), kind="status_context", state=state or "PENDING",
            bucket=classify(state), required=bool(node.get("isRequired")), url=node.get("targetUrl"),
            description=node.get("description"), started_at=node.get("createdAt"))
    return None


def _recency(check: Check) -> tuple[int, str]:
    # A run that has not started yet (queued re-run) is the newest; ids grow with time.
    return (check.check_run_id or 0, check.started_at or "9999")


def latest_per_check(checks: Iterable[Check]) -> list[Check]:
    """Keep the latest run of each check (first-seen order of the survivors)."""
    best: dict[tuple[str, str, str, str], Check] = {}
    order: list[tuple[str, str, str, str]] = []
    for check in checks:
        key = check.key
        if key not in best:
            order.append(key)
            best[key] = check
        elif _recency(check) > _recency(best[key]):
            best[key] = check
    return [best[k] for k in order]


def mark_required(checks: Iterable[Check], required_names: Iterable[str]) -> list[Check]:
    """Mark checks whose name a branch rule requires (in addition to GitHub's own isRequired)."""
    names = set(required_names)
    return [c if c.required or c.name not in names else replace(c, required=True) for c in checks]


def missing_required(checks: Iterable[Check], required_names: Iterable[str]) -> list[Check]:
    """Placeholders for required checks that have not reported on the head commit."""
    seen = {c.name for c in checks}
    out = []
    for name in dict.fromkeys(required_names):
        if name and name not in seen:
            out.append(Check(name=name, kind="missing", state="EXPECTED", bucket="pending", required=True,
                             description="Required by a branch rule but not reported for the head commit."))
    return out


def overall(checks: Iterable[Check]) -> Literal["failed", "cancelled", "pending", "passed", "none"]:
    """failed > cancelled > pending > passed; "none" when there are no checks."""
    seen = {c.bucket for c in checks}
    for bucket in BUCKETS:
        if bucket in seen:
            return bucket
    return "none"


def counts(checks: Iterable[Check]) -> dict[str, int]:
    out = dict.fromkeys(BUCKETS, 0)
    for c in checks:
        out[c.bucket] += 1
    return out


@dataclass(frozen=True)
class Rollup:
    checks: list[Check]

    @property
    def required(self) -> list[Check]:
        return [c for c in self.checks if c.required]

    @property
    def optional(self) -> list[Check]:
        return [c for c in self.checks if not c.required]

    def in_bucket(self, bucket: Bucket, *, required: bool | None = None) -> list[Check]:
        return [c for c in self.checks if c.bucket == bucket and (required is None or c.required == required)]

    @property
    def status(self) -> str:
        return overall(self.checks)

    @property
    def required_status(self) -> str:
        return overall(self.required)


def build_rollup(nodes: Iterable[Mapping[str, Any] | None], required_names: Iterable[str] = ()) -> Rollup:
    """Nodes → latest run per check, required flags from isRequired and the branch rules, plus
    placeholders for required checks that never reported."""
    names = list(required_names)
    parsed = [c for c in (check_from_node(n) for n in nodes if n) if c is not None]
    checks = mark_required(latest_per_check(parsed), names)
    return Rollup(checks + missing_required(checks, names))
