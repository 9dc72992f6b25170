"""Where the review-body fixtures live and how each one is parsed (shared by tests and regen)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pr_agent.review.bots import parse_review_body

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "reviews"
REAL = FIXTURES / "real"  # bodies captured from public bot output, one <case>.source.json each
SOURCE_KEYS = ("source", "author", "captured", "notes")

# The author each directory's bodies were posted by (REST spelling).
DEFAULT_AUTHORS: dict[str, str] = {
    "coderabbit": "coderabbitai[bot]",
    "copilot": "copilot-pull-request-reviewer[bot]",
    "gemini": "gemini-code-assist[bot]",
    "codex": "chatgpt-codex-connector[bot]",
    "sourcery": "sourcery-ai[bot]",
    "qodo": "qodo-merge-pro[bot]",
    "greptile": "greptile-apps[bot]",
    "cursor": "cursor[bot]",
    "codeant": "codeant-ai[bot]",
    "bito": "bito-code-review[bot]",
    "augment": "augmentcode[bot]",
    "cubic": "cubic-dev-ai[bot]",
    "ellipsis": "ellipsis-dev[bot]",
    "human": "octocat",
}


@dataclass(frozen=True)
class Case:
    bot_dir: str
    name: str
    body_path: Path
    real: bool = False

    @property
    def id(self) -> str:
        return f"{'real/' if self.real else ''}{self.bot_dir}/{self.name}"

    @property
    def expected_path(self) -> Path:
        return self.body_path.with_name(f"{self.name}.expected.json")

    @property
    def source_path(self) -> Path:
        return self.body_path.with_name(f"{self.name}.source.json")

    def source(self) -> dict[str, Any]:
        """Where a real body was found (``{}`` for hand-built fixtures)."""
        return orjson.loads(self.source_path.read_bytes()) if self.real else {}

    @property
    def author(self) -> str:
        """The login the body was posted by: as found for real bodies, per directory otherwise."""
        return self.source()["author"] if self.real else DEFAULT_AUTHORS[self.bot_dir]

    @property
    def body_markers(self) -> bool:
        """False when the body alone carries no marker of its bot (only the author identifies it)."""
        return bool(self.source().get("body_markers", True)) if self.real else True

    def body(self) -> str:
        with self.body_path.open(encoding="utf-8", newline="") as fh:  # keep CRLF fixtures as CRLF
            return fh.read()

    def actual(self) -> dict[str, Any]:
        return parse_review_body(self.body(), self.author).to_dict()

    def expected(self) -> dict[str, Any]:
        return orjson.loads(self.expected_path.read_bytes())


def cases() -> list[Case]:
    """Hand-built fixtures (``<bot>/<case>.md``) then real ones (``real/<bot>/<NN>-<name>.md``)."""
    out = []
    for path in sorted(FIXTURES.glob("*/*.md")):
        if path.parent.name in DEFAULT_AUTHORS:
            out.append(Case(path.parent.name, path.stem, path))
    for path in sorted(REAL.glob("*/*.md")):
        if path.parent.name in DEFAULT_AUTHORS:
            out.append(Case(path.parent.name, path.stem, path, real=True))
    return out


def dump(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
