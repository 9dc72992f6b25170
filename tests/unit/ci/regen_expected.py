"""Regenerate (or check) ``fixtures/logs/**/<case>.expected.json`` from the current parsers.

    .venv/bin/python tests/unit/ci/regen_expected.py            # rewrite every expectation
    .venv/bin/python tests/unit/ci/regen_expected.py --check    # list cases whose output changed
    .venv/bin/python tests/unit/ci/regen_expected.py jest/      # only cases whose path contains "jest/"
    .venv/bin/python tests/unit/ci/regen_expected.py real/      # only the real logs (fixtures/logs/real)

Each changed expectation is printed as a unified diff. Regenerating is a review step, not a fix: read the diff
of every changed file and keep only what a person reading the log would agree with. A golden that changes
without its log or a parser changing fails tests/unit/test_goldens.py.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "fixtures" / "logs"
SKIP_DIRS = {"multistep"}  # slicing fixtures; tested by test_logs.py

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pr_agent.ci.parsers import parse_log  # noqa: E402


def cases() -> list[Path]:
    return sorted(p for p in LOGS.rglob("*.log") if p.parent.name not in SKIP_DIRS)


def expected_path(log: Path) -> Path:
    return log.with_name(log.name[: -len(".log")] + ".expected.json")


def render(log: Path) -> dict[str, Any]:
    with log.open(encoding="utf-8", errors="replace", newline="") as fh:
        parsed = parse_log(fh)
    data = parsed.model_dump(mode="json")
    for failure in data["failures"]:
        failure.pop("check_name", None)
    data.pop("truncated", None)
    for key in ("lines_cut", "flaky"):  # recorded only for a log that has them
        if not data.get(key):
            data.pop(key, None)
    return data


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    filters = [a for a in argv if not a.startswith("--")]
    changed = 0
    for log in cases():
        rel = log.relative_to(LOGS).as_posix()
        if filters and not any(f in rel for f in filters):
            continue
        text = dumps(render(log))
        target = expected_path(log)
        old = target.read_text(encoding="utf-8") if target.exists() else None
        if old == text:
            continue
        changed += 1
        print(("differs: " if check else "wrote: ") + rel)
        sys.stdout.writelines(difflib.unified_diff((old or "").splitlines(True), text.splitlines(True),
                                                   f"a/{rel}.expected", f"b/{rel}.expected"))
        if not check:
            target.write_text(text, encoding="utf-8")
    return 1 if check and changed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
