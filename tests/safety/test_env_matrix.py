"""Environment faults × every tool: gh missing, gh too old, not logged in, logged into another host only, no
repository to resolve a bare number against (not in a clone, a clone without a GitHub remote), a read-only
config directory, corrupt or invalid stored preferences. Each is a typed error with its exit code, a message
and a usable repair — never a traceback — and a corrupt preferences file is reported, never reset.

Faults that need a clone (git too old, --repo-path that is not a clone) are in test_env_clone.py."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pr_agent.prefs import known_keys
from tests.safety.worlds import FAST_ENV, HOST, TOOL_CASES, ToolCase, agent_for, run_json

INSTALL_URL = "https://github.com/cli/cli#installation"


@dataclass
class Setup:
    env: dict[str, str] = field(default_factory=dict)
    drop: tuple[str, ...] = ()
    cwd: Path | None = None
    args: Callable[[ToolCase], tuple[str, ...]] = lambda c: c.args


@dataclass(frozen=True)
class Expect:
    code: tuple[str, ...]
    exit: int
    repair: str | None = None        # the exact repair command, when one is expected
    mentions: str | None = None      # text the message or suggestion must contain


def stub(directory: Path, name: str, script: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def _git_only_path(tmp: Path) -> str:
    bin_dir = tmp / "git-only"
    bin_dir.mkdir(exist_ok=True)
    real = next(Path(p) / "git" for p in os.environ["PATH"].split(os.pathsep) if (Path(p) / "git").is_file())
    (bin_dir / "git").symlink_to(real)
    return str(bin_dir)


def _gh_missing(tmp: Path) -> Setup:
    return Setup(env={"GH_PR_AGENT_GH": "", "PATH": _git_only_path(tmp)})


def _gh_too_old(tmp: Path) -> Setup:
    return Setup(env={"GH_PR_AGENT_GH": str(stub(tmp / "old", "gh", "echo 'gh version 2.0.0 (2021-08-23)'\n"))})


def _not_gh(tmp: Path) -> Setup:
    return Setup(env={"GH_PR_AGENT_GH": str(stub(tmp / "fake", "gh", "echo 'hub version 2.14.2'\n"))})


def _not_logged_in(tmp: Path) -> Setup:
    (tmp / "empty-gh-config").mkdir()
    return Setup(env={"GH_CONFIG_DIR": str(tmp / "empty-gh-config")}, drop=("GH_TOKEN", "GH_HOST", "GITHUB_TOKEN"))


def _other_host_only(tmp: Path) -> Setup:
    config = tmp / "ghcfg"
    config.mkdir()
    (config / "hosts.yml").write_text("github.com:\n    oauth_token: gho_other\n    user: me\n", encoding="utf-8")
    # the URL's host is allowed explicitly (else it is untrusted_host: tests/safety/test_hosts.py), not logged into
    return Setup(env={"GH_CONFIG_DIR": str(config), "GH_PR_AGENT_ALLOWED_HOSTS": HOST}, drop=("GH_TOKEN", "GH_HOST"),
                 args=lambda c: c.url_args)


def _not_in_a_clone(tmp: Path) -> Setup:
    (tmp / "plain-dir").mkdir()
    return Setup(cwd=tmp / "plain-dir", args=lambda c: c.bare_args)


def _no_github_remote(tmp: Path) -> Setup:
    repo = tmp / "gitlab-clone"
    repo.mkdir()
    for argv in (["init", "-q", "-b", "feature-x"], ["remote", "add", "origin", "https://gitlab.com/acme/widgets.git"]):
        subprocess.run(["git", *argv], cwd=repo, check=True)
    return Setup(cwd=repo, args=lambda c: c.bare_args)


def _corrupt_prefs(tmp: Path) -> Setup:
    cfg = tmp / "cfg-corrupt"
    cfg.mkdir()
    (cfg / "preferences.json").write_bytes(CORRUPT)
    return Setup(env={"GH_PR_AGENT_CONFIG_DIR": str(cfg)})


CORRUPT = b'{"find_unresolved_comments.sort": "by_file", '  # cut off mid-write
SAID = "gh auth login"
# fault id -> (setup, expectation)
ENV_FAULTS: dict[str, tuple[Callable[[Path], Setup], Expect]] = {
    "gh_missing": (_gh_missing, Expect(("gh_not_found",), 3, mentions=INSTALL_URL)),
    "gh_too_old": (_gh_too_old, Expect(("gh_too_old",), 3, repair="gh --version", mentions="2.0.0")),
    "gh_is_not_gh": (_not_gh, Expect(("gh_not_found",), 3, mentions="GH_PR_AGENT_GH")),
    "not_logged_in": (_not_logged_in, Expect(("gh_not_authenticated",), 4, repair=SAID)),
    "other_host_only": (_other_host_only, Expect(("auth_failed", "gh_not_authenticated"), 4,
                                                 repair=f"gh auth login --hostname {HOST}")),
    "not_in_a_clone": (_not_in_a_clone, Expect(("repository_not_determined",), 2, mentions="--repo")),
    "no_github_remote": (_no_github_remote, Expect(("repository_not_determined",), 2, repair="git remote -v")),
    "corrupt_preferences": (_corrupt_prefs, Expect(("preferences_corrupt",), 3, mentions="preferences.json")),
}


@pytest.mark.parametrize("fault_id", sorted(ENV_FAULTS))
def test_environment_fault_on_every_tool(make_hub, tmp_path: Path, fault_id: str) -> None:
    make_setup, want = ENV_FAULTS[fault_id]
    setup = make_setup(tmp_path)
    agent = agent_for(make_hub, "feedback", tmp_path / "home")
    env = {k: v for k, v in agent.env(**FAST_ENV, **setup.env).items() if k not in setup.drop}
    for case in TOOL_CASES:
        proc = agent.cli(*setup.args(case), "--json", cwd=setup.cwd, env=env)
        assert "Traceback" not in proc.stderr, (case.tool, proc.stderr)
        import orjson

        err = orjson.loads(proc.stdout)["error"]
        where = f"{case.tool} under {fault_id}: {err}"
        assert err["code"] in want.code and proc.returncode == want.exit, where
        assert err["message"] and err["suggestion"], where
        assert f"error [{err['code']}]" in proc.stderr, where  # people get it on stderr too
        if want.repair is not None:
            assert err["repair"] == {"command": want.repair}, where
        if want.mentions is not None:
            assert want.mentions in err["message"] + err["suggestion"], where
    assert not agent.hub.requests or fault_id in ("other_host_only",), "nothing should reach GitHub"
    if fault_id == "corrupt_preferences":
        assert (Path(env["GH_PR_AGENT_CONFIG_DIR"]) / "preferences.json").read_bytes() == CORRUPT  # not reset


def test_a_broken_remote_url_is_skipped_not_a_crash(make_hub, tmp_path: Path) -> None:
    """A clone whose git config holds an unparseable remote URL next to the GitHub one: the bare number still
    resolves (the broken remote is ignored), and alone it is repository_not_determined — never internal_error."""
    import orjson

    repo = tmp_path / "odd-clone"
    repo.mkdir()
    for argv in (["init", "-q", "-b", "feature-x"], ["remote", "add", "origin", "https://[broken/acme/widgets.git"]):
        subprocess.run(["git", *argv], cwd=repo, check=True)
    agent = agent_for(make_hub, "feedback", tmp_path / "home")
    alone = agent.cli("comments", "7", "--json", cwd=repo, env=agent.env(**FAST_ENV))
    assert (alone.returncode, orjson.loads(alone.stdout)["error"]["code"]) == (2, "repository_not_determined")
    subprocess.run(["git", "remote", "add", "upstream", f"https://{HOST}/acme/widgets.git"], cwd=repo, check=True)
    proc = agent.cli("comments", "7", "--json", cwd=repo, env=agent.env(**FAST_ENV))
    assert proc.returncode == 0 and orjson.loads(proc.stdout)["pr"] == "acme/widgets#7", proc.stderr


def test_corrupt_preferences_are_reported_by_config_too(agent, tmp_path: Path) -> None:
    setup = _corrupt_prefs(tmp_path)
    a = agent({"viewer": {"login": "octocat"}, "repositories": []})
    env = a.env(**setup.env)
    for args in (["config", "list", "--json"], ["config", "set", "find_unresolved_comments.sort", "by_author"]):
        proc = a.cli(*args, env=env)
        assert proc.returncode == 3 and "preferences_corrupt" in proc.stdout + proc.stderr, proc
    assert (Path(env["GH_PR_AGENT_CONFIG_DIR"]) / "preferences.json").read_bytes() == CORRUPT


def test_invalid_stored_values_are_typed_errors(make_hub, tmp_path: Path) -> None:
    """A stored value of the wrong type for a tool's 💾 field: invalid_preference (exit 2) naming the key."""
    import orjson

    agent = agent_for(make_hub, "feedback", tmp_path / "home")
    by_tool: dict[str, list[str]] = {}
    for key, (tool, _name, _default) in known_keys().items():
        by_tool.setdefault(tool.name, []).append(key)
    tried = 0
    for case in TOOL_CASES:
        for key in by_tool.get(case.tool, []):
            cfg = tmp_path / f"cfg-{key}"
            cfg.mkdir()
            (cfg / "preferences.json").write_bytes(orjson.dumps({key: {"not": "valid"}}))
            proc = agent.cli(*case.args, "--json", env=agent.env(**FAST_ENV, GH_PR_AGENT_CONFIG_DIR=str(cfg)))
            err = orjson.loads(proc.stdout)["error"]
            assert (err["code"], proc.returncode, err["details"]["field"]) == ("invalid_preference", 2, key), err
            tried += 1
    assert tried >= 4


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A config directory nobody can write to — root included (chattr +i), else chmod 0555."""
    path = tmp_path / "cfg-ro"
    path.mkdir()
    (path / "preferences.json").write_text('{"find_unresolved_comments.sort": "by_file"}', encoding="utf-8")
    path.chmod(0o555)
    immutable = False
    if os.geteuid() == 0:
        immutable = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode == 0
        if not immutable:
            path.chmod(0o755)
            pytest.skip("running as root without chattr: no way to make a directory read-only")
    yield path
    if immutable:
        subprocess.run(["chattr", "-i", str(path)], check=True)
    path.chmod(0o755)


def test_read_only_config_dir(make_hub, tmp_path: Path, read_only_dir: Path) -> None:
    """Tools only read preferences: they all work. Writing one is a typed error; nothing is half-written."""
    for case in TOOL_CASES:
        agent = agent_for(make_hub, case.world, tmp_path / f"home-{case.tool}")
        code, out, err = run_json(agent, case.args, GH_PR_AGENT_CONFIG_DIR=str(read_only_dir))
        assert code == case.ok_exit and "error" not in out, (case.tool, err)
    proc = agent.cli("config", "set", "find_unresolved_comments.sort", "by_author",
                     env=agent.env(GH_PR_AGENT_CONFIG_DIR=str(read_only_dir)))
    assert proc.returncode == 3 and "preferences_unwritable" in proc.stderr, proc.stderr
    assert "GH_PR_AGENT_CONFIG_DIR" in proc.stderr
    assert sorted(p.name for p in read_only_dir.iterdir()) == ["preferences.json"]


def count_env_runs() -> dict[str, int]:
    """Figures for docs/safety.md: environment faults and the runs tried here."""
    tools = len(TOOL_CASES)
    invalid = sum(1 for c in TOOL_CASES for v in known_keys().values() if v[0].name == c.tool)
    # every fault × every tool; read-only dir: every tool + config set; a bad value per stored key; config list/set;
    # a broken remote URL alone and next to the GitHub one
    return {"faults": len(ENV_FAULTS) + 3, "runs": len(ENV_FAULTS) * tools + (tools + 1) + invalid + 2 + 2}
