"""`scripts/mutation run`: apply each mutant in place, run the tests that execute its lines, restore.

In place, because the e2e tests run our CLI in subprocesses (through gh) that import ``pr_agent`` from the
work tree: a copied package (mutmut's way) would be invisible to them. The original text is written back
in ``finally`` and kept in ``.mutation/backup/`` until then, so an interrupted run is repaired by the next.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from tests.mutation.mapping import ROOT, STATE, load
from tests.mutation.mutants import Mutant, mutants

EQUIVALENT = Path(__file__).with_name("equivalent.txt")
BACKUP = STATE / "backup"


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


def _run_one(path: Path, original: str, m: Mutant, tests: list[str], timeout: float) -> str:
    path.write_text(m.source)
    _drop_pyc(path)
    with tempfile.NamedTemporaryFile("w", suffix=".args", delete=False) as f:
        f.write("\n".join(tests))
    try:
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        argv = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                "--no-header", "-o", "addopts=", f"@{f.name}"]
        try:
            proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return "killed (timeout)"
        return {0: "survived", 1: "killed"}.get(proc.returncode, f"error (pytest exit {proc.returncode})")
    finally:
        os.unlink(f.name)
        path.write_text(original)
        _drop_pyc(path)


def run(modules: list[str], *, sample: int, seed: int, timeout: float, list_only: bool) -> int:
    restore_backups()
    lines = load()["lines"]
    eq = equivalents()
    STATE.mkdir(exist_ok=True)
    for module in modules:
        path = ROOT / module
        original = path.read_text()
        found = mutants(module, original)
        chosen = random.Random(seed).sample(found, sample) if 0 < sample < len(found) else found
        chosen.sort(key=lambda m: m.line)
        if list_only:
            for m in chosen:
                print(f"{m.id} {module}:{m.line} {m.func} {m.op}: {m.before} => {m.after}")
            continue
        backup = BACKUP / module
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, backup)
        results: list[dict[str, object]] = []
        started = time.monotonic()
        try:
            for m in chosen:
                if m.id in eq:
                    status = "equivalent"
                else:
                    tests = _tests_for(m, lines.get(module, {}))
                    status = _run_one(path, original, m, tests, timeout) if tests else "survived (no test runs it)"
                results.append({"id": m.id, "line": m.line, "func": m.func, "op": m.op, "before": m.before,
                                "after": m.after, "status": status})
                if status.startswith("survived") or status.startswith("error"):
                    print(f"  {status}: {m.id} {module}:{m.line} {m.func} {m.op}: {m.before} => {m.after}")
        finally:
            path.write_text(original)
            _drop_pyc(path)
            backup.unlink(missing_ok=True)
        counted = [r for r in results if r["status"] != "equivalent" and not str(r["status"]).startswith("error")]
        killed = sum(str(r["status"]).startswith("killed") for r in counted)
        score = 100 * killed / len(counted) if counted else 100.0
        summary = {"module": module, "mutants": len(found), "sampled": len(chosen), "seed": seed,
                   "killed": killed, "counted": len(counted), "score": round(score, 1),
                   "seconds": round(time.monotonic() - started), "results": results}
        out = STATE / "results" / (module.replace("/", "_") + ".json")
        out.parent.mkdir(exist_ok=True)
        out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
        print(f"{module}: {killed}/{len(counted)} killed = {score:.1f}% ({len(chosen)} of {len(found)} mutants, "
              f"seed {seed}, {summary['seconds']} s)")
    return 0
