"""THE gateway to `gh` (design §4). No other module spawns gh.

Every GitHub request goes through :class:`Gh`: ``gh api -i`` so status and rate-limit headers are
visible, request bodies on stdin (``--input -``) so user text never touches argv or query text,
a cleaned child environment, bounded retries for idempotent reads, a per-call timeout, and a call
counter for the benchmarks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TypeVar
from urllib.parse import urlencode

import orjson

from pr_agent import envvars
from pr_agent.errors import PrAgentError, command_repair
from pr_agent.executables import which
from pr_agent.ghwire import (
    Response,
    cancelled_error,
    http_error,
    next_link,
    parse_included,
    process_error,
    raise_graphql_errors,
)
from pr_agent.hosts import HostPolicy
from pr_agent.shellcmd import command

MIN_GH_VERSION = (2, 23, 0)
INSTALL_URL = "https://github.com/cli/cli#installation"
_DROP_ENV = ("GH_FORCE_TTY", "CLICOLOR_FORCE", "GH_PAGER", "PAGER")
_T = TypeVar("_T")
_R = TypeVar("_R")


def debug(msg: str) -> None:
    if os.environ.get("GH_PR_AGENT_DEBUG"):
        print(f"[gh-pr-agent] {msg}", file=sys.stderr, flush=True)


@dataclass
class GhVersion:
    path: str
    version: tuple[int, int, int]


_version_cache: dict[str, GhVersion] = {}
_logins_cache: dict[tuple[str, str, str], frozenset[str]] = {}
_version_lock = threading.Lock()


def _parent_gh() -> str | None:
    """Run as a gh extension by a gh that is not on PATH (a bundled or unpacked gh): that gh is our parent
    process (the launcher execs Python). Linux only (/proc); elsewhere PATH or GH_PR_AGENT_GH decide."""
    try:
        exe = os.readlink(f"/proc/{os.getppid()}/exe")
    except OSError:
        return None
    return exe if os.path.basename(exe) in ("gh", "gh.exe") and os.access(exe, os.X_OK) else None


def find_gh() -> str:
    # GH_PATH: the gh that started us as an extension (gh >= 2.60 sets it); absolute paths only, never the cwd
    from_gh = os.environ.get("GH_PATH", "")
    path = (os.environ.get("GH_PR_AGENT_GH") or (from_gh if os.path.isabs(from_gh) else None) or which("gh")
            or _parent_gh())  # older gh: the parent process that runs us as an extension
    if not path or not os.path.exists(path):
        raise PrAgentError(
            "gh_not_found",
            (f"GH_PR_AGENT_GH={os.environ['GH_PR_AGENT_GH']!r} does not exist." if os.environ.get("GH_PR_AGENT_GH")
             else "The GitHub CLI `gh` was not found on PATH."),
            suggestion=f"Install gh {'.'.join(map(str, MIN_GH_VERSION))} or newer ({INSTALL_URL}), "
            "then run `gh auth login`.",
            details={"searched": "GH_PR_AGENT_GH, GH_PATH, PATH", "install_url": INSTALL_URL},
            repair=None,  # installing gh is platform-specific: the suggestion carries the link
        )
    return path


def check_gh(env: dict[str, str]) -> GhVersion:
    path = find_gh()
    with _version_lock:
        if path in _version_cache:
            return _version_cache[path]
        try:
            proc = subprocess.run([path, "--version"], capture_output=True, timeout=20, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrAgentError(
                "gh_not_found",
                f"`{path} --version` could not be run: {exc}.",
                suggestion=f"Reinstall gh ({INSTALL_URL}).",
                details={"path": path},
            ) from None
        m = re.search(rb"gh version (\d+)\.(\d+)\.(\d+)", proc.stdout)
        if not m:
            raise PrAgentError(
                "gh_not_found",
                f"`{path}` does not look like the GitHub CLI (no version line).",
                suggestion=f"Put the real gh first on PATH ({INSTALL_URL}) or set GH_PR_AGENT_GH.",
                details={"path": path, "output": proc.stdout[:200].decode("utf-8", "replace")},
            )
        version = (int(m[1]), int(m[2]), int(m[3]))
        if version < MIN_GH_VERSION:
            need = ".".join(map(str, MIN_GH_VERSION))
            raise PrAgentError(
                "gh_too_old",
                f"gh {'.'.join(map(str, version))} is too old; gh-pr-agent needs gh {need} or newer.",
                suggestion=f"Upgrade gh ({INSTALL_URL}).",
                details={"path": path, "version": ".".join(map(str, version)), "minimum": need},
                repair=command_repair(["gh", "--version"]),
            )
        _version_cache[path] = GhVersion(path, version)
        return _version_cache[path]


# gh 2.97.0 (GHSA-3m3g-3wcr-px46) refuses to print a body holding terminal escape sequences (job logs are full of
# colours) unless given --allow-escape-sequences; older gh does not know the flag. Chosen from the version check_gh
# already read (no `gh api --help` probe on the way to the first log).
ESCAPE_FLAG_SINCE = (2, 97, 0)
ESCAPE_FLAG = "--allow-escape-sequences"


def _timeout_hint() -> str:
    from pr_agent import surface

    return surface.text("Retry later", surface.face(
        cli="; set GH_PR_AGENT_TIMEOUT to wait longer.",
        mcp=" (the user can raise GH_PR_AGENT_TIMEOUT in this server's MCP configuration)."))


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for name in _DROP_ENV:
        env.pop(name, None)
    env.update(GH_PROMPT_DISABLED="1", NO_COLOR="1", GH_PAGER="cat", GH_NO_UPDATE_NOTIFIER="1",
               GH_SPINNER_DISABLED="1", GH_TELEMETRY="false", DO_NOT_TRACK="1")
    return env


def check_path(path: str) -> None:
    """A REST path is relative (gh adds the host) and has no empty, ``.`` or ``..`` segment, no control
    character and no leading ``-`` (it would be a gh option): data from a PR cannot walk to another endpoint."""
    route = path.split("?", 1)[0]
    segments = route.split("/")
    if (not route or route.startswith(("-", "/")) or "://" in route or any(s in ("", ".", "..") for s in segments)
            or any(ord(c) < 33 or ord(c) == 127 for c in path)):
        raise PrAgentError("invalid_arguments", f"Refusing the API path {path[:200]!r}: it has an empty, '.' or "
                           "'..' segment, a control character, or is not a relative path.",
                           suggestion="Check the owner, repository and ids you passed.",
                           details={"field": "path", "value": path[:200]})


@dataclass
class Gh:
    """One gateway per tool call or server. Thread-safe; counts its calls."""

    hostname: str | None = None
    timeout: float = field(default_factory=lambda: envvars.seconds("GH_PR_AGENT_TIMEOUT"))
    max_retries: int = 2
    max_retry_wait_s: float = field(default_factory=lambda: envvars.seconds("GH_PR_AGENT_MAX_RETRY_WAIT"))
    base_env: dict[str, str] | None = None
    sleep: Callable[[float], None] = time.sleep
    cancel: threading.Event | None = None
    calls: int = 0
    host_policy: HostPolicy | None = None  # None: github.com, GH_HOST and GH_PR_AGENT_ALLOWED_HOSTS, gh's logins
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- public API -------------------------------------------------------------------------
    def rest(self, method: str, path: str, *, params: dict[str, Any] | None = None,
             body: Any = None, hostname: str | None = None) -> Response:
        """One REST request. Raises PrAgentError for any non-2xx answer."""
        check_path(path)
        if params:
            path = f"{path}{'&' if '?' in path else '?'}{urlencode(params, doseq=True)}"
        argv = ["api", "-i", "--method", method.upper(), path]
        stdin = None
        if body is not None:
            argv += ["--input", "-"]
            stdin = orjson.dumps(body)
        return self._call(argv, stdin, idempotent=method.upper() in ("GET", "HEAD"), hostname=hostname,
                          what=f"{method.upper()} {path}")

    def rest_pages(self, path: str, params: dict[str, Any] | None = None, *,
                   hostname: str | None = None, max_pages: int = 100) -> list[Any]:
        """All items of a paginated REST list (follows Link rel="next")."""
        params = {"per_page": 100, **(params or {})}
        url: str | None = f"{path}{'&' if '?' in path else '?'}{urlencode(params, doseq=True)}"
        items: list[Any] = []
        pages = 0
        while url and pages < max_pages:
            resp = self.rest("GET", url, hostname=hostname)
            data = resp.json()
            items.extend(data if isinstance(data, list) else [data])
            url = next_link(resp.headers.get("link", ""))
            pages += 1
        return items

    def graphql(self, query: str, variables: dict[str, Any] | None = None, *, mutation: bool = False,
                hostname: str | None = None) -> dict[str, Any]:
        """Run one GraphQL document with variables; returns ``data``. Any ``errors`` raise."""
        payload = orjson.dumps({"query": query, "variables": variables or {}})
        op = re.search(r"\b(query|mutation)\s+(\w+)", query)
        resp = self._call(["api", "-i", "graphql", "--input", "-"], payload, idempotent=not mutation,
                          hostname=hostname, what=f"graphql {op[2] if op else ''}".strip())
        data = resp.json()
        if not isinstance(data, dict):
            raise PrAgentError("unexpected_response", "GitHub's GraphQL answer was not a JSON object.",
                               suggestion="Retry the call.", details={"status": resp.status})
        return data.get("data") or {}

    def graphql_partial(self, query: str, variables: dict[str, Any] | None = None, *, tolerate: tuple[str, ...],
                        hostname: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A read where some fields may be refused: NOT_FOUND / FORBIDDEN / INSUFFICIENT_SCOPES errors whose path
        starts with one of ``tolerate`` (dotted field names, list indices skipped: ``"nodes"``,
        ``"repository.pullRequest.baseRef.rules"``) come back as ``(data, those errors)`` with those fields null,
        for the caller to say what it could not read. Any other error raises as in :meth:`graphql`."""
        payload = orjson.dumps({"query": query, "variables": variables or {}})
        op = re.search(r"\b(query|mutation)\s+(\w+)", query)
        resp = self._call(["api", "-i", "graphql", "--input", "-"], payload, idempotent=True, hostname=hostname,
                          what=f"graphql {op[2] if op else ''}".strip(), tolerate=tolerate)
        data = resp.json()
        if not isinstance(data, dict):
            raise PrAgentError("unexpected_response", "GitHub's GraphQL answer was not a JSON object.",
                               suggestion="Retry the call.", details={"status": resp.status})
        return data.get("data") or {}, [e for e in data.get("errors") or [] if isinstance(e, dict)]

    def mutate(self, query: str, variables: dict[str, Any] | None = None, *,
               hostname: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A mutation (sent once, never retried) whose ``data`` comes back even beside ``errors``: the caller reads
        the data to tell what was applied. An answer without data raises as in :meth:`graphql`."""
        payload = orjson.dumps({"query": query, "variables": variables or {}})
        op = re.search(r"\b(query|mutation)\s+(\w+)", query)
        resp = self._call(["api", "-i", "graphql", "--input", "-"], payload, idempotent=False, hostname=hostname,
                          what=f"graphql {op[2] if op else ''}".strip(), tolerate=("*",))
        data = resp.json()
        if not isinstance(data, dict):
            raise PrAgentError("unexpected_response", "GitHub's GraphQL answer was not a JSON object.",
                               suggestion="Check the PR before retrying: the write may have been applied.",
                               details={"status": resp.status, "maybe_applied": True})
        return data.get("data") or {}, [e for e in data.get("errors") or [] if isinstance(e, dict)]

    def pool(self, max_workers: int = 6) -> ThreadPoolExecutor:
        """A bounded pool for independent calls that are discovered as results arrive."""
        return ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="gh")

    def map(self, fn: Callable[[_T], _R], items: Iterable[_T], max_workers: int = 6) -> list[_R]:
        """Run independent calls concurrently (bounded), preserving order; the first error wins."""
        items = list(items)
        if len(items) <= 1:
            return [fn(i) for i in items]
        with ThreadPoolExecutor(max_workers=min(max_workers, len(items))) as pool:
            return list(pool.map(fn, items))

    def download(self, path: str, dest: BinaryIO, *, hostname: str | None = None) -> Response:
        """GET ``path`` and stream the body into ``dest`` in chunks (memory stays bounded: job logs can be
        hundreds of MB). gh follows redirects (a job log answers 302 to a short-lived blob URL). Returns the
        final status and headers (``body`` empty); a non-2xx answer raises like :meth:`rest`. Retried like
        any read while nothing was written; killed on cancellation or after ``timeout`` seconds of silence.
        """
        host = hostname or self.hostname
        self._check_host(host)
        check_path(path)
        env = self._env()
        found = check_gh(env)
        # The body goes to a file, never to a terminal: let gh >= 2.97 write escape sequences (ESCAPE_FLAG_SINCE).
        allow = [ESCAPE_FLAG] if found.version >= ESCAPE_FLAG_SINCE else []
        what = f"GET {path}"
        start = dest.tell()

        def attempt() -> Response:
            dest.seek(start)
            dest.truncate()  # a retry starts from a clean file
            argv = [found.path, "api", *(["--hostname", host] if host else []), "-i", *allow, "--method", "GET",
                    path]
            try:
                return self._stream_once(argv, env, dest, what)
            except PrAgentError as err:  # an older gh with the refusal backported: once more, with the flag
                if allow or ESCAPE_FLAG not in str(err.details.get("gh_stderr") or ""):
                    raise
                allow.append(ESCAPE_FLAG)
                dest.seek(start)
                dest.truncate()
                argv = [*argv[:-3], ESCAPE_FLAG, *argv[-3:]]
                return self._stream_once(argv, env, dest, what)

        return self._retrying(attempt, idempotent=True, host=host, what=what)

    # -- internals --------------------------------------------------------------------------
    def logged_in_hosts(self) -> frozenset[str]:
        """Hosts gh is logged into (``gh auth status``; asked once per gh binary and config directory)."""
        env = self._env()
        gh = check_gh(env).path
        key = (gh, env.get("GH_CONFIG_DIR", ""), env.get("HOME", ""))
        with _version_lock:
            if key in _logins_cache:
                return _logins_cache[key]
        try:
            proc = subprocess.run([gh, "auth", "status"], capture_output=True, timeout=self.timeout, env=env,
                                  check=False, stdin=subprocess.DEVNULL)
            text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired):
            text = ""
        hosts = frozenset(m.lower() for m in re.findall(r"Logged in to ([A-Za-z0-9.:\[\]-]+)", text))
        with _version_lock:
            _logins_cache[key] = hosts
        return hosts

    def _check_host(self, host: str | None) -> None:
        """Refuse (``untrusted_host``) a host the user did not choose, before gh is run for it."""
        if not host:
            return
        if self.host_policy is None:
            self.host_policy = HostPolicy(self._env(), logged_in=self.logged_in_hosts)
        self.host_policy.check(host)

    def _env(self) -> dict[str, str]:
        return child_env(self.base_env)

    def _call(self, argv: list[str], stdin: bytes | None, *, idempotent: bool, hostname: str | None,
              what: str, tolerate: tuple[str, ...] = ()) -> Response:
        host = hostname or self.hostname
        self._check_host(host)
        env = self._env()
        gh = check_gh(env).path
        full = [gh, *argv[:1], *(["--hostname", host] if host else []), *argv[1:]]
        return self._retrying(lambda: self._once(full, stdin, env, what, tolerate), idempotent=idempotent,
                              host=host, what=what)

    def _retrying(self, once: Callable[[], Response], *, idempotent: bool, host: str | None,
                  what: str) -> Response:
        """Run ``once``; retry idempotent reads on temporary failures with backoff (honouring
        ``retry-after``); never retry a write; stop at once on cancellation."""
        attempt = 0
        while True:
            try:
                return once()
            except PrAgentError as err:
                # the host gh used: the PR's own, else GH_HOST (a GitHub Enterprise default), else github.com
                default = ((os.environ if self.base_env is None else self.base_env).get("GH_HOST") or "").strip()
                login_host = host or (default.lower() if default.lower() not in ("", "github.com") else None)
                if login_host and err.code in ("auth_failed", "gh_not_authenticated"):
                    err.details["host"] = login_host
                    if err.code == "auth_failed":
                        err.message = f"gh has no valid login for {login_host} (its token was missing or rejected)."
                    err.repair = command_repair(["gh", "auth", "login", "--hostname", login_host])
                    login = command(["gh", "auth", "login", "--hostname", login_host])
                    err.suggestion = f"Log in to {login_host} with `{login}` (or set a token)."
                wait = self._retry_wait(err, attempt) if idempotent else None
                if wait is None:
                    raise
                attempt += 1
                debug(f"retry {attempt}/{self.max_retries} of {what} in {wait:.2f}s after {err.code}")
                if self.cancel is not None:
                    if self.cancel.wait(wait):
                        raise cancelled_error(what) from None
                else:
                    self.sleep(wait)

    def _retry_wait(self, err: PrAgentError, attempt: int) -> float | None:
        if attempt >= self.max_retries or not err.temporary or err.code == "timeout":
            return None
        if err.code == "rate_limited":
            if err.details.get("kind") != "secondary" or err.retry_after_ms is None:
                return None
            wait = err.retry_after_ms / 1000
            return wait if wait <= self.max_retry_wait_s else None
        return 0.5 * (2**attempt)

    def _spawn(self, argv: list[str], stdin: bytes | None, env: dict[str, str],
               what: str) -> subprocess.CompletedProcess[bytes]:
        """Run gh to completion, killing it on timeout or cancellation (no child is left behind)."""
        if self.cancel is not None and self.cancel.is_set():
            raise cancelled_error(what)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env)
        except OSError as exc:
            raise PrAgentError("gh_not_found", f"gh could not be started: {exc}.",
                               suggestion=f"Reinstall gh ({INSTALL_URL}).", details={"path": argv[0]}) from None
        deadline = time.monotonic() + self.timeout
        data: bytes | None = stdin if stdin is not None else b""
        while True:
            try:
                out, err = proc.communicate(data, timeout=0.1 if self.cancel is not None else self.timeout)
                break
            except subprocess.TimeoutExpired:
                data = None
                cancelled = self.cancel is not None and self.cancel.is_set()
                if cancelled or time.monotonic() >= deadline:
                    proc.kill()
                    proc.communicate()
                    if cancelled:
                        raise cancelled_error(what) from None
                    raise PrAgentError(
                        "timeout", f"GitHub did not answer {what} within {self.timeout:.0f}s.",
                        suggestion=_timeout_hint(),
                        details={"request": what, "timeout_s": self.timeout}) from None
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def _stream_once(self, argv: list[str], env: dict[str, str], dest: BinaryIO, what: str) -> Response:
        with self._lock:
            self.calls += 1
        if self.cancel is not None and self.cancel.is_set():
            raise cancelled_error(what)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env)
        except OSError as exc:
            raise PrAgentError("gh_not_found", f"gh could not be started: {exc}.",
                               suggestion=f"Reinstall gh ({INSTALL_URL}).", details={"path": argv[0]}) from None
        assert proc.stdout is not None and proc.stderr is not None
        last = [time.monotonic()]
        why: list[str] = []
        done = threading.Event()
        errors: list[bytes] = []

        def watchdog() -> None:
            while not done.wait(0.1):
                if self.cancel is not None and self.cancel.is_set():
                    why.append("cancelled")
                elif time.monotonic() - last[0] > self.timeout:
                    why.append("timeout")
                else:
                    continue
                proc.kill()
                return

        def drain_stderr() -> None:
            assert proc.stderr is not None
            for chunk in iter(lambda: proc.stderr.read(65536), b""):  # type: ignore[union-attr]
                if sum(map(len, errors)) < 65536:
                    errors.append(chunk)

        threads = [threading.Thread(target=watchdog, daemon=True), threading.Thread(target=drain_stderr,
                                                                                    daemon=True)]
        for t in threads:
            t.start()
        head = b""
        parsed: tuple[int, dict[str, str], bytes] | None = None
        error_body = b""
        try:
            for chunk in iter(lambda: proc.stdout.read1(1 << 16), b""):  # type: ignore[union-attr]
                last[0] = time.monotonic()
                if parsed is None:
                    head += chunk
                    ends = [i for i in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if i >= 0]
                    if not ends:
                        continue
                    parsed = parse_included(head)
                    if parsed is None:
                        continue
                    chunk = parsed[2]
                if parsed[0] >= 400:
                    if len(error_body) < 1 << 20:
                        error_body += chunk
                else:
                    dest.write(chunk)
            proc.wait()
        finally:
            done.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            threads[1].join(timeout=5)
        debug(f"{what} (streamed) -> exit {proc.returncode}")
        if "cancelled" in why:
            raise cancelled_error(what)
        if "timeout" in why:
            raise PrAgentError("timeout", f"GitHub sent nothing for {what} within {self.timeout:.0f}s.",
                               suggestion=_timeout_hint(),
                               details={"request": what, "timeout_s": self.timeout})
        if parsed is None:
            raise process_error(subprocess.CompletedProcess(argv, proc.returncode, head, b"".join(errors)), what)
        status, headers, _ = parsed
        if status >= 400:
            raise http_error(status, headers, error_body, what)
        if proc.returncode != 0:  # gh gave up on the body after the headers (e.g. it refused escape sequences)
            raise process_error(subprocess.CompletedProcess(argv, proc.returncode, head, b"".join(errors)), what)
        return Response(status, headers, b"")

    def _once(self, argv: list[str], stdin: bytes | None, env: dict[str, str], what: str,
              tolerate: tuple[str, ...] = ()) -> Response:
        with self._lock:
            self.calls += 1
        started = time.monotonic()
        proc = self._spawn(argv, stdin, env, what)
        debug(f"{what} -> exit {proc.returncode} in {time.monotonic() - started:.2f}s")
        parsed = parse_included(proc.stdout)
        if parsed is None:
            raise process_error(proc, what)
        status, headers, body = parsed
        if status >= 400:
            raise http_error(status, headers, body, what)
        if what.startswith("graphql"):
            raise_graphql_errors(headers, body, what, tolerate)
            return Response(status, headers, body)
        resp = Response(status, headers, body)
        if "json" in headers.get("content-type", ""):
            resp.json()  # parsed here, so a cut-off answer is a temporary failure retried like any other (reads)
        return resp


