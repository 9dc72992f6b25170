"""scripts/demo runs end to end through real gh, plain when piped, with content under each caption."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_runs_every_section_plain_when_piped() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "GITHUB_"))}
    proc = subprocess.run([str(ROOT / "scripts" / "demo")], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "\x1b[" not in out  # piped: no escapes
    sections = re.split(r"\n# ", out)[1:]
    captions = {s.split("\n", 1)[0].split(":")[0]: s.split("\n", 1)[1] for s in sections}
    expect = {"comments": "PRRT_", "resolve": "resolved", "ready": "acme/widgets#42:", "checks": "acme/widgets#42",
              "parse-log (offline)": "tests/test_invoice.py:48",
              "parse-review (offline)": "bot: coderabbit; 3 item(s)",
              "MCP": "isError: False | total_unresolved: 6"}
    for caption, content in expect.items():
        assert caption in captions and content in captions[caption], (caption, captions.get(caption, "")[:500])
    assert "Traceback" not in out + proc.stderr and "gh_not_found" not in out + proc.stderr
