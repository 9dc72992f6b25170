"""AI reviewers known by login whose review-body format no real sample shows us (Korbit, Baz, Graphite,
Amazon Q Developer, Windsurf/Codeium): their bodies are read by :mod:`pr_agent.review.bots.generic` under the
bot's own name, with a note that the findings are low confidence. What was searched for real samples is in
docs/review-parsers.md. Graphite's stack and merge-activity comments have no finding shape and yield nothing.
"""

from __future__ import annotations

from pr_agent.review.bots.generic import extract_generic
from pr_agent.review.bots.model import Finding
from pr_agent.review.bots.registry import BotParser, register

LOW_CONFIDENCE = "read by the generic shapes (no parser for this format): low confidence"


class UnverifiedParser(BotParser):
    def __init__(self, name: str, logins: set[str], markers: tuple[str, ...], label: str) -> None:
        self.name = name
        self.logins = frozenset(logins)
        self.markers = markers
        self.label = label

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        found = extract_generic(text, self.name)
        if found:
            notes.append(f"{self.label}: {len(found)} finding(s) {LOW_CONFIDENCE}")
        return found


for _parser in (
    UnverifiedParser("korbit", {"korbit-ai", "korbit-ai-mentor"}, ("review by korbit ai", "korbit.ai/"),
                     "Korbit"),
    UnverifiedParser("baz", {"baz-reviewer", "baz-reviewer-dev", "baz-scm", "baz-app"}, ("fix all baz comments",),
                     "Baz"),
    UnverifiedParser("graphite", {"graphite-app", "graphite-reviewer"}, (), "Graphite"),
    UnverifiedParser("amazonq", {"amazon-q-developer", "amazonq-developer", "amazon-q"}, (), "Amazon Q Developer"),
    UnverifiedParser("windsurf", {"windsurf-bot", "codeium", "codeium-bot", "windsurf"}, (), "Windsurf"),
):
    register(_parser)
