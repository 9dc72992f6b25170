"""Hosts (issue 18 item 1): gh is only asked about hosts the user chose; any other host in any input is refused
(`untrusted_host`) before gh is run for it. Real CLI and MCP server, real gh behind a wrapper that records every
invocation, fakehub."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import orjson
import pytest

from pr_agent.hosts import HostPolicy, normalize_host
from tests.e2e.test_mcp_robustness import HANDSHAKE, rpc, run_raw
from tests.e2e.worlds import feedback_world
from tests.safety.hostile import CORPUS

STRANGER = "git.example.dev"


def recording_gh(real: str, where: Path) -> tuple[str, Path]:
    """A gh that appends its argv (words separated by \\x1f) to a log, then runs the real gh."""
    log = where / "gh-calls.log"
    script = where / "gh"
    script.write_text(f"#!/bin/sh\nprintf '%s\\037' \"$@\" >> '{log}'\nprintf '\\n' >> '{log}'\n"
                      f"exec '{real}' \"$@\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [line.split("\x1f")[:-1] for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def rec(agent, gh_path, tmp_path):
    a = agent(feedback_world(), allow_unhandled=True)
    wrapper, log = recording_gh(gh_path, tmp_path)
    a.gh_path = wrapper
    return a, log


REFUSED = [
    (("comments", f"https://{STRANGER}/acme/widgets/pull/3"), {}, STRANGER),
    (("checks", f"{STRANGER}/acme/widgets#3"), {}, STRANGER),
    (("ready", f"https://api.{STRANGER}/acme/widgets/pull/3"), {}, STRANGER),
    (("comments", "https://github.com.evil.dev/acme/widgets/pull/3"), {}, "github.com.evil.dev"),
    (("comments", "https://github.localhost@evil.dev/acme/widgets/pull/3"), {}, "evil.dev"),
    (("conflicts", "3", "--repo", f"{STRANGER}/acme/widgets"), {}, STRANGER),
    (("stack", "3", "4"), {"GH_REPO": f"{STRANGER}/acme/widgets"}, STRANGER),
    (("resolve", f"https://{STRANGER}/acme/widgets/pull/3", "--thread", "PRRT_human"), {}, STRANGER),
]


@pytest.mark.parametrize("args,extra,host", REFUSED, ids=[r[0][0] + "-" + r[2] for r in REFUSED])
def test_a_stranger_host_is_refused_before_gh(rec, args, extra, host) -> None:
    a, log = rec
    proc = a.cli(*args, "--json", env=a.env(**extra))
    err = orjson.loads(proc.stdout)["error"]
    assert proc.returncode == 2 and err["code"] == "untrusted_host", proc.stdout
    assert err["details"]["host"] == host and err["details"]["allow_env"] == "GH_PR_AGENT_ALLOWED_HOSTS"
    assert "GH_PR_AGENT_ALLOWED_HOSTS" in err["suggestion"] and "Traceback" not in proc.stderr
    recorded = calls(log)
    assert not [c for c in recorded if c[:1] == ["api"]], recorded  # no request at all
    assert not [c for c in recorded if any(host in w for w in c)], recorded  # gh never heard the host


def test_mcp_tool_call_and_job_log_uri_with_a_stranger_host(rec) -> None:
    a, log = rec
    payload = HANDSHAKE + rpc(1, "tools/call", {"name": "find_unresolved_comments",
                                                "arguments": {"pr": f"https://{STRANGER}/acme/widgets/pull/3"}})
    payload += rpc(2, "resources/read", {"uri": f"pr-agent://job-log/{STRANGER}/acme/widgets/4242"})
    messages, proc = run_raw(a, payload)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    replies = {m["id"]: m for m in messages if "id" in m}
    result = replies[1]["result"]
    assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "untrusted_host"
    assert replies[2]["error"]["data"]["code"] == "untrusted_host"
    assert not [c for c in calls(log) if any(STRANGER in w for w in c)]


def test_every_corpus_host_is_refused_in_every_reference_form(rec) -> None:
    """One MCP session, every hostile host of the corpus in a URL, a host/owner/repo#N and a job-log URI."""
    a, log = rec
    refs = [form.format(h) for h in CORPUS["hosts"] for form in ("https://{}/acme/widgets/pull/3",
                                                                   "{}/acme/widgets#3")]
    payload = HANDSHAKE + b"".join(rpc(i + 1, "tools/call", {"name": "find_unresolved_comments",
                                                            "arguments": {"pr": ref}}) for i, ref in enumerate(refs))
    payload += b"".join(rpc(100 + i, "resources/read", {"uri": f"pr-agent://job-log/{h}/acme/widgets/4242"})
                        for i, h in enumerate(CORPUS["hosts"]))
    messages, _proc = run_raw(a, payload)
    replies = {m["id"]: m for m in messages if "id" in m}
    for i, ref in enumerate(refs):
        err = replies[i + 1]["result"]["structuredContent"]["error"]
        assert err["code"] in ("untrusted_host", "invalid_pr_reference"), (ref, err)
    for i, host in enumerate(CORPUS["hosts"]):
        reply = replies.get(100 + i)
        assert reply is None or "error" in reply, (host, reply)  # never contents fetched from that host
    assert not [c for c in calls(log) if c[:1] == ["api"]], calls(log)


def test_the_opt_in_list_and_the_clones_remotes_allow_a_host(rec, tmp_path: Path) -> None:
    a, log = rec
    a.cli("comments", f"https://{STRANGER}/acme/widgets/pull/3", "--json",
          env=a.env(GH_PR_AGENT_ALLOWED_HOSTS=f"other.example, {STRANGER.upper()}"))
    assert any(c[:3] == ["api", "--hostname", STRANGER] for c in calls(log)), calls(log)

    clone = tmp_path / "clone"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", "git@git.corp.example:acme/widgets.git"],
                   check=True)
    a.cli("comments", "https://git.corp.example/acme/widgets/pull/3", "--json", cwd=clone)
    assert any(c[:3] == ["api", "--hostname", "git.corp.example"] for c in calls(log))
    proc = a.cli("comments", "https://git.corp.example/acme/widgets/pull/3", "--json")  # outside that clone
    assert orjson.loads(proc.stdout)["error"]["code"] == "untrusted_host"


def test_gh_host_and_github_com_are_allowed(rec) -> None:
    a, log = rec
    out = a.json("comments", "https://github.localhost/acme/widgets/pull/7")  # GH_HOST=github.localhost
    assert out["pr"].endswith("#7")
    assert any("--hostname" in c and "github.localhost" in c for c in calls(log))


def test_hosts_gh_is_logged_into_come_from_gh_auth_status(agent, gh_path, tmp_path: Path, monkeypatch) -> None:
    """gh's own answer decides: the host it is logged into is allowed, nothing else."""
    a = agent(feedback_world())
    wrapper, log = recording_gh(gh_path, tmp_path)
    monkeypatch.setenv("GH_PR_AGENT_GH", wrapper)
    env = a.env()
    logged = HostPolicy(env, logged_in=lambda: _logins(env))
    assert logged.allowed("github.localhost")
    probe = HostPolicy({}, logged_in=lambda: _logins(env))  # no GH_HOST: only gh auth status says so
    assert probe.allowed("github.localhost") and not probe.allowed("github.com.evil.dev")
    assert ["auth", "status"] in calls(log)
    assert sum(c == ["auth", "status"] for c in calls(log)) == 1  # asked once, cached


def _logins(env: dict[str, str]) -> frozenset[str]:
    from pr_agent.gh import Gh

    return Gh(base_env=env).logged_in_hosts()


def test_normalized_forms() -> None:
    assert normalize_host("API.GitHub.com.") == "github.com" == normalize_host("ssh.github.com")
    assert normalize_host("www.git.example.dev") == STRANGER
    policy = HostPolicy({"GH_HOST": "ghe.corp", "GH_PR_AGENT_ALLOWED_HOSTS": "a.example b.example,c.example"})
    assert all(policy.allowed(h) for h in ("github.com", "ghe.corp", "a.example", "b.example", "c.example"))
    assert not policy.allowed("d.example") and not policy.allowed("ghe.corp.evil")
