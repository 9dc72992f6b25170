"""What the CLI prints, as gh would. Colour as gh does it: on a terminal failed checks are red, pending yellow,
passed green and secondary text dim; plain when piped; NO_COLOR (any non-empty value) and CLICOLOR=0 turn it off,
CLICOLOR_FORCE (not "0") and GH_FORCE_TTY turn it on in a pipe; `--json` is coloured under the same rule, as gh
colours JSON. `--jq EXPR` filters the JSON output like gh's --jq. `checks` runs through real gh against one
fakehub for the module, its stdout a real pseudo-terminal where the terminal matters."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import gh_binaries
from tests.e2e.ci_worlds import job, world
from tests.e2e.conftest import Agent
from tests.fakehub import FakeHub

RED, GREEN, YELLOW, DIM, RESET = "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[2m", "\x1b[0m"
# gh's JSON colours (cli/cli pkg/jsoncolor): delimiters, keys, strings; each token reset with ESC[m
DELIM, KEY, STRING, SGR_RESET = "\x1b[1;37m", "\x1b[1;34m", "\x1b[32m", "\x1b[m"


def uncoloured(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def colour_world() -> dict[str, Any]:
    checks = [job("pytest", 101), job("lint", 104, "SUCCESS"), job("e2e", 107, status="IN_PROGRESS")]
    return world(checks, {"runs": [{"check": "pytest", "log": "fixtures/logs/pytest/single_failure.log"}]})


@pytest.fixture(scope="module")
def a(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Agent]:
    """One hub for the module, driven by the newest gh (this is about our output, not gh's)."""
    hub = FakeHub(colour_world()).start()
    try:
        yield Agent(hub, gh_binaries()[-1][0], tmp_path_factory.mktemp("home"))
    finally:
        hub.stop()
    assert not hub.problems, hub.problems


def on_terminal(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run with stdout on a fresh pseudo-terminal (stderr piped); the text as the terminal got it."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "pr_agent", *args], stdout=slave, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    os.close(slave)
    out = b""
    end = time.monotonic() + 120  # hang guard only
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    code = proc.wait(timeout=60)
    return code, out.decode().replace("\r\n", "\n")


def test_checks_colour_on_a_terminal_and_plain_in_a_pipe(a: Agent) -> None:
    args = ["checks", "acme/widgets#7", "--detail", "full"]  # full: every check, the passed one too
    base = {k: v for k, v in a.env().items() if k not in ("NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "GH_FORCE_TTY")}

    code, tty = on_terminal(args, base, a.home)
    assert code == 1, tty
    assert f"{RED}✗ CI / pytest: failure{RESET}" in tty, tty
    assert f"{GREEN}✓ CI / lint: success{RESET}" in tty and f"{YELLOW}… CI / e2e: in_progress{RESET}" in tty, tty
    assert f"{RED}●{RESET} tests/test_invoice.py::test_total_includes_shipping" in tty
    assert f"{DIM}  (tests/test_invoice.py:48){RESET}" in tty and f"{DIM}rerun:{RESET} pytest" in tty

    piped = a.cli(*args, env=base)
    assert piped.returncode == 1 and "\x1b" not in piped.stdout and "✗ CI / pytest: failure" in piped.stdout
    # the same text, less the colour
    assert piped.stdout == tty.replace(RED, "").replace(GREEN, "").replace(YELLOW, "").replace(DIM, "") \
        .replace("\x1b[1m", "").replace(RESET, "")

    code, text = on_terminal(args, {**base, "NO_COLOR": "1"}, a.home)
    assert code == 1 and "\x1b" not in text and "✗ CI / pytest: failure" in text, text
    forced = a.cli(*args, env={**base, "CLICOLOR_FORCE": "1", "NO_COLOR": "1"})  # as gh: CLICOLOR_FORCE wins
    assert f"{RED}✗ CI / pytest: failure{RESET}" in forced.stdout, forced.stdout
    # the other variables (CLICOLOR=0, CLICOLOR_FORCE=0, GH_FORCE_TTY, an empty NO_COLOR): tests/unit/test_iostreams.py

    as_json = a.cli(*args, "--json", env=base)  # piped JSON is data: plain
    assert "\x1b" not in as_json.stdout and as_json.stdout.startswith("{")


def test_jq_filters_a_tool_commands_output_like_gh(a: Agent) -> None:
    names = a.cli("checks", "acme/widgets#7", "--jq", ".failures[].test_name")  # --jq implies --json
    assert names.returncode == 1 and names.stdout == "tests/test_invoice.py::test_total_includes_shipping\n"
    count = a.cli("checks", "acme/widgets#7", "-q", ".checks | length")
    # concise: the pending check (the failed one is in failed_checks, the passed one only with full)
    assert count.stdout == "1\n"
    objects = a.cli("checks", "acme/widgets#7", "--detail", "full", "--jq",
                    '.checks[] | select(.bucket != "passed") | {name, bucket}')
    assert [orjson.loads(line) for line in objects.stdout.splitlines()] == [
        {"name": "CI / pytest", "bucket": "failed"}, {"name": "CI / e2e", "bucket": "pending"}]
    path_form = a.cli("checks", "acme/widgets/pull/7/files", "--jq", ".pr")  # a PR URL's path without its host
    assert path_form.returncode == 1 and path_form.stdout == "acme/widgets#7\n", path_form.stderr
    bad = a.cli("checks", "acme/widgets#7", "--jq", ".checks[")  # refused before gh is asked anything
    assert bad.returncode == 2 and orjson.loads(bad.stdout)["error"]["details"]["field"] == "--jq", bad.stdout
    missing = a.cli("checks", "acme/widgets#404", "--jq", ".status")  # an error is never filtered (as gh)
    assert missing.returncode == 3 and orjson.loads(missing.stdout)["error"]["code"] == "pr_not_found"


def test_json_is_coloured_and_indented_where_gh_colours_it(a: Agent) -> None:
    """gh's JSON exporter (cli/cli pkg/cmdutil/json_flags.go): `--json` is coloured as gh's jsoncolor colours it,
    and so indented, where colour is on (a terminal, or GH_FORCE_TTY; not with NO_COLOR; CLICOLOR_FORCE even in a
    pipe), plain and compact otherwise; `--jq` colours its JSON results under the same rule and indents them when
    stdout is a terminal or GH_FORCE_TTY is set."""
    args = ["checks", "acme/widgets#7", "--json"]
    base = {k: v for k, v in a.env().items() if k not in ("NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "GH_FORCE_TTY")}
    compact = a.cli(*args, env=base)
    assert compact.returncode == 1 and compact.stdout.startswith('{"') and compact.stdout.count("\n") == 1
    assert "\x1b" not in compact.stdout

    def data(text: str) -> dict[str, Any]:
        return {k: v for k, v in orjson.loads(text).items() if k != "as_of"}  # the same answer, a later moment

    document = data(compact.stdout)
    opening = f'{DELIM}{{{SGR_RESET}\n  {KEY}"'
    for env in ({**base, "GH_FORCE_TTY": "1"}, {**base, "GH_FORCE_TTY": "100%"}, {**base, "CLICOLOR_FORCE": "1"}):
        forced = a.cli(*args, env=env)
        assert forced.stdout.startswith(opening), (env, forced.stdout[:80])
        assert uncoloured(forced.stdout).startswith('{\n  "') and data(uncoloured(forced.stdout)) == document
    code, tty = on_terminal(args, base, a.home)
    assert code == 1 and tty.startswith(opening) and data(uncoloured(tty)) == document, tty[:80]
    assert f'{KEY}"status"{SGR_RESET}{DELIM}:{SGR_RESET} {STRING}"failed"{SGR_RESET}' in tty  # a key, a string value
    code, tty = on_terminal(args, {**base, "NO_COLOR": "1"}, a.home)  # as gh: no colour, no indentation
    assert code == 1 and tty.startswith('{"') and "\x1b" not in tty and data(tty) == document, tty[:80]
    # an error envelope follows the same rule
    missing = a.cli("checks", "acme/widgets#404", "--json", env={**base, "GH_FORCE_TTY": "1"})
    assert missing.returncode == 3 and missing.stdout.startswith(f'{DELIM}{{{SGR_RESET}\n  {KEY}"error"'), \
        missing.stdout[:80]
    assert orjson.loads(uncoloured(missing.stdout))["error"]["code"] == "pr_not_found"

    jq = ["checks", "acme/widgets#7", "--jq", ".checks[] | select(.bucket == \"pending\") | {name, bucket}"]
    assert a.cli(*jq, env=base).stdout == '{"name":"CI / e2e","bucket":"pending"}\n'
    assert a.cli(*jq, env={**base, "GH_FORCE_TTY": "1", "NO_COLOR": "1"}).stdout == \
        '{\n  "name": "CI / e2e",\n  "bucket": "pending"\n}\n'
    pair = f'{KEY}"name"{SGR_RESET}{DELIM}:{SGR_RESET}'
    assert a.cli(*jq, env={**base, "CLICOLOR_FORCE": "1"}).stdout == (  # coloured, compact: gh's --jq in a pipe
        f'{DELIM}{{{SGR_RESET}{pair}{STRING}"CI / e2e"{SGR_RESET}{DELIM},{SGR_RESET}'
        f'{KEY}"bucket"{SGR_RESET}{DELIM}:{SGR_RESET}{STRING}"pending"{SGR_RESET}{DELIM}}}{SGR_RESET}\n')
    code, tty = on_terminal(jq, base, a.home)
    assert tty == (f'{DELIM}{{{SGR_RESET}\n  {pair} {STRING}"CI / e2e"{SGR_RESET}{DELIM},{SGR_RESET}\n'
                   f'  {KEY}"bucket"{SGR_RESET}{DELIM}:{SGR_RESET} {STRING}"pending"{SGR_RESET}\n'
                   f'{DELIM}}}{SGR_RESET}\n'), tty
    code, tty = on_terminal(["checks", "acme/widgets#7", "--jq", ".checks[0].name"], base, a.home)
    assert tty == "CI / e2e\n"  # a string result prints raw and plain, as gh's
