"""What the CLI prints, as gh would. Colour as gh does it: on a terminal failed checks are red, pending yellow,
passed green and secondary text dim; plain when piped; NO_COLOR (any non-empty value) and CLICOLOR=0 turn it off,
CLICOLOR_FORCE (not "0") and GH_FORCE_TTY turn it on in a pipe. `--jq EXPR` filters the JSON output like gh's
--jq. `checks` runs through real gh against one fakehub for the module, its stdout a real pseudo-terminal where
the terminal matters."""

from __future__ import annotations

import os
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

    as_json = a.cli(*args, "--json", env={**base, "CLICOLOR_FORCE": "1"})  # JSON is data: never coloured
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
