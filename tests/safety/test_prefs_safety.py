"""Preferences (issue 18 item 9), with real processes: concurrent `config set` of different keys keep every key
(lock + read again + temp file + rename); a symlinked preferences.json is followed (the link stays); a FIFO or a
directory there is a clear error, never a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.e2e.conftest import ROOT

VALUES = {"find_unresolved_comments.include_bots": "false", "find_unresolved_comments.include_outdated": "false",
          "find_unresolved_comments.parse_review_bodies": "false", "find_unresolved_comments.sort": "by_file",
          "get_failing_tests.bail_on_first": "false", "get_failing_tests.wait": "true",
          "manage_stacked_prs.auto_fix": "false", "resolve_review_thread.when_reviewer_spoke_last": "resolve"}


def _env(cfg: Path) -> dict[str, str]:
    return {**os.environ, "GH_PR_AGENT_CONFIG_DIR": str(cfg), "PYTHONPATH": str(ROOT)}


def _config(cfg: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pr_agent", "config", *args], capture_output=True, text=True,
                          env=_env(cfg), timeout=timeout, check=False)


def test_parallel_sets_of_different_keys_keep_every_key(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    for _round in range(1):
        procs = [subprocess.Popen([sys.executable, "-m", "pr_agent", "config", "set", key, value], env=_env(cfg),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for key, value in VALUES.items()]
        for proc in procs:
            _out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
        stored = orjson.loads((cfg / "preferences.json").read_bytes())
        assert stored == {k: json.loads(v) if v in ("true", "false") else v for k, v in VALUES.items()}
        assert [p.name for p in cfg.iterdir() if p.name.startswith(".preferences.")] == []  # no temp file left
        (cfg / "preferences.json").unlink()


def test_a_symlinked_file_is_followed(tmp_path: Path) -> None:
    cfg, dotfiles = tmp_path / "cfg", tmp_path / "dotfiles"
    cfg.mkdir()
    dotfiles.mkdir()
    (dotfiles / "prefs.json").write_text('{"find_unresolved_comments.sort": "by_author"}', encoding="utf-8")
    (cfg / "preferences.json").symlink_to(dotfiles / "prefs.json")
    assert _config(cfg, "set", "get_failing_tests.wait", "true").returncode == 0
    assert (cfg / "preferences.json").is_symlink()
    assert orjson.loads((dotfiles / "prefs.json").read_bytes()) == {"find_unresolved_comments.sort": "by_author",
                                                                    "get_failing_tests.wait": True}


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_non_regular_file_is_a_clear_error_not_a_hang(tmp_path: Path, kind: str) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    if kind == "fifo":
        os.mkfifo(cfg / "preferences.json")
    else:
        (cfg / "preferences.json").mkdir()
    for args in (("list", "--json"), ("set", "get_failing_tests.wait", "true"), ("get", "get_failing_tests.wait")):
        proc = _config(cfg, *args, timeout=20)  # a FIFO opened for reading would block: the timeout would fire
        assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
        assert "preferences_corrupt" in proc.stdout + proc.stderr and "not a regular file" in proc.stdout + proc.stderr
