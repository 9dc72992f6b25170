"""`scripts/mutation run`: apply each mutant in place, run the tests that execute its lines, restore.

In place, because the e2e tests run our CLI in subprocesses (through gh) that import ``pr_agent`` from the
work tree: a copied package (mutmut's way) would be invisible to them. The original text is written back
in ``finally`` and kept in ``.mutation/backup/`` until then, so an interrupted run is repaired by the next.

On a loaded machine a timeout is not a kill to trust: first every test the chosen mutants need runs once
unmutated (the baseline: it must pass, and each item's time is kept); a mutant's timeout is then
``FACTOR`` times its tests' baseline plus ``SLACK`` seconds. A mutant that times out is run once more; if it
times out again it is reported as a timeout, apart from kills and survivors and outside the score.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from tests.mutation.mapping import MAP, ROOT, STATE, load
from tests.mutation.mutants import Mutant, mutants
from tests.mutation.timing import TIMES_VAR

EQUIVALENT = Path(__file__).with_name("equivalent.txt")
BACKUP = STATE / "backup"
FACTOR, SLACK = 5.0, 30.0
PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header", "-o", "addopts="]


def equivalents() -> dict[str, str]:
    """Reviewed equivalent mutants: `id  module  # why` per line."""
    out: dict[str, str] = {}
    for raw in EQUIVALENT.read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            ident, _, rest = line.partition(" ")
            out[ident] = rest.strip()
    return out


def restore_backups() -> None:
    for saved in BACKUP.glob("**/*.py") if BACKUP.exists() else []:
        target = ROOT / saved.relative_to(BACKUP)
        shutil.copyfile(saved, target)
        saved.unlink()
        print(f"mutation: restored {target.relative_to(ROOT)} from an interrupted run", file=sys.stderr)


def _drop_pyc(module: Path) -> None:
    for pyc in (module.parent / "__pycache__").glob(module.stem + ".*.pyc"):
        pyc.unlink(missing_ok=True)


def _tests_for(m: Mutant, by_line: dict[str, list[str]]) -> list[str]:
    tests = {t for n in range(m.line, m.end_line + 1) for t in by_line.get(str(n), [])}
    return sorted(tests, key=lambda t: (not t.startswith("tests/unit/"), t))  # fast unit tests first


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "GH_PR_AGENT_TEST_GH": "new"}


def _pytest(tests: list[str], extra: list[str], timeout: float | None, env: dict[str, str]) -> int | None:
    """pytest's exit code on these node ids, or None when it ran out of time."""
    with tempfile.NamedTemporaryFile("w", suffix=".args", delete=False) as f:
        f.write("\n".join(tests))
    try:
        argv = [sys.executable, *PYTEST, *extra, f"@{f.name}"]
        try:
            return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=timeout,
                                  check=False).returncode
        except subprocess.TimeoutExpired:
            return None
    finally:
        os.unlink(f.name)


@dataclass
class Baseline:
    """The unmutated run of every test the chosen mutants need: who passed, how long each took."""

    seconds: dict[str, float]  # passing items only
    failing: list[str]
    startup: float  # a pytest start, measured as wall time not spent in items

    def timeout(self, tests: list[str]) -> float:
        return FACTOR * (self.startup + sum(self.seconds.get(t, 0.0) for t in tests)) + SLACK


def baseline(tests: list[str]) -> Baseline:
    if not tests:
        return Baseline({}, [], 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "times.json"
        started = time.monotonic()
        _pytest(tests, ["-p", "tests.mutation.timing"], None, {**_env(), TIMES_VAR: str(out)})
        wall = time.monotonic() - started
        items = orjson.loads(out.read_bytes()) if out.exists() else {}
    passed = {t: float(v["seconds"]) for t, v in items.items() if v["passed"]}
    failing = sorted(t for t in tests if t not in passed)
    return Baseline(passed, failing, max(wall - sum(float(v["seconds"]) for v in items.values()), 1.0))


def _run_one(path: Path, original: str, m: Mutant, tests: list[str], timeout: float) -> str:
    path.write_text(m.source)
    _drop_pyc(path)
    try:
        for _attempt in range(2):  # a timeout is tried once more: under load it may be the machine, not the mutant
            code = _pytest(tests, ["-x"], timeout, _env())
            if code is not None:
                return {0: "survived", 1: "killed"}.get(code, f"error (pytest exit {code})")
        return "timeout"
    finally:
        path.write_text(original)
        _drop_pyc(path)


def _counted(status: str) -> bool:
    return status != "equivalent" and status != "timeout" and not status.startswith("error")


def _collect(paths: list[str]) -> list[str]:
    """The node ids pytest collects from `paths` (files, or node ids), newest gh only as the runs use."""
    if not paths:
        return []
    proc = subprocess.run([sys.executable, *PYTEST, "--collect-only", *paths], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, check=False)
    return [line for line in proc.stdout.splitlines() if "::" in line and not line.startswith(" ")]


def run(modules: list[str], *, sample: int, seed: int, timeout: float, list_only: bool,
        map_path: Path = MAP, also: list[str] | None = None, survivors_only: bool = False) -> int:
    restore_backups()
    cov_map = {"lines": {}} if list_only else load(map_path)
    lines, pytest_args = cov_map["lines"], cov_map.get("pytest_args", [])
    # tests written after the map was built: run for every mutant (a test that does not execute a line cannot
    # notice its mutant, so this only saves rebuilding the map)
    extra = [] if list_only else _collect(also or [])
    pytest_args = [*pytest_args, *(["--also", *(also or [])] if also else [])]
    eq = equivalents()
    STATE.mkdir(exist_ok=True)
    for module in modules:
        path = ROOT / module
        original = path.read_text()
        found = mutants(module, original)
        chosen = random.Random(seed).sample(found, sample) if 0 < sample < len(found) else found
        chosen.sort(key=lambda m: m.line)
        out = STATE / "results" / (module.replace("/", "_") + ".json")
        kept: dict[str, dict[str, object]] = {}
        if survivors_only and out.exists():  # killed stays killed while the module's code is unchanged
            previous = orjson.loads(out.read_bytes())
            if previous.get("seed") == seed and previous.get("sampled") == len(chosen):
                kept = {str(r["id"]): r for r in previous["results"] if str(r["status"]).startswith("killed")}
        if list_only:
            for m in chosen:
                print(f"{m.id} {module}:{m.line} {m.func} {m.op}: {m.before} => {m.after}")
            continue
        started = time.monotonic()
        by_line = {n: [*ts, *extra] for n, ts in lines.get(module, {}).items()}
        needed = sorted({t for m in chosen if m.id not in eq and m.id not in kept for t in _tests_for(m, by_line)}
                        | set(extra),
                        key=lambda t: (not t.startswith("tests/unit/"), t))
        base = baseline(needed)
        if base.failing:
            print(f"  {len(base.failing)} test(s) fail unmutated and are left out, e.g. {base.failing[0]}")
        backup = BACKUP / module
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, backup)
        results: list[dict[str, object]] = []
        try:
            for m in chosen:
                if m.id in kept:
                    results.append(kept[m.id])
                    continue
                tests = [t for t in _tests_for(m, by_line) or extra if t in base.seconds]
                limit = min(timeout, base.timeout(tests))
                if m.id in eq:
                    status = "equivalent"
                else:
                    status = _run_one(path, original, m, tests, limit) if tests else "survived (no test runs it)"
                results.append({"id": m.id, "line": m.line, "func": m.func, "op": m.op, "before": m.before,
                                "after": m.after, "status": status, "tests": len(tests),
                                "timeout": round(limit)})
                if not status.startswith("killed") and status != "equivalent":
                    print(f"  {status}: {m.id} {module}:{m.line} {m.func} {m.op}: {m.before} => {m.after}")
        finally:
            path.write_text(original)
            _drop_pyc(path)
            backup.unlink(missing_ok=True)
        counted = [r for r in results if _counted(str(r["status"]))]
        killed = sum(str(r["status"]).startswith("killed") for r in counted)
        score = 100 * killed / len(counted) if counted else 100.0
        summary = {"module": module, "mutants": len(found), "sampled": len(chosen), "seed": seed,
                   "killed": killed, "counted": len(counted), "score": round(score, 1),
                   "equivalent": sum(r["status"] == "equivalent" for r in results),
                   "timeouts": sum(r["status"] == "timeout" for r in results),
                   "errors": sum(str(r["status"]).startswith("error") for r in results),
                   "baseline_failing": base.failing, "map": os.path.relpath(map_path, ROOT), "map_args": pytest_args,
                   "seconds": round(time.monotonic() - started), "results": results}
        summary["rerun_of_survivors"] = bool(kept)
        out.parent.mkdir(exist_ok=True)
        out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
        print(f"{module}: {killed}/{len(counted)} killed = {score:.1f}% ({len(chosen)} of {len(found)} mutants, "
              f"seed {seed}; {summary['equivalent']} equivalent, {summary['timeouts']} timeouts, "
              f"{summary['errors']} errors; {summary['seconds']} s)")
    return 0
