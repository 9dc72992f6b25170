"""docs/log-parsers.md lists every runner the parsers support, with the fixture counts on disk."""

from __future__ import annotations

import re

from pr_agent.ci.parsers.models import RUNNERS

from .regen_expected import LOGS, ROOT, cases

DOC = ROOT / "docs" / "log-parsers.md"


def _table() -> dict[str, tuple[int, int]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- runner-table:start -->", 1)[1].split("<!-- runner-table:end -->", 1)[0]
    rows: dict[str, tuple[int, int]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2].isdigit():
            m = re.fullmatch(r"`([\w-]+)`", cells[0])
            rows[m.group(1) if m else "nontest"] = (int(cells[2]), int(cells[3]))
    return rows


def test_every_runner_is_listed_with_its_fixture_counts() -> None:
    counts: dict[str, list[int]] = {}
    for log in cases():
        real = log.relative_to(LOGS).parts[0] == "real"
        counts.setdefault(log.parent.name, [0, 0])[1 if real else 0] += 1
    table = _table()
    assert set(table) == {*RUNNERS, "nontest"}
    for runner, (synthetic, real) in table.items():
        assert [synthetic, real] == counts.get(runner, [0, 0]), runner
