"""The summary table (terminal and Markdown) built from a results.json document."""

from __future__ import annotations

from typing import Any

HEADER = ("#", "figure", "case", "measured", "floor / baseline", "ratio", "target", "met")


def _yes(met: bool | None) -> str:
    return "—" if met is None else ("yes" if met else "**NO**")


def _s(x: float) -> str:
    return f"{x:.2f} s" if x >= 0.1 else f"{x * 1000:.0f} ms"


def rows(res: dict[str, Any]) -> list[tuple[str, ...]]:
    fig = res["figures"]
    out: list[tuple[str, ...]] = []
    for r in fig.get("round_trips", []):
        if r["status"] not in ("ok", "info", "error"):
            out.append(("1", "round trips", r["case"], r["status"], "", "", "", ""))
            continue
        ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "—"
        target = "—" if r.get("target") is None else (f"{r['target']}" if r["target"] == 0 else f"{r['target']:.1f}×")
        out.append(("1", "round trips", r["case"], f"{r['requests']} requests", f"{r['floor']}", ratio, target,
                    _yes(r.get("met"))))
    for r in fig.get("latency", []):
        if r["status"] != "ok":
            out.append(("2", "latency", r["case"], r["status"], "", "", "", ""))
            continue
        out.append(("2", f"latency @{r['latency_ms']:g} ms", r["case"],
                    f"{_s(r['wall_s']['median'])}; critical path {r['critical_path_observed']} RT",
                    f"{_s(r['floor_s'])} = {r['critical_path_floor']} RT × {r['latency_ms']:g} ms + "
                    f"{_s(r['local_overhead_s']['median'])} local", f"{r['ratio']:.2f}×", f"≤ {r['target']}×",
                    _yes(r["met"])))
    logs = fig.get("log_throughput") or {}
    floor = next((r for r in logs.get("rows", []) if r.get("role") == "floor" and r["status"] == "ok"), None)
    for r in logs.get("rows", []):
        label = f"{r.get('tool') or 'grep -c'} on {logs['log']['mb']:g} MB"
        if r["status"] != "ok":
            out.append(("3", "log throughput", label, r["status"],
                        f"grep -c: {floor['mb_per_s']:g} MB/s" if floor else "", "", "≥ 50 MB/s, < 150 MB", ""))
            continue
        measured = f"{r['mb_per_s']:g} MB/s, {r['peak_rss_mb']:g} MB RSS"
        if r.get("role") == "floor":
            out.append(("3", "log throughput", f"{label} (floor)", measured, "", "", "", ""))
        else:
            ratio = f"{r['mb_per_s'] / floor['mb_per_s']:.2f}× of grep" if floor else ""
            out.append(("3", "log throughput", f"{label}; found {r['found']}", measured,
                        f"{floor['mb_per_s']:g} MB/s" if floor else "", ratio, "≥ 50 MB/s, < 150 MB",
                        _yes(r.get("met"))))
    st = fig.get("startup") or {}
    by_name = {r["name"]: r for r in st.get("rows", [])}
    for r in st.get("rows", []):
        if r["status"] != "ok":
            out.append(("4", "start-up", r["command"], r["status"], "", "", "", ""))
            continue
        base = by_name.get(r.get("baseline") or "")
        wall = f"{_s(r['wall_s']['median'])} (min {_s(r['wall_s']['min'])})"
        rss = f", {r['peak_rss_mb']:g} MB" if r.get("peak_rss_mb") else ""
        out.append(("4", "start-up", r["command"], wall + rss,
                    f"{_s(base['wall_s']['median'])} (min {_s(base['wall_s']['min'])}; {base['name']})" if base else "",
                    f"{r['ratio']:.2f}×" if r.get("ratio") else "", "—", "—"))
    for r in fig.get("output_size", []):
        if r["status"] != "ok":
            out.append(("5", "output size", r["case"], r["status"], "", "", "", ""))
            continue
        mcp = r.get("mcp")
        extra = (f"; MCP tools/call response = {mcp['response_bytes'] / mcp['structured_bytes']:.1f}× the "
                 "structuredContent (text fallback repeats it)" if mcp and mcp.get("structured_bytes") else "")
        out.append(("5", "output size", f"{r['case']} (detail {r['detail']})",
                    f"{r['bytes_per_item']:,} B/item over {r['items']} items{extra}", "", "", "—", "—"))
    if fig.get("context_budget"):
        from bench.budget import report_rows

        out += report_rows(fig["context_budget"])
    for r in fig.get("gh_reference", []):
        if r["status"] != "ok":
            out.append(("6", "gh reference", r["command"], r["status"], "", "", "", ""))
            continue
        per = f", {r['bytes_per_item']:,} B/item" if r.get("bytes_per_item") else ""
        out.append(("6", "gh reference", r["command"],
                    f"{r['requests']} requests, {_s(r['wall_s']['median'])} @{r['latency_ms']:g} ms{per}",
                    "", "", "—", "—"))
    return out


def markdown(res: dict[str, Any]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows(res)]
    return "\n".join(lines) + "\n"


def text(res: dict[str, Any]) -> str:
    table = [HEADER, *rows(res)]
    widths = [min(max(len(r[i]) for r in table), 60) for i in range(len(HEADER))]
    out = []
    for n, row in enumerate(table):
        cells = [c.replace("**", "") for c in row]
        out.append("  ".join(c.ljust(w) if len(c) <= w else c for c, w in zip(cells, widths, strict=True)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def machine_line(res: dict[str, Any]) -> str:
    m = res["machine"]
    return (f"{m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB, {m['os']}; Python {m['python']}, "
            f"gh {m['gh']}, git {m['git']}; size {res['size']}, {res['duration_s']:.0f} s; load average "
            f"{m.get('load_average_at_start', ['?'])[0]} at start, {m.get('load_average_at_end', ['?'])[0]} at end")
