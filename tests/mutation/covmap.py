"""Which test executes which line: a pytest plugin recording coverage with one context per test item.

Loaded by ``scripts/mutation map`` as ``-p tests.mutation.covmap`` (never by the normal suite). Each pytest
process (xdist workers included) measures ``pr_agent`` with the running item's node id as the coverage context.
Subprocesses (the CLI and MCP server that e2e tests start through gh) are measured too: the runner installs a
``.pth`` line in the venv that, only when ``PR_AGENT_COV_DIR`` is set, starts ``subcov.py``, and the
plugin exports the current node id in ``PR_AGENT_COV_CONTEXT`` for them.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

PKG = Path(__file__).resolve().parents[2] / "pr_agent"
DIR_VAR, CONTEXT_VAR = "PR_AGENT_COV_DIR", "PR_AGENT_COV_CONTEXT"
BOOT_VAR = "PR_AGENT_COV_BOOT"
BOOT = Path(__file__).resolve().with_name("subcov.py")
PTH_NAME = "pr_agent_mutation_cov.pth"
# Inert unless PR_AGENT_COV_BOOT is set (only `scripts/mutation map` sets it).
PTH_LINE = ("import os; p = os.environ.get('PR_AGENT_COV_BOOT'); "
            "p and __import__('runpy').run_path(p, run_name='pr_agent_cov_boot')\n")


_cov: Any = None
_own = False


def pytest_configure(config: pytest.Config) -> None:
    global _cov, _own
    if not os.environ.get(DIR_VAR) or _cov is not None:
        return
    import coverage

    from tests.mutation.subcov import measure

    _cov = coverage.Coverage.current()  # started by the .pth line when this process booted
    if _cov is None:
        _cov, _own = measure(None), True
        _cov.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    global _cov
    if _cov is not None and _own:
        _cov.stop()
        _cov.save()
    _cov = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Generator[None, None, None]:
    if _cov is not None:
        _cov.switch_context(item.nodeid)
        os.environ[CONTEXT_VAR] = item.nodeid
    yield
    if _cov is not None:
        _cov.switch_context("between")
        os.environ.pop(CONTEXT_VAR, None)
