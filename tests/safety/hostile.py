"""The hostile corpus (fixtures/hostile/corpus.json) plus generated monsters, and a recording stub."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS: dict[str, Any] = json.loads((ROOT / "fixtures" / "hostile" / "corpus.json").read_text(encoding="utf-8"))
TEXTS: list[str] = CORPUS["texts"]
BRANCHES: list[str] = CORPUS["branch_names"]
PATHS: list[str] = CORPUS["paths"]


def huge_body(megabytes: int = 5) -> str:
    line = "Please fix `x` $(id) ‹details› — " * 3 + "\n"
    return line * (megabytes * 1024 * 1024 // len(line.encode()))


def nested_markdown(levels: int = 1000) -> str:
    return "<details><summary>x</summary>\n\n> " * levels + "deep **finding**" + "\n</details>" * levels


def recording_stub(directory: Path, name: str, record: Path) -> Path:
    """An executable called ``name`` that appends its argv (as JSON) to ``record`` and exits 0."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"with open({str(record)!r}, 'a', encoding='utf-8') as fh:\n"
        "    fh.write(json.dumps(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def recorded(record: Path) -> list[list[str]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line]


def single_quote_escape(text: str) -> str:
    """What an agent does to put ``text`` where the single-quoted placeholder was."""
    return text.replace("'", "'\\''")
