"""The mutation runner's own rules (tests/mutation): mutants splice where they say, timeouts follow the baseline."""

from __future__ import annotations

import ast

from tests.mutation.mutants import mutants
from tests.mutation.runner import FACTOR, SLACK, Baseline

# Non-ASCII text before an operator on the same line: ast's column offsets count UTF-8 bytes, not characters.
SOURCE = '''def f(x, names):
    label = "– {} …".format(x) if x > 1 else "—"
    return label, [n for n in names if n != "é"]
'''


def test_each_mutant_changes_exactly_the_node_it_names() -> None:
    found = mutants("m.py", SOURCE)
    ops = {m.op for m in found}
    assert {"compare Gt->LtE", "compare NotEq->Eq", "constant 1->2", "constant 1->0", "return None"} <= ops
    for m in found:
        ast.parse(m.source)
        assert m.source != SOURCE
        if m.op == "compare Gt->LtE":
            assert m.before == "x > 1"
            assert '"– {} …".format(x) if (x <= 1) else "—"' in m.source
        if m.op == "compare NotEq->Eq":
            assert m.before == 'n != "é"'
            assert "if (n == 'é')]" in m.source


def test_ids_do_not_move_with_unrelated_lines() -> None:
    moved = "import os\n\n\n" + SOURCE
    assert [m.id for m in mutants("m.py", SOURCE)] == [m.id for m in mutants("m.py", moved)]


def test_a_mutants_timeout_is_a_generous_multiple_of_its_tests_unmutated_time() -> None:
    base = Baseline({"t::a": 2.0, "t::b": 10.0}, [], startup=3.0)
    assert FACTOR >= 3 and SLACK >= 10
    assert base.timeout(["t::a"]) == FACTOR * 5.0 + SLACK
    assert base.timeout(["t::a", "t::b"]) == FACTOR * 15.0 + SLACK
    assert base.timeout(["t::unknown"]) == FACTOR * 3.0 + SLACK
