"""The quick subset (tests/quick): the recorded selection still names real tests and meets its figure, and the
greedy choice does what tests/quick/README.md says, on small hand-made coverage maps."""

from __future__ import annotations

import ast
from pathlib import Path

import orjson

from tests.quick import measure, select

ROOT = Path(__file__).resolve().parents[2]


def _defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        names |= {f"{cls.name}::{m.name}" for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names


def test_the_recorded_selection_names_existing_end_to_end_tests_and_meets_its_figure() -> None:
    record = select.recorded()
    items, figures = record["items"], record["measured"]
    assert items and len(items) == len(set(items))
    for item in items:
        path, _, name = item.partition("::")
        assert not path.startswith(select.UNIT), item  # unit tests are all in anyway
        assert (ROOT / path).is_file(), f"{item}: no such file (renamed? run scripts/quick-subset measure + select)"
        assert name.split("[", 1)[0] in _defined_tests(ROOT / path), f"{item}: no such test in {path}"
    assert figures["target_percent"] == 95.0
    assert figures["quick_percent"] >= figures["target_percent"]
    assert figures["quick_percent"] > figures["unit_only_percent"]  # the items add what only processes execute
    assert figures["full_suite_lines"] > 5000  # measured over the whole package, not a sample
    if "e2e_budget_s" in figures:  # selections made since the time budget (tests/quick/select.py E2E_BUDGET_S)
        assert figures["e2e_seconds_under_coverage"] <= figures["e2e_budget_s"] == select.E2E_BUDGET_S


def _map(lines: dict[int, list[str]]) -> dict[str, dict[str, list[str]]]:
    return {"pr_agent/x.py": {str(n): items for n, items in lines.items()}}


U, FAST, SLOW, RICH = "tests/unit/test_u.py::t", "tests/e2e/test_a.py::fast", "tests/e2e/test_b.py::slow", \
    "tests/e2e/test_c.py::rich"


def _parts(target_lines: int = 20) -> list[dict]:
    # 20 lines: 1-8 unit, 9 at import (no item), 10-11 FAST (0.5 s), 10-17 RICH (9.5 s), 18-20 SLOW (29.5 s)
    lines: dict[int, list[str]] = {n: [U] for n in range(1, 9)}
    lines[9] = []
    for n in range(10, 18):
        lines[n] = [RICH] + ([FAST] if n < 12 else [])
    for n in range(18, 21):
        lines[n] = [SLOW]
    return [{"part": "p", "pytest_args": [], "exit": 0, "lines": _map(lines),
             "durations": {U: 0.1, FAST: 0.5, RICH: 9.5, SLOW: 29.5}}]


def test_choose_adds_the_most_new_lines_per_second_until_the_target() -> None:
    every, by_item, anywhere, durations = select.index(_parts())
    assert len(every) == 20 and anywhere == {("pr_agent/x.py", 9)}
    # unit + import: 9/20 = 45%. FAST adds 2 lines per 1 s; RICH 8 per 10 s; SLOW 3 per 30 s.
    chosen, share = select.choose(every, by_item, anywhere, durations, target=50)
    assert (chosen, share) == ([FAST], 55.0)
    # then RICH's remaining 6 new lines per 10 s beat SLOW's 3 per 30 s
    chosen, share = select.choose(every, by_item, anywhere, durations, target=85)
    assert (chosen, share) == ([FAST, RICH], 85.0)
    chosen, share = select.choose(every, by_item, anywhere, durations, target=100, budget_s=100)
    assert (chosen, share) == ([FAST, RICH, SLOW], 100.0)


def test_by_default_the_choice_fills_the_budget_past_the_target() -> None:
    every, by_item, anywhere, durations = select.index(_parts())
    # no target given: every line is wanted, so the budget alone stops the choice (FAST 1 s + RICH 10 s fit in 12)
    assert select.choose(every, by_item, anywhere, durations, budget_s=12) == ([FAST, RICH], 85.0)
    assert select.choose(every, by_item, anywhere, durations, budget_s=41) == ([FAST, RICH, SLOW], 100.0)


def test_check_counts_a_real_quick_run_against_the_full_measurement(tmp_path: Path, monkeypatch) -> None:
    for part in _parts():
        (tmp_path / "p.json").write_bytes(orjson.dumps(part))
    monkeypatch.setattr(select, "recorded", lambda: {"items": [RICH]})
    assert select.check(state=tmp_path) == 85.0  # unit 1-8, import 9, RICH 10-17
    run = {"lines": _map({n: [] for n in [*range(1, 10), 18, 19, 20, 99]})}  # 99: not in the full suite's lines
    assert select.check(run, state=tmp_path) == 60.0


def test_durations_are_read_from_junit_xml_by_node_id(tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    junit.write_text('<testsuites><testsuite>'
                     '<testcase classname="tests.e2e.test_demo" name="test_demo_piped" time="12.5"/>'
                     '<testcase classname="tests.unit.test_quick_selection" name="test_x[a-b]" time="0.25"/>'
                     '</testsuite></testsuites>')
    assert measure._durations(junit) == {"tests/e2e/test_demo.py::test_demo_piped": 12.5,
                                         "tests/unit/test_quick_selection.py::test_x[a-b]": 0.25}


def test_choose_never_spends_more_than_the_budget() -> None:
    every, by_item, anywhere, durations = select.index(_parts())
    # FAST costs 1 s, RICH 10 s, SLOW 30 s (each with 0.5 s of start-up)
    chosen, share = select.choose(every, by_item, anywhere, durations, target=100, budget_s=12)
    assert (chosen, share) == ([FAST, RICH], 85.0)  # SLOW would reach 100% but does not fit: the share stays below
    chosen, share = select.choose(every, by_item, anywhere, durations, target=100, budget_s=31)
    # FAST first (2 lines/s); then RICH (6 new lines per 10 s) beats SLOW (3 per 30 s); then SLOW no longer fits
    assert (chosen, share) == ([FAST, RICH], 85.0)
    chosen, share = select.choose(every, by_item, anywhere, durations, target=100, budget_s=9)
    assert (chosen, share) == ([FAST], 55.0)  # RICH does not fit in the 8 s left, SLOW neither
    chosen, share = select.choose(every, by_item, anywhere, durations, target=100, budget_s=41)
    assert (chosen, share) == ([FAST, RICH, SLOW], 100.0)
    assert select.cost_s([FAST, RICH, SLOW], durations) == 41.0
