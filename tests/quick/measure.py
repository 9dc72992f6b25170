"""Run pytest under coverage with one context per test item (subprocesses included, as `scripts/mutation map`
does: tests/mutation/covmap.py) and keep ``{"lines": {file: {line: [node ids]}}, "durations": {node id: s}}``.

Measurements live in ``.quick/`` (not committed): one file per named part of the suite, so a long measurement
can be made in parts and a part re-measured alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson

from tests.mutation.covmap import BOOT, BOOT_VAR, CONTEXT_VAR, DIR_VAR
from tests.mutation.mapping import install_pth

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".quick"


def _durations(junit: Path) -> dict[str, float]:
    """node id -> seconds, from pytest's JUnit XML (classname 'tests.e2e.test_x', name 'test_y[param]')."""
    out: dict[str, float] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        # the module path ends where the file exists; the rest are classes
        for cut in range(len(parts), 0, -1):
            path = Path(*parts[:cut]).with_suffix(".py")
            if (ROOT / path).is_file():
                node = "::".join([path.as_posix(), *parts[cut:], case.get("name", "")])
                out[node] = out.get(node, 0.0) + float(case.get("time") or 0)
                break
    return out


def measure(part: str, pytest_args: list[str], workers: str = "2", state: Path = STATE) -> dict[str, Any]:
    install_pth()
    data_dir = state / f"cov-{part}"
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    junit = data_dir / "junit.xml"
    env = {**os.environ, DIR_VAR: str(data_dir), BOOT_VAR: str(BOOT)}
    env.pop(CONTEXT_VAR, None)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "tests.mutation.covmap", "-p", "no:cacheprovider",
            "-n", workers, f"--junitxml={junit}", *pytest_args]
    proc = subprocess.run(argv, cwd=ROOT, env=env, check=False)
    return collect(part, data_dir, pytest_args, proc.returncode, state)


def collect(part: str, data_dir: Path, pytest_args: list[str], exit_code: int | None,
            state: Path = STATE) -> dict[str, Any]:
    """Combine the coverage files in ``data_dir`` into ``state/PART.json``. Also for an interrupted measurement
    (``exit_code`` None): what its subprocesses saved is kept, with the items' ids as contexts."""
    import coverage

    junit = data_dir / "junit.xml"
    cov = coverage.Coverage(data_file=str(data_dir / ".coverage"), config_file=False)
    cov.combine([str(data_dir)], keep=True)
    data = cov.get_data()
    lines: dict[str, dict[str, list[str]]] = {}
    for path in sorted(data.measured_files()):
        rel = os.path.relpath(path, ROOT)
        if rel.startswith("pr_agent" + os.sep):
            by_line = data.contexts_by_lineno(path)
            lines[rel] = {str(n): sorted(c for c in ctxs if c and c != "between")
                          for n, ctxs in sorted(by_line.items())}
    items = {c for f in lines.values() for cs in f.values() for c in cs}
    # an interrupted run wrote no JUnit XML: its items' durations are unknown (select assumes 5 s)
    result = {"part": part, "pytest_args": pytest_args, "exit": exit_code, "lines": lines, "items": len(items),
              "durations": _durations(junit) if junit.exists() else {}}
    (state / f"{part}.json").write_bytes(orjson.dumps(result))
    print(f"quick: part {part}: {sum(len(f) for f in lines.values())} lines of pr_agent, "
          f"{len(items)} items with lines (pytest exit {exit_code})")
    return result

if __name__ == "__main__":  # one part by hand: python -m tests.quick.measure PART PYTEST_ARGS…
    measure(sys.argv[1], sys.argv[2:])
