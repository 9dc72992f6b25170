"""Choose the quick subset from a coverage measurement of the whole suite (tests/quick/measure.py parts in
``.quick/``) and check a recorded selection against one.

The full suite's lines are every ``pr_agent`` line any part executed. All of ``tests/unit`` is always in the
subset; end-to-end items are added greedily, each time the one that adds the most not-yet-executed lines per
second of its own run time, until they fill a time budget (``E2E_BUDGET_S``, seconds as measured under coverage;
an item that no longer fits is skipped) or nothing left adds a line. The target share of the full suite's lines
is a floor the subset must reach (``check`` fails below it), not where the choice stops: since tests/unit runs the
CLI and the MCP server in-process against fakehub it reaches the target alone, and the budget buys the lines only
our processes under the real gh execute. Lines run
outside any test item (imports at collection) are counted as executed by the subset too: it imports the same
modules.
"""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".quick"
SELECTION = Path(__file__).resolve().with_name("selection.json")
UNIT = "tests/unit/"
TARGET = 95.0  # the floor: percent of the full suite's executed lines the subset must execute
# The end-to-end items' summed run time, as measured under coverage (on a loaded machine: about 2-3x a plain run on a
# quiet one). tests/unit takes ~30 s wall at 2 workers on the quiet machine; 20 s here is a few seconds of wall
# time beside it, so the quick run stays under a minute (tests/quick/README.md). Items that do not fit are skipped.
E2E_BUDGET_S = 20.0
STARTUP_S = 0.5  # every item's start-up, beyond its measured duration


Line = tuple[str, int]


def load_parts(state: Path = STATE) -> list[dict[str, Any]]:
    parts = [orjson.loads(p.read_bytes()) for p in sorted(state.glob("*.json"))]
    if not parts:
        raise SystemExit("quick: no measurement in .quick/; run `scripts/quick-subset measure` first")
    return parts


def index(parts: list[dict[str, Any]]) -> tuple[set[Line], dict[str, set[Line]], set[Line], dict[str, float]]:
    """(every executed line, lines of each test item, lines executed outside any item, durations)."""
    every: set[Line] = set()
    by_item: dict[str, set[Line]] = {}
    anywhere: set[Line] = set()
    durations: dict[str, float] = {}
    for part in parts:
        durations.update(part["durations"])
        for path, lines in part["lines"].items():
            for n, items in lines.items():
                line = (path, int(n))
                every.add(line)
                if not items:
                    anywhere.add(line)
                for item in items:
                    by_item.setdefault(item, set()).add(line)
    return every, by_item, anywhere, durations


def covered(items: list[str], by_item: dict[str, set[Line]], anywhere: set[Line]) -> set[Line]:
    out = set(anywhere)
    for item in items:
        out |= by_item.get(item, set())
    return out


def _unknown_s(durations: dict[str, float]) -> float:
    """The time assumed for an item that was not timed (an interrupted part): twice the median, as if slow."""
    known = sorted(d for i, d in durations.items() if not i.startswith(UNIT))
    return 2 * known[len(known) // 2] if known else 5.0


def choose(every: set[Line], by_item: dict[str, set[Line]], anywhere: set[Line], durations: dict[str, float],
           target: float = 100.0, budget_s: float = E2E_BUDGET_S) -> tuple[list[str], float]:
    """The end-to-end items to add to tests/unit, and the share of ``every`` the subset then executes: greedily the
    most new lines per second, until ``target`` percent (default: every line, so the budget decides), never past
    ``budget_s`` seconds of the items' own time
    (an item that does not fit in what is left is skipped; the share may then stay below the target)."""
    unit = [i for i in by_item if i.startswith(UNIT)]
    have = covered(unit, by_item, anywhere)
    chosen: list[str] = []
    candidates = {i: lines for i, lines in by_item.items() if not i.startswith(UNIT)}
    unknown_s = _unknown_s(durations)
    left = budget_s
    while 100 * len(have) / len(every) < target:
        best, best_rate = None, 0.0
        for item, lines in candidates.items():
            cost = STARTUP_S + durations.get(item, unknown_s)
            if cost > left:
                continue
            gain = len(lines - have)
            rate = gain / cost
            if gain and (rate > best_rate or (rate == best_rate and best is not None and item < best)):
                best, best_rate = item, rate
        if best is None:
            break  # nothing that fits adds a line any more
        chosen.append(best)
        left -= STARTUP_S + durations.get(best, unknown_s)
        have |= candidates.pop(best)
    return chosen, 100 * len(have) / len(every)


def cost_s(items: list[str], durations: dict[str, float]) -> float:
    """The items' summed time as ``choose`` counts it."""
    unknown_s = _unknown_s(durations)
    return sum(STARTUP_S + durations.get(i, unknown_s) for i in items)


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    return proc.stdout.strip() or "unknown"


def select(state: Path = STATE) -> dict[str, Any]:
    parts = load_parts(state)
    every, by_item, anywhere, durations = index(parts)
    chosen, share = choose(every, by_item, anywhere, durations)
    unit_only = 100 * len(covered([i for i in by_item if i.startswith(UNIT)], by_item, anywhere)) / len(every)
    record = {
        "_comment": "The quick subset: all of tests/unit plus these items. Written by `scripts/quick-subset select` "
                    "from a coverage measurement of the whole suite (tests/quick/README.md); checked by "
                    "`scripts/quick-subset check` and tests/unit/test_quick_selection.py.",
        "items": chosen,
        "measured": {
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"), "commit": _commit(),
            "parts": {p["part"]: {"pytest_args": p["pytest_args"], "items": p.get("items", len(p["durations"])),
                                  "exit": p["exit"]} for p in parts},
            "full_suite_lines": len(every), "unit_only_percent": round(unit_only, 2),
            "quick_percent": round(share, 2), "target_percent": TARGET,
            "e2e_seconds_under_coverage": round(cost_s(chosen, durations), 1), "e2e_budget_s": E2E_BUDGET_S,
        },
    }
    SELECTION.write_text(orjson.dumps(record, option=orjson.OPT_INDENT_2).decode() + "\n")
    print(f"quick: the full suite executes {len(every)} lines of pr_agent; tests/unit alone {unit_only:.1f}%; "
          f"with {len(chosen)} more items {share:.1f}% -> {SELECTION.relative_to(ROOT)}")
    for item in chosen:
        took = f"{durations[item]:.1f} s measured under coverage" if item in durations else "not timed"
        print(f"  {item}  ({took})")
    return record


def recorded() -> dict[str, Any]:
    return orjson.loads(SELECTION.read_bytes())


def check(quick_part: dict[str, Any] | None = None, state: Path = STATE) -> float:
    """The share of the full suite's lines the recorded subset executes: from the measurement of the whole suite,
    or, given the measurement of an actual quick run (``quick_part``), from what that run executed."""
    full = [p for p in load_parts(state) if p["part"] != "quick"]
    every, by_item, anywhere, _ = index(full)
    if quick_part is None:
        items = [i for i in by_item if i.startswith(UNIT)] + recorded()["items"]
        have = covered(items, by_item, anywhere)
    else:
        have = {(path, int(n)) for path, lines in quick_part["lines"].items() for n in lines}
    share = 100 * len(have & every) / len(every)
    missing = sorted(every - have)
    print(f"quick: the subset executes {len(have & every)} of the full suite's {len(every)} lines ({share:.1f}%; "
          f"target {TARGET}%)")
    by_file: dict[str, int] = {}
    for path, _n in missing:
        by_file[path] = by_file.get(path, 0) + 1
    for path, n in sorted(by_file.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  not executed: {n:4d} lines of {path}")
    return share
