"""Started from a .pth line in child processes during `scripts/mutation map`: measure pr_agent, saved at exit.

Kept free of pytest and of the repository's imports so a child Python starts it cheaply.
"""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from typing import Any

PKG = Path(__file__).resolve().parents[2] / "pr_agent"


def measure(context: str | None) -> Any:
    import coverage

    cov = coverage.Coverage(data_file=os.path.join(os.environ["PR_AGENT_COV_DIR"], ".coverage"),
                            data_suffix=True, source=[str(PKG)], context=context, config_file=False)
    cov.set_option("run:sigterm", True)
    # silent on stderr: a measured child that ran no pr_agent code (or exited before saving) must not add a
    # CoverageWarning to output that a test compares exactly (a closed pipe, a full disk: tests/e2e/test_cli_citizen.py)
    cov.set_option("run:disable_warnings", ["no-data-collected", "module-not-measured", "module-not-imported",
                                            "couldnt-parse"])
    return cov


def start() -> None:
    cov = measure(os.environ.get("PR_AGENT_COV_CONTEXT") or None)
    cov.start()

    def save() -> None:
        cov.stop()
        cov.save()

    atexit.register(save)


if __name__ == "pr_agent_cov_boot" and os.environ.get("PR_AGENT_COV_DIR"):
    start()
