"""Figure 4: start-up. The CLI beside ``python -c 'import click'``; ``gh pr-agent`` (the installed gh
extension) beside ``gh --version``; MCP spawn-to-first-``tools/list`` beside a bare low-level SDK server
with one tool. Plus the imports that dominate, and parse-review's in-process throughput."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from bench import mcp_client
from bench.harness import PYTHON, ROOT, Stats, run_process, stats, time_command

BARE_MCP = ROOT / "bench" / "bare_mcp_server.py"


def _env(workdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "GITHUB_"))}
    env.update(PYTHONPATH=str(ROOT), GH_PR_AGENT_CONFIG_DIR=str(workdir / "cfg"), GH_NO_UPDATE_NOTIFIER="1",
               GH_TOKEN="bench-not-used", **extra)
    return env


def _agent_cmd() -> list[str]:
    script = Path(PYTHON).parent / "gh-pr-agent"
    return [str(script)] if script.exists() else [PYTHON, "-m", "pr_agent"]


def _install_extension(gh: str, workdir: Path) -> tuple[dict[str, str] | None, str]:
    """Install this checkout as a gh extension in a private gh config (a symlink, no copy); the launcher
    is pointed at the current venv (GH_PR_AGENT_VENV), as `scripts/demo` does, so no bootstrap runs."""
    ext = workdir / "ext" / "gh-pr-agent"
    ext.parent.mkdir(parents=True, exist_ok=True)
    if not ext.exists():
        ext.symlink_to(ROOT, target_is_directory=True)
    env = _env(workdir, GH_CONFIG_DIR=str(workdir / "ghcfg"), XDG_DATA_HOME=str(workdir / "data"),
               GH_PR_AGENT_VENV=str(Path(PYTHON).parent.parent), PWD=str(ext))
    proc = subprocess.run([gh, "extension", "install", "."], cwd=ext, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    if proc.returncode != 0 and "already installed" not in proc.stderr:
        return None, proc.stderr.strip()[:200]
    env.pop("PWD")
    return env, ""


def _row(name: str, command: str, wall: Stats, rss: Stats | None, baseline: str | None) -> dict[str, Any]:
    return {"name": name, "command": command, "status": "ok", "wall_s": wall.to_dict(),
            "peak_rss_mb": round(rss.median, 1) if rss else None, "baseline": baseline}


def startup(gh: str, workdir: Path, runs: int, mcp_runs: int, warmup: int, parse_rounds: int = 5) -> dict[str, Any]:
    env = _env(workdir)
    agent = _agent_cmd()
    shown = "gh-pr-agent" if len(agent) == 1 else "python -m pr_agent"
    rows: list[dict[str, Any]] = []

    def cmd(name: str, argv: list[str], command: str, baseline: str | None, e: dict[str, str] = env) -> None:
        try:
            wall, rss, _ = time_command(argv, runs, warmup, env=e)
        except RuntimeError as exc:
            rows.append({"name": name, "command": command, "status": f"error: {str(exc)[-200:]}"})
            return
        rows.append(_row(name, command, wall, rss, baseline))

    cmd("python", [PYTHON, "-c", "pass"], "python -c pass", None)
    cmd("import click", [PYTHON, "-c", "import click"], "python -c 'import click'", None)
    cmd("--help", [*agent, "--help"], f"{shown} --help", "import click")
    cmd("--version", [*agent, "--version"], f"{shown} --version", "import click")
    cmd("config list", [*agent, "config", "list"], f"{shown} config list (trivial command)", "import click")
    body = _largest_review_body()
    cmd("parse-review", [*agent, "parse-review", str(body), "--json"],
        f"{shown} parse-review {body.relative_to(ROOT)} --json ({body.stat().st_size // 1024} KB)", "import click")
    cmd("gh --version", [gh, "--version"], "gh --version", None)
    ext_env, why = _install_extension(gh, workdir)
    if ext_env is not None:
        cmd("gh pr-agent --help", [gh, "pr-agent", "--help"], "gh pr-agent --help (installed extension)",
            "gh --version", ext_env)
    else:
        rows.append({"name": "gh pr-agent --help", "command": "gh pr-agent --help", "status": f"n/a: {why}"})

    def mcp(name: str, argv: list[str], command: str, baseline: str | None, e: dict[str, str] = env) -> None:
        try:
            sessions = [mcp_client.session(argv, e, timeout=60) for _ in range(warmup + mcp_runs)][warmup:]
        except (OSError, RuntimeError, TimeoutError, KeyError, ValueError) as exc:
            rows.append({"name": name, "command": command, "status": f"error: {exc}"[:240]})
            return
        rows.append({**_row(name, command, stats([s.spawn_to_tools_list_s for s in sessions]),
                            stats([s.max_rss_mb for s in sessions]), baseline),
                     "tools": len(sessions[0].tools)})

    mcp("bare MCP server", [PYTHON, str(BARE_MCP)], "python bench/bare_mcp_server.py → tools/list", None)
    mcp("mcp", [*agent, "mcp"], f"{shown} mcp → tools/list", "bare MCP server")
    if ext_env is not None:
        mcp("gh pr-agent mcp", [gh, "pr-agent", "mcp"], "gh pr-agent mcp → tools/list", "bare MCP server", ext_env)
    by_name = {r["name"]: r for r in rows}
    for r in rows:
        base = by_name.get(r.get("baseline") or "")
        if base and r.get("status") == "ok" and base.get("status") == "ok":
            r["ratio"] = round(r["wall_s"]["median"] / base["wall_s"]["median"], 2)
    return {"rows": rows, "imports": {"--version": top_imports([*agent, "--version"], env),
                                      "mcp": top_imports([*agent, "mcp"], env, stdin=b"")},
            "parse_review_in_process": parse_review_throughput(parse_rounds)}


def _largest_review_body() -> Path:
    return sorted((p for p in (ROOT / "fixtures" / "reviews").rglob("*.md") if p.name != "README.md"),
                  key=lambda p: p.stat().st_size)[-1]


def top_imports(argv: list[str], env: dict[str, str], stdin: bytes = b"", n: int = 8) -> list[dict[str, Any]]:
    """Import time by top-level package (sum of ``python -X importtime`` self times), slowest first."""
    run = run_process(argv, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, stdin=stdin, timeout=120)
    total: dict[str, int] = {}
    for line in run.stderr.decode("utf-8", "replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \| *(\S+)", line)
        if m:
            pkg = m[2].split(".")[0]
            total[pkg] = total.get(pkg, 0) + int(m[1])
    top = sorted(total.items(), key=lambda kv: -kv[1])[:n]
    return [{"package": k, "self_ms": round(v / 1000, 1)} for k, v in top]


_THROUGHPUT = """
import json, sys, time
from pathlib import Path
from pr_agent.review.bots import parse_review_body
bodies = [(p, p.read_bytes().decode("utf-8", "replace")) for p in sorted(Path(sys.argv[1]).rglob("*.md"))
          if p.name != "README.md"]
rounds, items = int(sys.argv[2]), 0
start = time.perf_counter()
for _ in range(rounds):
    for p, b in bodies:
        items += len(parse_review_body(b, None).items)
el = time.perf_counter() - start
size = sum(len(b.encode()) for _, b in bodies)
print(json.dumps({"bodies": len(bodies), "kb": round(size / 1024, 1), "rounds": rounds,
                  "ms_per_body": round(el / rounds / len(bodies) * 1000, 3),
                  "mb_per_s": round(size * rounds / el / 1e6, 2), "items_per_round": items // rounds}))
"""


def parse_review_throughput(rounds: int = 5) -> dict[str, Any]:
    run = run_process([PYTHON, "-c", _THROUGHPUT, str(ROOT / "fixtures" / "reviews"), str(rounds)],
                      env={**os.environ, "PYTHONPATH": str(ROOT)})
    if run.returncode != 0:
        return {"status": f"error: {run.stderr.decode()[-300:]}"}
    return {"status": "ok", **json.loads(run.stdout)}
