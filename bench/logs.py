"""Figure 3: log throughput. Each LOG_TOOLS entry on a generated raw Actions log, beside ``grep -c`` on the
same file (the floor: read every byte once and match lines). Targets: >= 50 MB/s, peak RSS < 150 MB."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from bench import gen_log
from bench.cases import LOG_TOOLS
from bench.harness import PYTHON, ROOT, run_process, time_command

TARGET_MBPS = 50.0
TARGET_RSS_MB = 150.0
GREP_PATTERN = r"FAIL|##\[error\]"


def cli_available(command: str) -> bool:
    run = run_process([PYTHON, "-m", "pr_agent", command, "--help"], env=_env())
    return run.returncode == 0


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def log_throughput(cache: Path, mb: float, runs: int, warmup: int) -> dict[str, Any]:
    path, expected = gen_log.cached(cache, mb)
    size_mb = path.stat().st_size / 1e6
    out: dict[str, Any] = {"log": {"path": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
                                   "mb": round(size_mb, 1), "lines": expected["lines"],
                                   "injected_failures": len(expected["failures"]),
                                   "generator": f"python -m bench.gen_log OUT --mb {mb:g}"},
                           "target_mb_per_s": TARGET_MBPS, "target_peak_rss_mb": TARGET_RSS_MB, "rows": []}
    grep = shutil.which("grep")
    if grep:
        argv = [grep, "-c", "-E", GREP_PATTERN, str(path)]
        wall, rss, last = time_command(argv, runs, warmup, check=False)
        out["rows"].append({"command": f"grep -c -E '{GREP_PATTERN}' LOG", "role": "floor", "status": "ok",
                            "wall_s": wall.to_dict(), "mb_per_s": round(size_mb / wall.median, 1),
                            "peak_rss_mb": round(rss.median, 1), "matches": int(last.stdout.strip() or 0)})
    for tool in LOG_TOOLS:
        row: dict[str, Any] = {"command": f"gh-pr-agent {' '.join(tool.argv(Path('LOG')))}", "role": "tool",
                               "tool": tool.id}
        if not cli_available(tool.cli):
            row["status"] = f"not yet available (no `gh-pr-agent {tool.cli}` command yet)"
            out["rows"].append(row)
            continue
        argv = [PYTHON, "-m", "pr_agent", *tool.argv(path)]
        try:
            wall, rss, last = time_command(argv, runs, warmup, env=_env(), check=False)
        except Exception as exc:  # a crash is a result here, not a benchmark failure
            row["status"] = f"error: {exc}"
            out["rows"].append(row)
            continue
        mbps = size_mb / wall.median
        row.update({"status": "ok" if last.returncode in (0, 1) else f"exit {last.returncode}",
                    "exit_code": last.returncode, "wall_s": wall.to_dict(), "mb_per_s": round(mbps, 1),
                    "peak_rss_mb": round(rss.median, 1),
                    "met": mbps >= TARGET_MBPS and rss.max < TARGET_RSS_MB,
                    "found": _found(last.stdout, expected, tool.failures_key, tool.test_name_key)})
        out["rows"].append(row)
    return out


def _found(stdout: bytes, expected: dict[str, Any], key: str, name_key: str) -> str:
    """How many injected failures the tool reported, e.g. "3/3"."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return "output is not JSON"
    items = doc.get(key) if isinstance(doc, dict) else None
    names = {str(f.get(name_key, "")) for f in items or [] if isinstance(f, dict)}
    hit = sum(any(f["test_name"] in n or n in f["test_name"] for n in names if n) for f in expected["failures"])
    return f"{hit}/{len(expected['failures'])}"
