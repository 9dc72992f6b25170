"""Rewrite every ``fixtures/reviews/[real/]<bot>/<case>.expected.json`` from the parser output.

For reviewing parser changes as diffs: run it, then read ``git diff fixtures/reviews`` and keep
only the changes a human agrees with (each changed file is printed as a unified diff). The tests always compare
against the committed files; a golden that changes without its body or a parser changing fails
tests/unit/test_goldens.py.

    .venv/bin/python tests/unit/review/regen_expected.py [--check]
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.unit.review.fixture_cases import cases, dump


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = 0
    for case in cases():
        new = dump(case.actual())
        old = case.expected_path.read_bytes() if case.expected_path.exists() else b""
        if new != old:
            changed += 1
            print(("differs: " if check else "updated: ") + case.id)
            sys.stdout.writelines(difflib.unified_diff(
                old.decode("utf-8").splitlines(True), new.decode("utf-8").splitlines(True),
                f"a/{case.id}.expected", f"b/{case.id}.expected"))
            if not check:
                case.expected_path.write_bytes(new)
    print(f"{len(cases())} fixtures, {changed} {'differ' if check else 'rewritten'}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
