"""scripts/demo is the product tour: it runs every tool through real gh on its demo world (tests/e2e/demo_world.py)
and each section shows real content. Expected facts come from the world and the fixtures' own sidecars
(``*.expected.json``, checked by hand when the samples were captured), never from the tools' output.

Three runs: piped with the gh on PATH (plain text); on a pseudo-terminal with no gh on PATH at all (only the
bundled one; captions in colour); on a pseudo-terminal with NO_COLOR (plain again)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PYTEST_LOG = ROOT / "fixtures/logs/real/pytest/01-one-failed-1039-passed.expected.json"
TSC_LOG = ROOT / "fixtures/logs/real/nontest/01-tsc-annotated-errors.expected.json"
GO_LOG = ROOT / "fixtures/logs/real/go/02-subtests-nested.expected.json"
REVIEW = ROOT / "fixtures/reviews/real/coderabbit/06-2026-03-caution-nitpicks-prompts.expected.json"
DEMO_JSON = ROOT / "fixtures/scenarios/demo.json"
TOOLS = ["checks", "comments", "resolve", "ready", "conflicts", "stack", "rebase-after-squash", "parse-log (offline)",
         "parse-review (offline)", "MCP"]
HANG_GUARD_S = 300  # the demo takes well under a minute; this only stops a hung run


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GH_", "GITHUB_")) and k not in ("NO_COLOR", "CLICOLOR_FORCE")}
    env.update(extra)
    return env


def _path_without_gh(tmp: Path) -> str:
    """A PATH with every program of the current one except gh (symlinks in one directory)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for entry in os.environ["PATH"].split(os.pathsep):
        d = Path(entry)
        if not d.is_dir():
            continue
        for prog in d.iterdir():
            link = bin_dir / prog.name
            if prog.name != "gh" and not link.exists() and os.access(prog, os.X_OK) and prog.is_file():
                link.symlink_to(prog)
    return str(bin_dir)


def _run_on_pty(env: dict[str, str]) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the demo, on a terminal
        os.execve(str(ROOT / "scripts" / "demo"), [str(ROOT / "scripts" / "demo")], env)
    out = b""
    end = time.monotonic() + HANG_GUARD_S
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the demo closed the terminal (exited)
                    break
                if not chunk:
                    break
                out += chunk
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace").replace("\r\n", "\n")


def _sections(out: str) -> dict[str, str]:
    """caption's tool name -> the caption line and everything printed under it."""
    plain = ANSI.sub("", out)
    return {part.split(":", 1)[0]: part for part in re.split(r"\n# ", plain)[1:]}


def _check_tour(out: str) -> None:
    sections = _sections(out)
    assert list(sections) == TOOLS, list(sections)
    for name, text in sections.items():
        caption, _, body = text.partition("\n")
        assert len(caption) > len(name) + 20, f"{name}: no caption"
        assert body.strip().startswith("$ gh pr-agent"), f"{name}: no command under the caption"
        assert "Traceback" not in body, (name, body[:300])

    failure = json.loads(PYTEST_LOG.read_text())["failures"][0]
    where = f"{failure['file_path']}:{failure['line_number']}"
    checks = sections["checks"]
    assert failure["test_name"] in checks and where in checks
    assert f"rerun: pytest {failure['test_name']}" in checks
    tsc = json.loads(TSC_LOG.read_text())["non_test_failure"]
    assert f"{tsc['kind']}: {tsc['summary']}" in checks  # the non-test failure, with its decisive lines
    assert all(line in checks for line in tsc["decisive_lines"])

    demo = json.loads(DEMO_JSON.read_text())["repositories"][0]["pull_requests"][0]
    comments = sections["comments"]
    assert "Shell command built from user input." in comments  # CodeRabbit's inline finding, as its title
    assert "Prefer `functools.lru_cache` here." in comments  # a nitpick CodeRabbit buried in its review body
    assert "last word: bob" in comments  # the human discussion, with who spoke last
    open_threads = [t for t in demo["threads"] if not t.get("resolved")]
    assert all(t["id"] in comments for t in open_threads if t["comments"][0]["author"] != "github-actions")
    assert "thread PRRT_kwDOKdemo0001 resolved" in sections["resolve"]

    ready = sections["ready"]
    assert "conflicts with 'main'" in ready and "Required check 'CI / tests' failed" in ready
    assert "Changes requested by alice" in ready
    assert f"{len(open_threads) - 1} review conversation(s) unresolved" in ready  # one was just resolved

    conflicts = sections["conflicts"]
    assert "src/widgets/parser.py  [content]" in conflicts
    assert 'head |     raw = headers.get("Content-Type")' in conflicts  # the PR's side of the hunk
    assert "-- src/widgets/parser.py && git commit --no-edit" in conflicts  # the add step of the resolution

    onto = re.compile(r"git rebase --onto refs/remotes/origin/main [0-9a-f]{40} feature/cache-stats\n")
    for name in ("stack", "rebase-after-squash"):
        assert onto.search(sections[name]), name
        assert "#44 was squash-merged into main" in sections[name], name
    assert "acme/widgets#45 after acme/widgets#44 (squash)" in sections["rebase-after-squash"]  # found by itself

    for f in json.loads(GO_LOG.read_text())["failures"]:
        assert f"{f['test_name']}  ({f['file_path']}:{f['line_number']})" in sections["parse-log (offline)"]
    review = json.loads(REVIEW.read_text())
    assert f"bot: {review['bot']}; {len(review['items'])} item(s)" in sections["parse-review (offline)"]
    for item in review["items"]:
        assert f"{item['file_path']}:{item['start_line']}" in sections["parse-review (offline)"]
        assert item["title"] in sections["parse-review (offline)"]

    mcp = sections["MCP"]
    assert "isError: False | status: failed | total_failures: 1" in mcp
    assert f"failures[]: {failure['test_name']} at {where} (CI / tests)" in mcp
    assert f"reproduce_command: pytest {failure['test_name']}" in mcp
    assert f"failed_checks[]: CI / typecheck: {tsc['summary']}" in mcp
    assert ANSI.sub("", out).rstrip().endswith("Your own gh config was not touched.")  # nothing cut off


def test_demo_piped_with_gh_on_path_is_plain() -> None:
    gh = shutil.which("gh")
    assert gh, "gh 2.23 is expected on PATH on the test machines"
    proc = subprocess.run([str(ROOT / "scripts" / "demo")], capture_output=True, text=True, env=_env(),
                          timeout=HANG_GUARD_S, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "\x1b" not in proc.stdout  # piped: no escapes at all
    assert f"every command goes through {gh} (gh version" in proc.stdout
    _check_tour(proc.stdout)
    assert "Traceback" not in proc.stderr and "demo:" not in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
def test_demo_on_a_terminal_with_only_the_bundled_gh(tmp_path: Path, no_color: bool) -> None:
    path = _path_without_gh(tmp_path)
    probe = subprocess.run(["bash", "-c", "command -v gh || echo none"], capture_output=True, text=True,
                           env=_env(PATH=path), check=False)
    assert probe.stdout.strip() == "none"  # really no gh on this PATH
    env = _env(PATH=path, TERM="xterm-256color", **({"NO_COLOR": "1"} if no_color else {}))
    code, out = _run_on_pty(env)
    assert code == 0, out[-3000:]
    assert re.search(r"every command goes through the bundled gh \(\S+/\.venv/bin/gh; there is none on your PATH\) "
                     r"\(gh version 2\.\d+", ANSI.sub("", out)), out[:500]
    _check_tour(out)
    caption = re.search(r"\n(.*)# checks: ", out)
    assert caption
    if no_color:
        assert "\x1b[" not in out
    else:
        assert caption.group(1) == "\x1b[36m" and "\x1b[1m$ gh pr-agent checks 42\x1b[0m" in out
