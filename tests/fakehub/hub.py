"""FakeHub: start a fake GitHub on loopback for one scenario, and look at what happened."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .faults import Fault
from .gql import RateBucket
from .server import Request, SchemaViolation, Server
from .world import World

# Variables that would make a child gh talk to the real GitHub, or print colours/pagers into pipes.
SCRUB = ("GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_REPO", "GH_FORCE_TTY",
         "CLICOLOR_FORCE", "GH_PAGER", "PAGER", "GH_DEBUG", "GH_BROWSER", "BROWSER", "ALL_PROXY", "all_proxy")
DEFAULT_TOKEN = "gho_fakehub0000000000000000000000000000"
DEMO_SCENARIO = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios" / "demo.json"


class FakeHub:
    """A fake GitHub for real `gh`. Use as a context manager (or start()/stop())::

        with FakeHub("fixtures/scenarios/demo.json") as hub:
            subprocess.run(["gh", "api", "user"], env={**os.environ, **hub.env})
    """

    def __init__(self, scenario: dict[str, Any] | str | Path, *, latency_ms: float = 0, port: int = 0,
                 host: str = "127.0.0.1", token: str = DEFAULT_TOKEN, verbose: bool = False) -> None:
        self.world = World(scenario)
        self.latency_ms = latency_ms
        self.token = token
        self.verbose = verbose
        self.bad_tokens: set[str] = {"bad-token"}
        self.requests: list[Request] = []
        self.unhandled: list[Request] = []
        self.schema_violations: list[SchemaViolation] = []
        self.errors: list[str] = []  # tracebacks of fakehub's own bugs (answered 500)
        self.faults: list[Fault] = []
        rl = self.world.data["rate_limit"]
        reset = rl["reset"] or int(time.time()) + 3600
        self.rates = {name: RateBucket(rl["limit"], rl["limit"] - rl["remaining"], reset)
                      for name in ("core", "graphql")}
        self._host, self._port = host, port
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._counter = 0
        self._tmp: Path | None = None

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> FakeHub:
        return cls(Path(path), **kwargs)

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> FakeHub:
        if self._server is not None:
            return self
        self._tmp = Path(tempfile.mkdtemp(prefix="fakehub-"))
        for sub in ("config/gh", "cache", "state", "data", "tmp"):
            (self._tmp / sub).mkdir(parents=True)
        self._server = Server((self._host, self._port), self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"fakehub:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.close_connections()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- where and how to reach it
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeHub is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def home(self) -> Path:
        """The hub's private temp dir (GH_CONFIG_DIR, XDG_* and TMPDIR live under it)."""
        if self._tmp is None:
            raise RuntimeError("FakeHub is not started")
        return self._tmp

    @property
    def env(self) -> dict[str, str]:
        """What to merge into a child's environment so that `gh` talks to this hub and nothing else."""
        home = self.home
        return {
            "GH_HOST": "github.localhost", "GH_TOKEN": self.token,
            "HTTP_PROXY": self.url, "HTTPS_PROXY": self.url, "http_proxy": self.url, "https_proxy": self.url,
            "NO_PROXY": "", "no_proxy": "",
            "GH_CONFIG_DIR": str(home / "config" / "gh"), "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
            "XDG_DATA_HOME": str(home / "data"), "TMPDIR": str(home / "tmp"),
            "GH_NO_UPDATE_NOTIFIER": "1", "GH_PROMPT_DISABLED": "1", "NO_COLOR": "1",
        }

    def child_env(self, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
        """A full environment for a subprocess: `base` (default os.environ) without variables that could
        reach the real GitHub or colour the output, plus :attr:`env`, plus `extra`."""
        env = {k: v for k, v in (os.environ if base is None else base).items() if k not in SCRUB}
        return {**env, **self.env, **extra}

    def run_gh(self, gh: str | Path, *args: str, input: str | bytes | None = None, cwd: str | Path | None = None,
               timeout: float = 60, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run a real gh binary against this hub (text mode, output captured)."""
        data = input.decode() if isinstance(input, bytes) else input
        return subprocess.run([str(gh), *args], input=data, capture_output=True, text=True, cwd=cwd,
                              env=env or self.child_env(), timeout=timeout, check=False)

    # ---------------------------------------------------------------- observing
    @property
    def request_count(self) -> int:
        return len(self.requests)

    def reset_counters(self) -> None:
        """Forget recorded requests (not unhandled requests, schema violations or errors)."""
        with self._lock:
            self.requests.clear()

    def find_requests(self, method: str | None = None, path: str | None = None,
                      operation: str | None = None) -> list[Request]:
        """Recorded requests filtered by exact method, path prefix and GraphQL operation name."""
        return [r for r in list(self.requests)
                if (method is None or r.method == method) and (path is None or r.path.startswith(path))
                and (operation is None or r.operation == operation)]

    @property
    def problems(self) -> list[str]:
        """Everything that should fail a test: unhandled requests, schema violations, fakehub errors."""
        out = [f"unhandled: {r.method} {r.path} -> {r.status} {r.response_body[:300]!r}" for r in self.unhandled]
        out += [f"schema violation in {v.operation} ({v.request.method} {v.request.path}): "
                + "; ".join(v.errors[:5]) for v in self.schema_violations]
        out += [f"fakehub error: {e}" for e in self.errors]
        return out

    # ---------------------------------------------------------------- faults
    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    # ---------------------------------------------------------------- used by the server
    def _log(self, rec: Request) -> None:
        with self._lock:
            self.requests.append(rec)

    def _take_fault(self, rec: Request) -> Fault | None:
        with self._lock:
            live = [f for f in self.faults if not f.expired]
        for fault in live:
            if fault.matches(rec.method, rec.path, rec.raw_query, rec.operation, rec.top_fields) and fault.claim():
                return fault
        return None

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    def _request_id(self) -> str:
        with self._lock:
            self._counter += 1
            n = self._counter
        return f"F4KE:{os.getpid() % 0xFFFF:04X}:{n:06X}:{(n * 7919) % 0xFFFFFF:06X}:{int(time.time()):08X}"

    def _rate_headers(self, rec: Request) -> dict[str, str]:
        name = "graphql" if rec.path == "/graphql" else "core"
        b = self.rates[name]
        return {"X-Ratelimit-Limit": str(b.limit), "X-Ratelimit-Remaining": str(b.remaining),
                "X-Ratelimit-Reset": str(b.reset), "X-Ratelimit-Used": str(b.used), "X-Ratelimit-Resource": name}

    def __repr__(self) -> str:
        where = self.url if self._server else "stopped"
        return f"<FakeHub {where} requests={len(self.requests)} unhandled={len(self.unhandled)}>"

