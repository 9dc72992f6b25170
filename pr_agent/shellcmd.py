"""THE command builder: every shell command the product emits is built here, from an argv list.

Repairs, suggestions, reply/resolve commands, restack plans, repro commands and next actions all come
from :func:`command`; nothing else joins words into a command line (no f-string builds one). Every word
is quoted with :func:`shlex.quote`, so ``shlex.split(command(argv)) == argv`` for any argv of strings,
whatever the words contain (untrusted branch names, paths, hosts).

:func:`chain` joins whole commands (``a && b``); :func:`comment` makes a ``# …`` line that a shell
ignores, with newlines removed so text cannot start a new command line (the only comment builder: every
prose step uses it).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from pr_agent.textsafe import terminal_field


class UnsafeWord(ValueError):
    """An argv word no shell can carry (a NUL byte) or that is not a string."""


def quote(word: str) -> str:
    if not isinstance(word, str):
        raise UnsafeWord(f"command words must be strings, got {type(word).__name__}")
    if "\0" in word:
        raise UnsafeWord("a command word contains a NUL byte")
    return shlex.quote(word)


def command(argv: Sequence[str]) -> str:
    """One command line whose ``shlex.split`` is exactly ``argv``. No word is a placeholder to edit: text the
    user must write reaches a command on its standard input (:mod:`pr_agent.review.commands`)."""
    if isinstance(argv, str) or not argv:
        raise UnsafeWord("a command is a non-empty list of words")
    return " ".join(quote(w) for w in argv)


def chain(*commands: str, op: str = "&&") -> str:
    """Commands built by :func:`command`, run one after the other (``&&`` or ``||``)."""
    if op not in ("&&", "||"):
        raise UnsafeWord(f"unknown shell operator {op!r}")
    return f" {op} ".join(commands)


_LINE_BREAKS = re.compile(r"[\n\r\t\x0b\x0c\x85\u2028\u2029]")


def comment(text: str) -> str:
    """A one-line shell comment that stays inert on a terminal: line breaks and tabs become spaces, every other
    control or invisible character is shown escaped (:func:`pr_agent.textsafe.terminal_field`)."""
    return "# " + terminal_field(_LINE_BREAKS.sub(" ", text))
