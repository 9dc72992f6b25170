"""Which changed files each code owner owns, from the base branch's CODEOWNERS (pure).

GitHub's rules (docs "About code owners"): the file is ``.github/CODEOWNERS``, ``CODEOWNERS`` or
``docs/CODEOWNERS`` on the base branch (the first found is used); each line is a pattern and its owners
(``@user``, ``@org/team``, an e-mail); the LAST matching line wins; a line with no owners leaves matching
paths unowned; patterns follow .gitignore rules, except that ``!`` negation and ``[ ]`` ranges are not
supported and ``\\#`` escapes a ``#``: ``*`` matches within one path segment, ``**`` across segments, a
pattern starting with ``/`` or containing a ``/`` other than a trailing one is anchored at the root (else it
matches at any depth), and a pattern naming a directory matches everything below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True)
class Rule:
    pattern: str
    regex: re.Pattern[str]
    owners: tuple[str, ...]


def _translate(pattern: str) -> re.Pattern[str]:
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    out, i = [], 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    lead = "" if anchored else "(?:.*/)?"
    tail = "(?:/.*)?" if not pattern.endswith("/*") else ""
    return re.compile(f"^{lead}{''.join(out)}{tail}$")


def parse(text: str) -> list[Rule]:
    rules = []
    for raw in text.splitlines()[:10_000]:
        line = re.sub(r"(?<!\\)#.*$", "", raw).replace("\\#", "#").strip()
        if not line or line.startswith("!") or "[" in line.split()[0]:
            continue  # comments; negation and ranges are not supported by GitHub
        pattern, *owners = line.split()
        rules.append(Rule(pattern, _translate(pattern), tuple(o.removeprefix("@") for o in owners)))
    return rules


def owners_of(rules: list[Rule], path: str) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for rule in rules:
        if rule.regex.match(path):
            found = rule.owners  # the last match wins
    return found


def files_by_owner(rules: list[Rule], files: list[str], owners: list[str]) -> dict[str, list[str]]:
    """{owner: the changed files it owns}, for the given owners (as GitHub names them: login or org/team)."""
    wanted = {o.lower(): o for o in owners}
    out: dict[str, list[str]] = {o: [] for o in owners}
    for path in files:
        for owner in owners_of(rules, path):
            if owner.lower() in wanted:
                out[wanted[owner.lower()]].append(path)
    return out
