"""Augment Code (augmentcode): its review body only says "Review completed. N suggestions posted." with a
"Fix All in Augment" link; the suggestions themselves are inline comments (read by
:mod:`pr_agent.review.bots.inline`). The body yields no finding; it is recognised so that it is not taken
for an unknown format and so that :mod:`pr_agent.review.coverage` sees Augment's reviews."""

from __future__ import annotations

from pr_agent.review.bots.model import Finding
from pr_agent.review.bots.registry import BotParser, register


class AugmentParser(BotParser):
    name = "augment"
    logins = frozenset({"augmentcode", "augment-code", "augmentcode-app"})
    markers = ("fix all in augment", "app.augmentcode.com", "augment review` to trigger")

    def extract(self, text: str, notes: list[str]) -> list[Finding]:
        return []


register(AugmentParser())
