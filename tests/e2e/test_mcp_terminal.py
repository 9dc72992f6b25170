"""`gh pr-agent mcp` typed at a terminal: it says what it is on stderr, and Ctrl-C stops it at once — no
traceback, no server left running. Run under a real pseudo-terminal (the child is its session leader, so
^C goes through the terminal's line discipline as SIGINT, as when a person presses it)."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _read_until(fd: int, needle: bytes, limit_s: float) -> bytes:
    out = b""
    end = time.monotonic() + limit_s
    while needle not in out and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def test_mcp_on_a_terminal_hints_and_stops_on_ctrl_c() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the server, on the terminal
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "pr_agent", "mcp"])
    try:
        shown = _read_until(fd, b"Ctrl-C stops it", 60)
        assert b"speaks the Model Context Protocol" in shown and b"gh pr-agent mcp" in shown, shown
        os.write(fd, b"\x03")  # ^C
        end = time.monotonic() + 10  # generous hang guard: it stops at once
        status = None
        rest = b""
        while time.monotonic() < end:
            rest += _read_until(fd, b"\x00", 0.2)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        assert status is not None and done == pid, "the server was still running 10 s after Ctrl-C"
        assert os.waitstatus_to_exitcode(status) == 130
        assert b"Traceback" not in shown + rest and b"ExceptionGroup" not in shown + rest, rest
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
