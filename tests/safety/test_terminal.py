"""Nothing untrusted reaches a terminal raw: error messages that quote what was typed or read (references,
paths, branch names), resolve's report of a hostile thread, and the offline parsers' views of hostile logs
and review bodies carry no ESC, C1 or bidi characters; every --json output stays one JSON document."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.e2e.conftest import Agent
from tests.safety.hostile import TEST_NAMES, TEXTS, UNSAFE_ON_TERMINAL
from tests.safety.test_hostile_content import ARGV_SAFE, hostile_world
from tests.safety.worlds import FAST_ENV, pinned_gh, world

EVIL = "x\x1b[2J\u202eevil\x9b\x07"
# calls that fail on their arguments and quote them back
ERROR_CALLS = [
    ["comments", f"acme/widgets#7{EVIL}"], ["comments", EVIL], ["ready", f"https://github.localhost/acme/widgets/pull/{EVIL}"],
    ["resolve", "acme/widgets#7", "--thread", f"PRRT_{EVIL}"], ["resolve", "acme/widgets#7", "--comment", EVIL],
    ["conflicts", "acme/widgets#7", "--target", f"m{EVIL}"], ["conflicts", "acme/widgets#7", "--repo-path", EVIL],
    ["stack", "acme/widgets#7", "acme/widgets#8", "--onto-base", f"m{EVIL}"],
    ["checks", "acme/widgets#7", "--cursor", EVIL],
    ["comments", "-R", EVIL, "7"], ["rebase-after-squash", "acme/widgets#7", "--upstream", EVIL],
    ["rebase-after-squash", "acme/widgets#7", "--target", f"m{EVIL}"], ["parse-review", EVIL], ["parse-log", EVIL],
    ["config", "get", EVIL], ["config", "set", EVIL, EVIL],
]


@pytest.mark.parametrize("args", ERROR_CALLS, ids=[a[0] + "-" + str(i) for i, a in enumerate(ERROR_CALLS)])
def test_error_messages_quote_untrusted_text_safely(make_hub, tmp_path: Path, args: list[str]) -> None:
    a = Agent(make_hub(world("feedback")), pinned_gh(), tmp_path / "home")
    env = a.env(**FAST_ENV)
    human = a.cli(*args, env=env)
    assert human.returncode != 0 and "Traceback" not in human.stderr
    assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr), human.stderr
    if args[0] not in ("config",):
        as_json = a.cli(*args, "--json", env=env)
        assert "error" in orjson.loads(as_json.stdout) and not UNSAFE_ON_TERMINAL.search(as_json.stderr)


def test_resolve_reports_hostile_threads_safely(make_hub, tmp_path: Path) -> None:
    a = Agent(make_hub(hostile_world()), pinned_gh(), tmp_path / "home")
    for i, reply in enumerate([*ARGV_SAFE[:10], None]):
        thread = f"PRRT_h{i}"
        args = ["resolve", "acme/widgets#7", "--thread", thread, *(["--reply", reply] if reply else []),
                "--when-reviewer-spoke-last", "resolve"]
        proc = a.cli(*args, env=a.env(**FAST_ENV))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert not UNSAFE_ON_TERMINAL.search(proc.stdout + proc.stderr), proc.stdout
    again = a.cli("resolve", "acme/widgets#7", "--thread", "PRRT_h9", "--json", env=a.env(**FAST_ENV))
    assert orjson.loads(again.stdout)["alreadyResolved"] is True


def _log_with(names: list[str]) -> str:
    lines = ["============================= test session starts ==============================", "collected 9 items",
             "=========================== short test summary info ============================",
             *[f"FAILED tests/test_h.py::test_x[{n}] - AssertionError: {n}" for n in names if "\n" not in n],
             *TEXTS, "========================= 9 failed in 0.12s ========================="]
    return "".join(f"2026-11-30T10:00:01.{i:07d}Z {line}\n" for i, line in enumerate(lines))


def test_offline_parsers_show_hostile_input_safely(tmp_path: Path) -> None:
    import subprocess
    import sys

    log = tmp_path / "hostile.log"
    log.write_bytes(_log_with(TEST_NAMES).encode() + b"\xff\xfe invalid utf-8 \xc3\x28\n")
    body = tmp_path / "review.md"
    body.write_text("\n\n".join([f"**{t}**\n\n`{t}`" for t in TEXTS if "\x00" not in t]), encoding="utf-8")
    from tests.e2e.conftest import ROOT

    for args in (["parse-log", str(log)], ["parse-review", str(body), "--author", "coderabbitai[bot]"]):
        human = subprocess.run([sys.executable, "-m", "pr_agent", *args], capture_output=True, text=True, cwd=ROOT,
                               timeout=60, check=False)
        assert "Traceback" not in human.stderr, human.stderr
        assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr), human.stdout
        as_json = subprocess.run([sys.executable, "-m", "pr_agent", *args, "--json"], capture_output=True, cwd=ROOT,
                                 timeout=60, check=False)
        orjson.loads(as_json.stdout)
