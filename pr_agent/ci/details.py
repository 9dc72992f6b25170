"""A failed check run's steps and annotations, for many check runs in one GraphQL ``nodes(ids:)`` query.

``CheckRun.steps`` carries what ``GET …/actions/jobs/{id}`` gave in ``steps[]`` (number, name, status,
conclusion, started/completed times) and ``CheckRun.annotations`` what ``GET …/check-runs/{id}/annotations``
gives (path, start/end line and column, level, title, message, raw details). Both are returned here in the
REST shape (snake_case, lower-case enums) that :class:`~pr_agent.ci.logs.StepTiming` and the annotation
views read. GraphQL has no job ``html_url``: an Actions check run's ``detailsUrl`` is that page.

The first query asks for 100 steps and 50 annotations per check run; a check run with more is paged with
``CheckRunMore`` up to :data:`MAX_STEPS` / :data:`MAX_ANNOTATIONS`, and beyond that a note says how many were
not read. A check run GitHub refuses (``null`` with NOT_FOUND / FORBIDDEN, e.g. a token without
``checks:read``) gets ``None`` for what could not be read, never an empty list that would look complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pr_agent.context import Context
from pr_agent.queries import load_query
from pr_agent.refs import PRRef

MAX_IDS = 100  # GitHub's limit for nodes(ids:)
MAX_STEPS = 300
MAX_ANNOTATIONS = 300


@dataclass
class CheckDetails:
    steps: list[dict[str, Any]] | None = None  # None: could not be read
    annotations: list[dict[str, Any]] | None = None  # None: could not be read
    notes: list[str] = field(default_factory=list)
    refused: str | None = None  # GitHub's error type when the check run itself was refused


def _lower(value: Any) -> str | None:
    return value.lower() if isinstance(value, str) else None


def step_rest(s: dict[str, Any]) -> dict[str, Any]:
    return {"number": s.get("number"), "name": s.get("name"), "status": _lower(s.get("status")),
            "conclusion": _lower(s.get("conclusion")), "started_at": s.get("startedAt"),
            "completed_at": s.get("completedAt")}


def annotation_rest(a: dict[str, Any]) -> dict[str, Any]:
    loc = a.get("location") or {}
    start, end = loc.get("start") or {}, loc.get("end") or {}
    return {"path": a.get("path"), "start_line": start.get("line"), "end_line": end.get("line"),
            "start_column": start.get("column"), "end_column": end.get("column"),
            "annotation_level": _lower(a.get("annotationLevel")), "title": a.get("title"),
            "message": a.get("message"), "raw_details": a.get("rawDetails")}


def _nodes(conn: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [n for n in (conn or {}).get("nodes") or [] if isinstance(n, dict)]


def _more(ctx: Context, ref: PRRef, node_id: str, steps: dict[str, Any] | None,
          annotations: dict[str, Any] | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The next page of steps and/or annotations of one check run (whichever still has one)."""
    s_info, a_info = (steps or {}).get("pageInfo") or {}, (annotations or {}).get("pageInfo") or {}
    variables = {"id": node_id, "withSteps": bool(s_info.get("hasNextPage")), "stepsAfter": s_info.get("endCursor"),
                 "withAnnotations": bool(a_info.get("hasNextPage")), "annotationsAfter": a_info.get("endCursor")}
    node = ctx.gh.graphql(load_query("check_run_more"), variables, hostname=ref.host).get("node") or {}
    return (node.get("steps") if variables["withSteps"] else None,
            node.get("annotations") if variables["withAnnotations"] else None)


def _complete(ctx: Context, ref: PRRef, node_id: str, node: dict[str, Any]) -> CheckDetails:
    steps_conn, notes_conn = node.get("steps"), node.get("annotations")
    out = CheckDetails(steps=None if steps_conn is None else [step_rest(s) for s in _nodes(steps_conn)],
                       annotations=None if notes_conn is None else [annotation_rest(a) for a in _nodes(notes_conn)])
    total = (notes_conn or {}).get("totalCount")
    while True:
        want_steps = steps_conn is not None and out.steps is not None and len(out.steps) < MAX_STEPS and \
            bool((steps_conn.get("pageInfo") or {}).get("hasNextPage"))
        want_notes = notes_conn is not None and out.annotations is not None and \
            len(out.annotations) < MAX_ANNOTATIONS and bool((notes_conn.get("pageInfo") or {}).get("hasNextPage"))
        if not (want_steps or want_notes):
            break
        more_steps, more_notes = _more(ctx, ref, node_id, steps_conn if want_steps else None,
                                       notes_conn if want_notes else None)
        if want_steps:
            steps_conn = more_steps or {}
            out.steps = (out.steps or []) + [step_rest(s) for s in _nodes(steps_conn)]
        if want_notes:
            notes_conn = more_notes or {}
            out.annotations = (out.annotations or []) + [annotation_rest(a) for a in _nodes(notes_conn)]
    if steps_conn is not None and (steps_conn.get("pageInfo") or {}).get("hasNextPage"):
        out.notes.append(f"only its first {len(out.steps or [])} steps were read")
    if notes_conn is not None and (notes_conn.get("pageInfo") or {}).get("hasNextPage"):
        of = f" of {total}" if isinstance(total, int) else ""
        out.notes.append(f"only the first {len(out.annotations or [])}{of} check-run annotations were read, so "
                         "failing tests reported only in the others are missing")
    return out


def fetch_details(ctx: Context, ref: PRRef, node_ids: list[str]) -> dict[str, CheckDetails]:
    """Steps and annotations of up to 100 check runs (by GraphQL node id), one query (more only to page)."""
    if not node_ids:
        return {}
    if len(node_ids) > MAX_IDS:
        raise ValueError(f"at most {MAX_IDS} ids per query")
    data, errors = ctx.gh.graphql_partial(load_query("check_run_details"), {"ids": node_ids}, tolerate=("nodes",),
                                          hostname=ref.host)
    nodes = data.get("nodes") or []
    refused: dict[tuple[int, str], str] = {}  # (index, field or "") -> error type
    for e in errors:
        path = e.get("path") or []
        if len(path) >= 2 and isinstance(path[1], int):
            refused[(path[1], str(path[2]) if len(path) > 2 else "")] = str(e.get("type") or "")
    out: dict[str, CheckDetails] = {}
    for i, node_id in enumerate(node_ids):
        node = nodes[i] if i < len(nodes) else None
        if not isinstance(node, dict):
            out[node_id] = CheckDetails(refused=refused.get((i, "")) or "NOT_FOUND")
            continue
        out[node_id] = _complete(ctx, ref, node_id, node)
    return out
