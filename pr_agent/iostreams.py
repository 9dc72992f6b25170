"""The terminal, decided once as gh decides it (cli/cli pkg/iostreams): is stdout a terminal, and is it coloured.

Colour is on when stdout is a terminal (or ``GH_FORCE_TTY`` is set, gh's "treat the output as a terminal"),
unless ``NO_COLOR`` is set to any non-empty value or ``CLICOLOR=0``; ``CLICOLOR_FORCE`` set to anything but ``0``
colours even a pipe or a file, and, as in gh, wins over ``NO_COLOR``. The CLI decides in ``main`` (see
:func:`setup`); everything else is plain: the MCP server, ``--json``, tests that call a renderer directly.

Renderers ask :func:`colors` for the scheme and wrap text that is already made terminal-safe
(pr_agent.textsafe), so an escape sequence in untrusted text stays escaped while ours are added around it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

RESET = "\x1b[0m"
RED, GREEN, YELLOW, DIM, BOLD = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[2m", "\x1b[1m"


def stdout_terminal(env: Mapping[str, str], stdout_is_tty: bool) -> bool:
    """gh's IsStdoutTTY(): stdout is a terminal, or ``GH_FORCE_TTY`` is set to any non-empty value."""
    return stdout_is_tty or env.get("GH_FORCE_TTY", "") != ""


def color_enabled(env: Mapping[str, str], stdout_is_tty: bool) -> bool:
    """gh's rule: EnvColorForced() || (!EnvColorDisabled() && IsStdoutTTY())."""
    forced = env.get("CLICOLOR_FORCE", "") not in ("", "0")
    disabled = env.get("NO_COLOR", "") != "" or env.get("CLICOLOR") == "0"
    return forced or (not disabled and stdout_terminal(env, stdout_is_tty))


def json_layout(env: Mapping[str, str] | None = None, stdout: TextIO | None = None) -> tuple[bool, bool]:
    """How ``--json`` output is laid out, as gh's JSON exporter (cli/cli pkg/cmdutil/json_flags.go) decides it:
    (indent the whole document, the ``--jq`` results are for a terminal). gh indents ``--json`` when colour is
    enabled (a terminal or ``GH_FORCE_TTY``, unless ``NO_COLOR``/``CLICOLOR=0``; ``CLICOLOR_FORCE`` even in a
    pipe) and ``--jq`` results when stdout is a terminal or ``GH_FORCE_TTY`` is set. Unlike gh, the JSON itself
    is never coloured: it is data an agent parses."""
    env = os.environ if env is None else env
    out = stdout or sys.stdout
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return color_enabled(env, tty), stdout_terminal(env, tty)


class ColorScheme:
    """Failed red, pending yellow, passed green, secondary text dim; every method is the identity when off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if self.enabled and text else text

    def red(self, text: str) -> str:
        return self._wrap(RED, text)

    def green(self, text: str) -> str:
        return self._wrap(GREEN, text)

    def yellow(self, text: str) -> str:
        return self._wrap(YELLOW, text)

    def dim(self, text: str) -> str:
        return self._wrap(DIM, text)

    def bold(self, text: str) -> str:
        return self._wrap(BOLD, text)

    def state(self, bucket: str, text: str) -> str:
        """Colour by outcome: failed/blocked red, pending/unknown yellow, passed/ready green, the rest dim."""
        if bucket in ("failed", "failure", "blocked", "conflicts", "error", "not_stacked"):
            return self.red(text)
        if bucket in ("pending", "running", "unknown", "draft", "warning", "action"):
            return self.yellow(text)
        if bucket in ("passed", "success", "ready", "clean", "ok"):
            return self.green(text)
        return self.dim(text)


_current = ColorScheme(False)


def colors() -> ColorScheme:
    return _current


def setup(env: Mapping[str, str] | None = None, stdout: TextIO | None = None) -> ColorScheme:
    """Decide for this process (the CLI calls it once at start-up)."""
    global _current
    out = stdout or sys.stdout
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    _current = ColorScheme(color_enabled(os.environ if env is None else env, tty))
    return _current


def plain() -> None:
    """No colour from here on (the MCP server: its output is JSON-RPC)."""
    global _current
    _current = ColorScheme(False)
