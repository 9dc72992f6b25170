"""Command line of the quick subset (scripts/quick-subset; tests/quick/README.md).

  measure [PART]   measure the whole suite under coverage, in parts (unit, e2e-new, rest-new, old), into .quick/
  select           choose the end-to-end items from that measurement; writes tests/quick/selection.json
  check [--run]    the share of the full suite's lines the recorded subset executes (from the measurement; with
                   --run, from a real quick run under coverage, and the quick run's wall time without coverage)
  items            the recorded items, one per line (scripts/test --quick reads them)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from tests.quick import measure, select

PARTS: dict[str, tuple[dict[str, str], list[str]]] = {
    "unit": ({}, ["tests/unit"]),
    "e2e-new": ({"GH_PR_AGENT_TEST_GH": "new"}, ["tests/e2e"]),
    "rest-new": ({"GH_PR_AGENT_TEST_GH": "new"},
                 ["tests/safety", "tests/fakehub", "tests/perf", "tests/test_bench_docs.py",
                  "tests/test_bench_smoke.py"]),
    "old": ({"GH_PR_AGENT_TEST_GH": "old"}, ["-k", "gh2.23", "tests/e2e", "tests/safety", "tests/fakehub"]),
}
WALL_LIMIT_S = 60


def quick_args() -> list[str]:
    return ["tests/unit", *select.recorded()["items"]]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/quick-subset")
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("parts", nargs="*", help=f"some of {', '.join(PARTS)} (default: all)")
    sub.add_parser("select")
    c = sub.add_parser("check")
    c.add_argument("--run", action="store_true")
    sub.add_parser("items")
    args = parser.parse_args(argv)
    if args.cmd == "measure":
        unknown = [p for p in args.parts if p not in PARTS]
        if unknown:
            parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
        for part in args.parts or list(PARTS):
            env, pytest_args = PARTS[part]
            os.environ.update(env)
            measure.measure(part, pytest_args)
            for key in env:
                os.environ.pop(key)
        return 0
    if args.cmd == "select":
        select.select()
        return 0
    if args.cmd == "items":
        print("\n".join(select.recorded()["items"]))
        return 0
    ok = select.check() >= select.TARGET
    if args.run:
        # the selection names items of both gh binaries (it was measured with both): collect them all, as
        # scripts/test --quick does
        os.environ.setdefault("GH_PR_AGENT_TEST_GH", "all")
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                               *quick_args()], cwd=select.ROOT, check=False)
        wall = time.monotonic() - start
        print(f"quick: the quick run took {wall:.0f} s (limit {WALL_LIMIT_S} s; pytest exit {proc.returncode})")
        part = measure.measure("quick", quick_args(), state=select.STATE / "run")
        ok = select.check(part) >= select.TARGET and ok and proc.returncode == 0 and wall <= WALL_LIMIT_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
