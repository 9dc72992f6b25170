"""Which hosts gh may be asked about (design §10, "Hosts").

``gh api --hostname H`` authenticates to ``H`` with ``GH_ENTERPRISE_TOKEN`` (and, on current gh, ``GH_TOKEN``
for ``*.ghe.com``), so a host taken from untrusted text — a PR URL in a comment, a ``host/owner/repo#N``, a
job-log URI — would be a token leak. gh is only ever asked about hosts the user chose:

- github.com;
- ``GH_HOST``;
- hosts of the current clone's remotes;
- hosts listed in ``GH_PR_AGENT_ALLOWED_HOSTS`` (comma- or space-separated: the explicit opt-in);
- hosts gh is logged into (``gh auth status``, asked once per process and only when the cheaper sources
  above do not already allow the host).

Any other host is refused with ``untrusted_host`` before gh is run for it. The gateway
(:class:`pr_agent.gh.Gh`) calls :meth:`HostPolicy.check` for every request that names a host.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping

from pr_agent.errors import PrAgentError

ALLOW_ENV = "GH_PR_AGENT_ALLOWED_HOSTS"
DEFAULT_HOST = "github.com"


def normalize_host(host: str) -> str:
    """The form gh compares hosts in: lower case, no trailing dot, ``api.``/``www.`` of a domain dropped."""
    host = host.strip().lower().rstrip(".")
    for prefix in ("www.", "api."):
        if host.startswith(prefix) and host.count(".") >= 2:
            host = host[len(prefix) :]
    if host == "ssh.github.com":
        host = DEFAULT_HOST
    return host


def _listed(value: str | None) -> set[str]:
    return {normalize_host(h) for h in re.split(r"[\s,]+", value or "") if h.strip()}


def untrusted_host(host: str, allowed: Iterable[str]) -> PrAgentError:
    shown = host[:200]
    return PrAgentError(
        "untrusted_host",
        f"Refusing to contact {shown!r}: it is not github.com, GH_HOST, a host gh is logged into or a host of "
        "this clone's remotes, and gh would send your enterprise token to it.",
        suggestion=f"If you trust {shown}, allow it explicitly: set {ALLOW_ENV}={shown} (comma-separated for "
        "several), or log in to it with gh yourself. Otherwise name the PR on a host you use.",
        details={"host": shown, "allowed_hosts": sorted(allowed), "allow_env": ALLOW_ENV},
    )


class HostPolicy:
    """The hosts the user chose. ``remote_hosts`` and ``logged_in`` are asked lazily, each at most once."""

    def __init__(self, env: Mapping[str, str], *, remote_hosts: Callable[[], Iterable[str]] | None = None,
                 logged_in: Callable[[], Iterable[str]] | None = None) -> None:
        self._static = {DEFAULT_HOST} | _listed(env.get("GH_HOST")) | _listed(env.get(ALLOW_ENV))
        self._sources = [s for s in (remote_hosts, logged_in) if s is not None]
        self._known: set[str] = set()
        self._asked = 0
        self._lock = threading.Lock()

    def allowed(self, host: str) -> bool:
        want = normalize_host(host)
        if want in self._static:
            return True
        with self._lock:
            while want not in self._known and self._asked < len(self._sources):
                source = self._sources[self._asked]
                self._asked += 1
                self._known |= {normalize_host(h) for h in source() if h}
            return want in self._known

    def check(self, host: str) -> None:
        """Raise ``untrusted_host`` unless gh may be asked about ``host``."""
        if not self.allowed(host):
            with self._lock:
                known = self._static | self._known
            raise untrusted_host(host, known)
