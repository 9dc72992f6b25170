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
import re
import sys
from collections.abc import Mapping
from typing import TextIO

RESET = "\x1b[0m"
RED, GREEN, YELLOW, DIM, BOLD = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[2m", "\x1b[1m"
# gh's JSON colours (cli/cli pkg/jsoncolor): delimiters bold white, keys bold blue, strings green, true/false
# yellow, null cyan, numbers as they are; each token reset with ESC[m
JSON_DELIM, JSON_KEY, JSON_STRING, JSON_BOOL, JSON_NULL = (b"\x1b[1;37m", b"\x1b[1;34m", b"\x1b[32m", b"\x1b[33m",
                                                           b"\x1b[36m")
JSON_RESET = b"\x1b[m"


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
    (colour it, stdout is a terminal). gh colours ``--json`` — and so indents it — when colour is enabled (a
    terminal or ``GH_FORCE_TTY``, unless ``NO_COLOR``/``CLICOLOR=0``; ``CLICOLOR_FORCE`` even in a pipe); ``--jq``
    colours its JSON results under the same rule and indents them when stdout is a terminal or ``GH_FORCE_TTY`` is
    set. Piped, the JSON is plain and compact: data a script parses."""
    env = os.environ if env is None else env
    out = stdout or sys.stdout
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return color_enabled(env, tty), stdout_terminal(env, tty)


# a JSON token of orjson's output: a string (a key when the colon follows at once), a literal or a delimiter;
# numbers and layout whitespace are left as they are. A string is one token, so nothing inside it is matched.
_JSON_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"(:)?|true|false|null|[{}\[\],]')
_FIXED = {b"true": JSON_BOOL + b"true" + JSON_RESET, b"false": JSON_BOOL + b"false" + JSON_RESET,
          b"null": JSON_NULL + b"null" + JSON_RESET,
          **{bytes([c]): JSON_DELIM + bytes([c]) + JSON_RESET for c in b"{}[],"}}


def _json_token(m: re.Match[bytes]) -> bytes:
    token = m[0]
    fixed = _FIXED.get(token)
    if fixed is not None:
        return fixed
    if m[1]:  # a key: the string, then its colon (the space after it is the layout's)
        return JSON_KEY + token[:-1] + JSON_RESET + JSON_DELIM + b":" + JSON_RESET
    return JSON_STRING + token + JSON_RESET


def color_json(data: object, *, indent: bool = True) -> bytes:
    """``data`` as gh writes JSON on a coloured terminal (cli/cli pkg/jsoncolor): indented by two spaces (compact
    with ``indent=False``, gh's ``--jq`` in a coloured pipe), each token coloured, one newline at the end. Strip
    the escapes and it is the same JSON document. Text from others cannot drive the terminal: control characters
    are JSON escapes already, and DEL, C1 controls and invisible characters (pr_agent.textsafe) are written as
    ``\\uXXXX`` escapes too — the same JSON value. One regular-expression pass: linear in the size."""
    import orjson

    from pr_agent.textsafe import json_visible

    text = orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else 0)
    return _JSON_TOKEN.sub(_json_token, json_visible(text)) + b"\n"


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
