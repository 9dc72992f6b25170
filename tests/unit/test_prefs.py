"""Stored preferences: validated by the tools' own models, atomic, and loud when corrupt."""

from __future__ import annotations

from pathlib import Path

import pytest

from pr_agent.context import Context
from pr_agent.errors import PrAgentError
from pr_agent.prefs import Preferences, parse_cli_value
from pr_agent.registry import all_tools


def env(tmp_path: Path) -> dict[str, str]:
    return {"GH_PR_AGENT_CONFIG_DIR": str(tmp_path / "cfg")}


def test_set_get_unset_and_listing(tmp_path: Path) -> None:
    prefs = Preferences.load(env(tmp_path))
    assert prefs.set("find_unresolved_comments.sort", "by_file") == "by_file"
    assert prefs.set("find_unresolved_comments.include_bots", parse_cli_value("false")) is False
    again = Preferences.load(env(tmp_path))
    assert again.get("find_unresolved_comments.sort") == "by_file"
    rows = {r["key"]: r for r in again.listing()}
    assert rows["find_unresolved_comments.sort"]["source"] == "stored"
    assert rows["find_unresolved_comments.include_outdated"] == {
        "key": "find_unresolved_comments.include_outdated", "value": True, "source": "default", "default": True}
    assert again.unset("find_unresolved_comments.sort") is True
    assert Preferences.load(env(tmp_path)).get("find_unresolved_comments.sort") is None


@pytest.mark.parametrize(("key", "value"), [
    ("find_unresolved_comments.sort", "sideways"),
    ("find_unresolved_comments.include_bots", "yes"),
    ("find_unresolved_comments.include_bots", None),
    ("find_unresolved_comments.nope", True),
    ("find_unresolved_comments.exclude_authors", ["x"]),  # not a stored field
])
def test_bad_values_are_refused_and_nothing_is_written(tmp_path: Path, key: str, value: object) -> None:
    prefs = Preferences.load(env(tmp_path))
    with pytest.raises(PrAgentError) as exc:
        prefs.set(key, value)
    assert exc.value.code == "invalid_preference"
    assert not (tmp_path / "cfg" / "preferences.json").exists()


def test_apply_precedence(tmp_path: Path) -> None:
    tool = all_tools()["find_unresolved_comments"]
    prefs = Preferences.load(env(tmp_path))
    prefs.set("find_unresolved_comments.sort", "by_author")
    params = tool.input_model.model_validate({"pr": "a/b#1"})
    applied = prefs.apply(tool, params)
    assert applied.sort == "by_author"  # stored
    assert applied.include_bots is True  # built-in default
    explicit = prefs.apply(tool, tool.input_model.model_validate({"pr": "a/b#1", "sort": "by_file"}))
    assert explicit.sort == "by_file"  # explicit wins


def test_corrupt_file_is_reported_not_reset(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "preferences.json"
    path.parent.mkdir()
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(PrAgentError) as exc:
        Preferences.load(env(tmp_path))
    assert exc.value.code == "preferences_corrupt"
    assert path.read_text(encoding="utf-8") == "{not json"


def test_corrupt_file_fails_tool_calls_too(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "preferences.json"
    path.parent.mkdir()
    path.write_text("[1]", encoding="utf-8")
    from pr_agent.dispatch import run_tool

    with pytest.raises(PrAgentError) as exc:
        run_tool(all_tools()["find_unresolved_comments"], Context(env=env(tmp_path)), {"pr": "a/b#1"})
    assert exc.value.code == "preferences_corrupt"


def test_unwritable_config_dir_even_for_root() -> None:
    # /proc refuses new directories even for root, so this is a real read-only location
    prefs = Preferences.load({"GH_PR_AGENT_CONFIG_DIR": "/proc/gh-pr-agent-test/cfg"})
    with pytest.raises(PrAgentError) as exc:
        prefs.set("find_unresolved_comments.sort", "by_file")
    assert exc.value.code == "preferences_unwritable"


def test_config_path_that_is_a_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "cfg").write_text("a file where the directory should be", encoding="utf-8")
    with pytest.raises(PrAgentError) as exc:
        Preferences.load(env(tmp_path))
    assert exc.value.code == "preferences_corrupt"
