"""`scripts/mutation map`: run tests under coverage with one context per test, keep {file: {line: [tests]}}."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import orjson

from tests.mutation.covmap import BOOT, BOOT_VAR, CONTEXT_VAR, DIR_VAR, PTH_LINE, PTH_NAME

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".mutation"
MAP = STATE / "map.json"


def install_pth() -> Path:
    """The inert start-up hook for child processes (does nothing unless PR_AGENT_COV_BOOT is set)."""
    pth = Path(sysconfig.get_paths()["purelib"]) / PTH_NAME
    if not pth.exists() or pth.read_text() != PTH_LINE:
        pth.write_text(PTH_LINE)
    return pth


def build(pytest_args: list[str], workers: str, out: Path = MAP) -> dict[str, Any]:
    install_pth()
    data_dir = STATE / "cov"
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    env = {**os.environ, DIR_VAR: str(data_dir), BOOT_VAR: str(BOOT)}
    env.pop(CONTEXT_VAR, None)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "tests.mutation.covmap", "-p", "no:cacheprovider",
            "-n", workers, *pytest_args]
    proc = subprocess.run(argv, cwd=ROOT, env=env, check=False)
    import coverage

    cov = coverage.Coverage(data_file=str(data_dir / ".coverage"), config_file=False)
    cov.combine([str(data_dir)], keep=False)
    data = cov.get_data()
    lines: dict[str, dict[str, list[str]]] = {}
    for path in sorted(data.measured_files()):
        rel = os.path.relpath(path, ROOT)
        if not rel.startswith("pr_agent" + os.sep):
            continue
        by_line = data.contexts_by_lineno(path)
        lines[rel] = {str(n): sorted(c for c in ctxs if c) for n, ctxs in sorted(by_line.items())}
    result = {"pytest_args": pytest_args, "exit": proc.returncode, "lines": lines}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(result))
    tests = {t for f in lines.values() for ts in f.values() for t in ts}
    print(f"map: {sum(len(f) for f in lines.values())} lines in {len(lines)} files, {len(tests)} tests "
          f"(pytest exit {proc.returncode}) -> {os.path.relpath(out, ROOT)}")
    return result


def load(path: Path = MAP) -> dict[str, Any]:
    if not path.exists():
        raise SystemExit(f"mutation: no coverage map {path} yet; run `scripts/mutation map` first")
    return orjson.loads(path.read_bytes())
