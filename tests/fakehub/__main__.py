"""Run fakehub standalone (the offline demo), from the repository root:

    .venv/bin/python -m tests.fakehub --scenario fixtures/scenarios/demo.json > /tmp/fakehub.env &
    sleep 1; . /tmp/fakehub.env; gh api graphql -f query='{viewer{login}}'
    kill %1

Options: --port N (default: a free port), --latency-ms N, --verbose (log requests to stderr).

Prints ``export NAME=value`` lines for the environment on stdout, then serves until SIGINT/SIGTERM.
Its temporary GH_CONFIG_DIR/XDG dirs are removed on exit.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from pathlib import Path

from .hub import FakeHub
from .scenario import ScenarioError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakehub", description="A fake GitHub for real gh.")
    parser.add_argument("--scenario", required=True, type=Path, help="scenario JSON file")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--latency-ms", type=float, default=0, help="delay every answer by this much")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)
    try:
        hub = FakeHub(args.scenario, port=args.port, latency_ms=args.latency_ms, verbose=args.verbose)
    except (ScenarioError, OSError) as exc:
        print(f"fakehub: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()

    def stop(signum: int, frame: object) -> None:
        done.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    with hub:
        for name, value in hub.env.items():
            print(f"export {name}={shlex.quote(value)}")
        sys.stdout.flush()
        print(f"fakehub: serving {args.scenario} at {hub.url} until Ctrl-C", file=sys.stderr, flush=True)
        while not done.wait(0.5):
            pass
        for line in hub.problems:
            print(f"fakehub: {line}", file=sys.stderr)
    print("fakehub: stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
