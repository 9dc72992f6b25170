"""Figures that talk to fakehub: 1 (round trips), 2 (latency), 5 (output size) and 6 (gh's own commands).

Every tool runs as a user runs it: ``python -m pr_agent … --json`` in a fresh process, through the real
``gh`` binary, against fakehub on loopback. Requests are counted by fakehub, per tool call.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections import Counter
from typing import Any

from bench import floors, mcp_client
from bench.cases import CASES, REFERENCE, BenchCtx, Call, Case
from bench.harness import PYTHON, ROOT, Run, run_process, stats

TARGET_RATIO_REQUESTS = 1.0
TARGET_RATIO_LATENCY = 1.5
# The observed critical path comes from one extra run at this multiple of the latency: process start-up
# jitter on a busy 2-core machine (tens of ms) must stay well below the injected latency to read it.
PROBE_FACTOR = 4


def registered_tools() -> set[str]:
    from pr_agent.registry import all_tools

    return set(all_tools())


def agent_env(ctx: BenchCtx, gh: str) -> dict[str, str]:
    env = ctx.hub.child_env(GH_PR_AGENT_GH=gh, GH_PR_AGENT_CONFIG_DIR=str(ctx.workdir / "cfg"),
                            PYTHONPATH=str(ROOT), GH_PR_AGENT_MAX_RETRY_WAIT="3")
    env.pop("GH_PR_AGENT_DEBUG", None)
    return env


def _agent(ctx: BenchCtx, gh: str, argv: list[str], cwd: Any = None) -> Run:
    return run_process([PYTHON, "-m", "pr_agent", *argv], env=agent_env(ctx, gh), cwd=cwd or ctx.workdir, timeout=300)


def stamp_responses() -> None:
    """Record when fakehub finished answering each request (``rec.finished``), for observed_depth. A
    wrapper around the handler's send, installed once in this process; fakehub itself is unchanged."""
    from tests.fakehub import server

    send = server.Handler._send
    if getattr(send, "_bench_stamped", False):
        return

    def stamped(self: Any, rec: Any, *args: Any, **kw: Any) -> None:
        try:
            send(self, rec, *args, **kw)
        finally:
            rec.finished = time.time()

    stamped._bench_stamped = True  # type: ignore[attr-defined]
    server.Handler._send = stamped  # type: ignore[method-assign]


def observed_depth(requests: list[Any], latency_s: float) -> int:
    """Sequential round trips as fakehub saw them: a request is one level deeper than every request that
    was fully answered before it arrived (it may have waited for any of them). Meaningful when latency > 0."""
    depth: list[int] = []
    ordered = sorted(requests, key=lambda r: r.started)
    for i, r in enumerate(ordered):
        before = [depth[j] for j in range(i)
                  if getattr(ordered[j], "finished", ordered[j].started + latency_s) <= r.started]
        depth.append(1 + max(before, default=0))
    return max(depth, default=0)


def api_requests(hub: Any) -> list[Any]:
    """What a tool asked GitHub: every recorded request except gh's own side traffic (gh >= 2.8x tries to
    send telemetry through the proxy as ``CONNECT cafe.github.com:443``; fakehub refuses it)."""
    return [r for r in list(hub.requests) if r.method != "CONNECT"]


def side_requests(hub: Any) -> list[str]:
    return [f"{r.method} {r.path}" for r in list(hub.requests) if r.method == "CONNECT"]


def _route(r: Any) -> str:
    """A request's GraphQL operation, or its REST route with ids and commit shas folded (``…/jobs/{id}/logs``)."""
    if r.operation:
        return str(r.operation)
    path = re.sub(r"/\d+(?=/|$)", "/{id}", r.path.split("?")[0])
    return f"{r.method} " + re.sub(r"[0-9a-f]{40}", "{sha}", path)


def _ops(requests: list[Any]) -> dict[str, int]:
    return dict(Counter(_route(r) for r in requests))


def _one(ctx: BenchCtx, gh: str, case: Case, latency_ms: float) -> dict[str, Any]:
    ctx.hub.latency_ms = latency_ms
    ctx.hub.reset_counters()
    call = case.plan(ctx)
    run = _agent(ctx, gh, call.argv, call.cwd)
    reqs = api_requests(ctx.hub)
    if run.returncode not in case.exits:
        raise RuntimeError(f"{case.id}: exit {run.returncode}: {run.stderr[-600:]!r} {run.stdout[:300]!r}")
    odd = [f"{r.operation or r.path} -> {r.status}" for r in reqs if not r.status or r.status >= 400]
    return {"wall": run.wall_s, "requests": len(reqs), "ops": _ops(reqs), "floor": call.floor, "odd": odd,
            "side": side_requests(ctx.hub),
            "depth": observed_depth(reqs, latency_ms / 1000) if latency_ms else None}


def round_trips_and_latency(ctx: BenchCtx, gh: str, runs: int, latency_ms: float, available: set[str],
                            cases: list[Case], warmup: int = 1, probe_factor: float | None = PROBE_FACTOR
                            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Figures 1 and 2 from the same runs: each case warmed up, then ``runs`` times without added
    latency (request counts, local overhead) interleaved with ``runs`` times at ``latency_ms`` per request.
    ``probe_factor`` None (smoke): the observed critical path is read from the last 1x run, no extra run."""
    stamp_responses()
    trips: list[dict[str, Any]] = []
    lat: list[dict[str, Any]] = []
    for case in cases:
        if case.tool not in available:
            note = f"not yet available ({case.tool} is not registered)"
            trips.append({"case": case.id, "tool": case.tool, "status": note})
            lat.append({"case": case.id, "tool": case.tool, "status": note})
            continue
        try:
            if case.prepare:
                case.prepare(ctx)
            for _ in range(warmup):
                _one(ctx, gh, case, 0)
            zero: list[dict[str, Any]] = []
            slow: list[dict[str, Any]] = []
            for _ in range(runs):  # interleaved, so drift in machine load hits both alike
                zero.append(_one(ctx, gh, case, 0))
                slow.append(_one(ctx, gh, case, latency_ms))
            probe = _one(ctx, gh, case, latency_ms * probe_factor) if probe_factor else slow[-1]
        except Exception as exc:  # one broken tool must not hide the other figures
            trips.append({"case": case.id, "tool": case.tool, "status": f"error: {_short(exc)}"})
            lat.append({"case": case.id, "tool": case.tool, "status": f"error: {_short(exc)}"})
            continue
        fl: floors.Floor = zero[0]["floor"]
        counts = sorted({r["requests"] for r in zero + slow})
        requests = Counter(r["requests"] for r in zero + slow).most_common(1)[0][0]  # the usual count
        trips.append({
            "case": case.id, "tool": case.tool, "status": "ok", "requests": requests,
            "requests_seen": counts, "floor": fl.requests, "ratio": round(requests / fl.requests, 3),
            "target": TARGET_RATIO_REQUESTS, "met": requests <= fl.requests * TARGET_RATIO_REQUESTS,
            "alias_floor": fl.alias_floor,
            "by_operation": next(r["ops"] for r in zero + slow if r["requests"] == requests), "floor_why": fl.why,
            "gh_side_requests": sum(len(r["side"]) for r in zero + slow),
            "runs_that_differed": [{"requests": r["requests"], "by_operation": r["ops"], "failed_requests": r["odd"]}
                                   for r in zero + slow if r["requests"] != requests][:3],
        })
        w0, wl = stats([r["wall"] for r in zero]), stats([r["wall"] for r in slow])
        floor_s = fl.critical_path * latency_ms / 1000 + w0.median
        ratio = wl.median / floor_s
        lat.append({
            "case": case.id, "tool": case.tool, "status": "ok", "latency_ms": latency_ms,
            "wall_s": wl.to_dict(), "local_overhead_s": w0.to_dict(), "critical_path_floor": fl.critical_path,
            "critical_path_observed": probe["depth"], "probe_latency_ms": latency_ms * (probe_factor or 1),
            "floor_s": round(floor_s, 4),
            "ratio": round(ratio, 3), "target": TARGET_RATIO_LATENCY, "met": ratio <= TARGET_RATIO_LATENCY,
        })
    return trips, lat


def _walk_pages(ctx: BenchCtx, gh: str, call: Call, case: Case, detail: str | None) -> dict[str, Any]:
    assert case.items_key
    ctx.hub.latency_ms = 0
    ctx.hub.reset_counters()
    argv = [*call.argv, *(["--detail", detail] if detail else [])]
    cursor: str | None = None
    total_bytes = item_bytes = items = calls = 0
    by_type: dict[str, list[int]] = {}
    by_field: dict[str, int] = {}
    while True:
        run = _agent(ctx, gh, [*argv, *(["--cursor", cursor] if cursor else [])], call.cwd)
        if run.returncode not in case.exits:
            raise RuntimeError(f"{case.id}: exit {run.returncode}: {run.stderr[-600:]!r}")
        out = json.loads(run.stdout)
        calls += 1
        total_bytes += len(run.stdout.rstrip(b"\n"))
        for it in out[case.items_key]:
            size = len(json.dumps(it, ensure_ascii=False, separators=(",", ":")).encode())
            item_bytes += size
            items += 1
            key = str(it.get("type") or it.get("source") or "item") if isinstance(it, dict) else "item"
            by_type.setdefault(key, [0, 0])
            by_type[key][0] += 1
            by_type[key][1] += size
            for name, value in it.items() if isinstance(it, dict) else ():
                by_field[name] = by_field.get(name, 0) + len(json.dumps(value, ensure_ascii=False,
                                                                        separators=(",", ":")).encode())
        cursor = out.get("nextCursor") if case.paged else None
        if not cursor:
            break
    return {"detail": detail or "-", "items": items, "calls": calls, "bytes": total_bytes,
            "bytes_per_item": round(total_bytes / items) if items else None,
            "item_bytes_mean": round(item_bytes / items) if items else None,
            "by_type": {k: {"items": n, "bytes_per_item": round(b / n)} for k, (n, b) in sorted(by_type.items())},
            "share_by_field": {k: round(v / item_bytes, 3)
                               for k, v in sorted(by_field.items(), key=lambda kv: -kv[1])[:8]} if item_bytes else {},
            "requests": len(api_requests(ctx.hub)), "gh_side_requests": len(side_requests(ctx.hub)),
            "failed_requests": [f"{r.operation or r.path} -> {r.status}" for r in api_requests(ctx.hub)
                                if not r.status or r.status >= 400][:5]}


def output_size(ctx: BenchCtx, gh: str, available: set[str], cases: list[Case] | None = None
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Figure 5 rows, plus figure-1 info rows for reading every page."""
    rows: list[dict[str, Any]] = []
    paging: list[dict[str, Any]] = []
    for case in CASES if cases is None else cases:
        if not case.items_key:
            continue
        if case.tool not in available:
            rows.append({"case": case.id, "tool": case.tool, "status": f"not yet available ({case.tool})"})
            continue
        if case.prepare:
            case.prepare(ctx)
        call = case.plan(ctx)
        for detail in ("concise", "full") if case.detail else (None,):
            try:
                row = {"case": case.id, "tool": case.tool, "status": "ok",
                       **_walk_pages(ctx, gh, call, case, detail)}
                if call.mcp_args is not None and detail in (None, "concise"):
                    row["mcp"] = _mcp_page(ctx, gh, case, call, row)
            except Exception as exc:
                rows.append({"case": case.id, "tool": case.tool, "detail": detail, "status": f"error: {_short(exc)}"})
                continue
            rows.append(row)
            if case.paged and detail in (None, "concise") and row["calls"] > 1:
                fl = floors.all_output_pages(call.floor, row["calls"])
                paging.append({"case": f"{case.id}, all {row['calls']} pages", "tool": case.tool, "status": "info",
                               "requests": row["requests"], "floor": fl.requests,
                               "ratio": round(row["requests"] / fl.requests, 3), "target": None, "met": None,
                               "floor_why": fl.why})
    return rows, paging


def pages_over_mcp(ctx: BenchCtx, gh: str, available: set[str], cases: list[Case] | None = None
                   ) -> list[dict[str, Any]]:
    """Figure 1 info rows: every output page of each paged tool read through one MCP server, which cuts the
    pages after the first from its snapshot of the first call's read (pr_agent/snapshots.py)."""
    rows: list[dict[str, Any]] = []
    for case in CASES if cases is None else cases:
        if not (case.paged and case.items_key) or case.tool not in available:
            continue
        if case.prepare:
            case.prepare(ctx)
        call = case.plan(ctx)
        if call.mcp_args is None:
            continue
        ctx.hub.latency_ms = 0
        ctx.hub.reset_counters()
        marks: list[int] = []

        def mark(marks: list[int] = marks) -> None:
            marks.append(len(api_requests(ctx.hub)))

        try:
            got = mcp_client.pages([PYTHON, "-m", "pr_agent", "mcp"], agent_env(ctx, gh), case.tool, call.mcp_args,
                                   before_call=mark)
        except Exception as exc:
            rows.append({"case": f"{case.id}, all pages over MCP", "tool": case.tool,
                         "status": f"error: {_short(exc)}"})
            continue
        marks.append(len(api_requests(ctx.hub)))
        per_call = [b - a for a, b in itertools.pairwise(marks)]
        fl = floors.all_output_pages(call.floor, len(got))
        rows.append({"case": f"{case.id}, all {len(got)} pages over MCP", "tool": case.tool, "status": "info",
                     "requests": marks[-1], "requests_per_call": per_call,
                     "pages_from_snapshot": sum(1 for page in got if page.get("from_snapshot")),
                     "items": sum(len(page.get(case.items_key) or []) for page in got), "floor": fl.requests,
                     "ratio": round(marks[-1] / fl.requests, 3), "target": None, "met": None,
                     "floor_why": fl.why + "; one MCP server, later pages from its snapshot"})
    return rows


def _mcp_page(ctx: BenchCtx, gh: str, case: Case, call: Call, row: dict[str, Any]) -> dict[str, Any]:
    """The first page as an MCP tools/call result: structuredContent plus its text fallback."""
    assert call.mcp_args is not None and case.items_key
    sess = mcp_client.session([PYTHON, "-m", "pr_agent", "mcp"], agent_env(ctx, gh), (case.tool, call.mcp_args))
    result = sess.call_result or {}
    structured = json.dumps(result.get("structuredContent"), ensure_ascii=False, separators=(",", ":")).encode()
    text = sum(len(c.get("text", "").encode()) for c in result.get("content", []))
    n = len((result.get("structuredContent") or {}).get(case.items_key) or []) or 1
    return {"first_page_items": n, "response_bytes": sess.call_bytes, "structured_bytes": len(structured),
            "text_bytes": text, "response_bytes_per_item": round((sess.call_bytes or 0) / n),
            "structured_bytes_per_item": round(len(structured) / n)}


def gh_reference(ctx: BenchCtx, gh: str, runs: int, latency_ms: float) -> list[dict[str, Any]]:
    """Figure 6: gh's own commands on the same PR, where fakehub can serve them."""
    rows: list[dict[str, Any]] = []
    env = ctx.hub.child_env()
    for ref in REFERENCE:
        row: dict[str, Any] = {"command": ref.id, "argv": ["gh", *ref.argv], "compare_with": ref.compare_with}
        ctx.hub.latency_ms = 0
        ctx.hub.reset_counters()
        unhandled_before = len(ctx.hub.unhandled)
        first = run_process([gh, *ref.argv], env=env, cwd=ctx.workdir)
        if first.returncode not in ref.exits or len(ctx.hub.unhandled) > unhandled_before:
            missing = [r.response_body.decode("utf-8", "replace") for r in ctx.hub.unhandled[unhandled_before:]]
            del ctx.hub.unhandled[unhandled_before:]
            reason = _reason(missing) or ("gh says: " + first.stderr.decode("utf-8", "replace").strip()[:160]
                                          + " (the scenario has no such data yet)")
            rows.append({**row, "status": f"not served by fakehub: {reason}"})
            continue
        zero = [first] + [_gh(ctx, gh, ref.argv, env, 0)[0] for _ in range(runs - 1)]
        slow = [_gh(ctx, gh, ref.argv, env, latency_ms) for _ in range(runs)]
        items = ref.count(first.stdout.decode("utf-8", "replace")) if ref.count else None
        row.update({"status": "ok", "requests": slow[0][1],
                    "local_overhead_s": stats([r.wall_s for r in zero]).to_dict(),
                    "latency_ms": latency_ms, "wall_s": stats([r.wall_s for r, _ in slow]).to_dict(),
                    "bytes": len(first.stdout), "items": items,
                    "bytes_per_item": round(len(first.stdout) / items) if items else None})
        rows.append(row)
    return rows


def _gh(ctx: BenchCtx, gh: str, argv: list[str], env: dict[str, str], latency_ms: float) -> tuple[Run, int]:
    ctx.hub.latency_ms = latency_ms
    ctx.hub.reset_counters()
    run = run_process([gh, *argv], env=env, cwd=ctx.workdir)
    return run, len(api_requests(ctx.hub))


def _short(exc: BaseException) -> str:
    """The last meaningful line of an error (a child's traceback ends with the exception)."""
    text = str(exc).replace("\\n", "\n")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("^")]
    return (lines[-1] if lines else type(exc).__name__)[:240]


def _reason(bodies: list[str]) -> str:
    for body in bodies:
        try:
            msg = json.loads(body).get("message", "")
        except ValueError:
            msg = body
        if msg:
            return msg.replace("fakehub: ", "").split(" (serve it in")[0]
    return ""


def parse_review_requests(ctx: BenchCtx, gh: str) -> dict[str, Any]:
    """Figure 1 row for the offline parse-review: it must send no request at all."""
    body = sorted((ROOT / "fixtures" / "reviews").rglob("*.md"), key=lambda p: p.stat().st_size)[-1]
    ctx.hub.latency_ms = 0
    ctx.hub.reset_counters()
    run = _agent(ctx, gh, ["parse-review", str(body), "--json"])
    ok = run.returncode == 0
    n = len(api_requests(ctx.hub))
    return {"case": "parse-review (offline)", "tool": "parse-review", "status": "ok" if ok else "error",
            "requests": n, "floor": 0, "ratio": None, "target": 0, "met": ok and n == 0,
            "floor_why": "offline: reads a saved body", "by_operation": _ops(api_requests(ctx.hub))}


__all__ = ["gh_reference", "output_size", "pages_over_mcp", "parse_review_requests", "registered_tools",
           "round_trips_and_latency"]
