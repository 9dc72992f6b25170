"""Command line of the mutation runner; see scripts/mutation and docs/testing.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.mutation.mapping import MAP


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutation")
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("map", help="record which test executes which line")
    m.add_argument("--workers", default="1")
    m.add_argument("--map", type=Path, default=None, help="where to write the map (default .mutation/map.json)")
    m.add_argument("pytest_args", nargs=argparse.REMAINDER)
    r = sub.add_parser("run", help="mutate modules in place and run the tests that execute each mutated line")
    r.add_argument("modules", nargs="+", help="e.g. pr_agent/refs.py")
    r.add_argument("--sample", type=int, default=0, help="mutants per module, chosen at random (0 = all)")
    r.add_argument("--seed", type=int, default=19)
    r.add_argument("--timeout", type=float, default=1800,
                   help="a cap on each mutant's timeout (which is 5x its tests' unmutated time + 30 s)")
    r.add_argument("--map", type=Path, default=None, help="the map to use (default .mutation/map.json)")
    r.add_argument("--list", action="store_true", help="only list the mutants")
    r.add_argument("--survivors", action="store_true",
                   help="same sample again, re-running only what the last run of it did not kill")
    r.add_argument("--also", nargs="+", default=[], help="test files written after the map: run for every mutant")
    args = parser.parse_args(argv)
    if args.cmd == "map":
        from tests.mutation.mapping import build

        build(args.pytest_args or ["tests"], args.workers, args.map or MAP)
        return 0
    from tests.mutation.runner import run

    return run(args.modules, sample=args.sample, seed=args.seed, timeout=args.timeout, list_only=args.list,
               map_path=args.map or MAP, also=args.also,
               survivors_only=args.survivors)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
