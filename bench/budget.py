"""Figure 5b, the MCP context budget (docs/mcp.md): bytes and estimated tokens of what an MCP client puts in
a model's context — page 1 of each tool with default arguments over one `gh-pr-agent mcp` server, and
`tools/list` — against the targets of issue 17; next to them, GitHub's own REST objects for the same data
(GitHub's MCP server answers with objects of that shape), read with `gh api` from the same fakehub."""

from __future__ import annotations

import json
import statistics
import subprocess
from typing import Any

from bench import mcp_client
from bench.cases import BenchCtx
from bench.github import PYTHON, agent_env

TOKENS_PER_BYTE = 0.25  # ~4 bytes per token for JSON-ish English (an estimate; reported as such)
KIB = 1024
# (tool, items key, target bytes of structuredContent, target median item bytes)
TARGETS: tuple[tuple[str, str | None, int, int | None], ...] = (
    ("find_unresolved_comments", "comments", 32 * KIB, 600),
    ("get_failing_tests", "failures", 24 * KIB, None),
    ("check_merge_readiness", None, 8 * KIB, None),
)
TOOLS_LIST_TARGET = 30 * KIB


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _rest_per_item(ctx: BenchCtx, gh: str, path: str, key: str | None = None) -> dict[str, Any]:
    env = ctx.hub.child_env()
    proc = subprocess.run([gh, "api", path], capture_output=True, env=env, timeout=120, check=False)
    if proc.returncode != 0:
        return {"path": path, "status": f"error: exit {proc.returncode}"}
    data = json.loads(proc.stdout)
    items = data[key] if key else data
    items = items if isinstance(items, list) else [items]  # one object (a job, the pull request)
    return {"path": path, "status": "ok", "items": len(items),
            "bytes_per_item": round(_size(items) / max(1, len(items)))}


def context_budget(ctx: BenchCtx, gh: str) -> dict[str, Any]:
    env = agent_env(ctx, gh)
    rows: list[dict[str, Any]] = []
    list_bytes = 0
    job_ids: list[str] = []
    for tool, key, target, median_target in TARGETS:
        sess = mcp_client.session([PYTHON, "-m", "pr_agent", "mcp"], env, (tool, {"pr": ctx.ref}))
        list_bytes = sess.tools_list_bytes
        sc = (sess.call_result or {}).get("structuredContent") or {}
        job_ids += [str(c["job_id"]) for c in sc.get("failed_checks") or [] if c.get("job_id")]
        b = _size(sc)
        what = f"{tool} page 1" if key else tool  # a tool without pages: its one answer
        row: dict[str, Any] = {"what": what, "bytes": b, "tokens_est": round(b * TOKENS_PER_BYTE),
                               "target_bytes": target, "met": b <= target,
                               "response_bytes": sess.call_bytes}
        if key:
            sizes = [_size(x) for x in sc.get(key) or []]
            row.update(items=len(sizes), median_item_bytes=round(statistics.median(sizes)) if sizes else 0)
            if median_target:
                row.update(median_target=median_target, median_met=row["median_item_bytes"] <= median_target)
        rows.append(row)
    rows.append({"what": "tools/list", "bytes": list_bytes, "tokens_est": round(list_bytes * TOKENS_PER_BYTE),
                 "target_bytes": TOOLS_LIST_TARGET, "met": list_bytes <= TOOLS_LIST_TARGET})
    repo, number = ctx.ref.split("#")[0], ctx.ref.split("#")[1]
    # GitHub's MCP server answers with GitHub's REST objects: review comments and conversation comments (the
    # feedback), an Actions job (per failed check; its log is separate), the pull request (merge state)
    rest = [_rest_per_item(ctx, gh, f"repos/{repo}/pulls/{number}/comments?per_page=100"),
            _rest_per_item(ctx, gh, f"repos/{repo}/issues/{number}/comments?per_page=100"),
            *([_rest_per_item(ctx, gh, f"repos/{repo}/actions/jobs/{job_ids[0]}")] if job_ids else []),
            _rest_per_item(ctx, gh, f"repos/{repo}/pulls/{number}")]
    return {"rows": rows, "github_rest": rest, "tokens_per_byte": TOKENS_PER_BYTE}


def report_rows(budget: dict[str, Any]) -> list[tuple[str, ...]]:
    from bench.report import _yes

    out = []
    for r in budget.get("rows", []):
        median = (f"; median item {r['median_item_bytes']:,} B" if "median_item_bytes" in r and "median_target" not in r
                  else "")
        out.append(("5b", "context budget", r["what"], f"{r['bytes']:,} B ≈ {r['tokens_est']:,} tokens{median}",
                    "", "", f"≤ {r['target_bytes'] // KIB} KiB", _yes(r["met"])))
        if "median_target" in r:  # a target of its own: its own row and verdict
            out.append(("5b", "context budget", f"{r['what'].replace(' page 1', '')}: median item of page 1",
                        f"{r['median_item_bytes']:,} B over {r['items']} items", "", "", f"≤ {r['median_target']} B",
                        _yes(r["median_met"])))
    for r in budget.get("github_rest", []):
        value = f"{r['bytes_per_item']:,} B/item over {r['items']}" if r["status"] == "ok" else r["status"]
        out.append(("5b", "GitHub REST shape", r["path"], value, "", "", "—", "—"))
    return out
