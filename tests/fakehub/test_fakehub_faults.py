"""Faults, auth, unknown routes and the standalone server, seen through the real gh binaries."""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.fakehub import DEMO_SCENARIO, Fault

ROOT = Path(__file__).resolve().parents[2]
VIEWER = "query={viewer{login}}"


def test_http_faults_fire_then_expire(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    once = hub.add_fault(Fault(match="graphql", status=500))
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", VIEWER)
    assert (proc.returncode, proc.stderr.strip()) == (1, "gh: Server Error (HTTP 500)")
    assert once.expired and once.hits == 1
    assert hub.run_gh(gh_path, "api", "graphql", "-f", VIEWER).returncode == 0

    hub.add_fault(Fault(match=r"GET /repos/acme/widgets/pulls/42$", status=502, times=2))
    for _ in range(2):
        proc = hub.run_gh(gh_path, "api", "repos/acme/widgets/pulls/42")
        assert proc.returncode == 1 and proc.stderr.strip() == "gh: HTTP 502" and "<html>" in proc.stdout
    assert hub.run_gh(gh_path, "api", "repos/acme/widgets/pulls/42/comments").returncode == 0
    assert hub.run_gh(gh_path, "api", "repos/acme/widgets/pulls/42").returncode == 0
    # gh may transparently re-send an idempotent request on a reused connection under load, so
    # check what each route saw rather than the exact global sequence
    seen = [(r.method, r.path.split("?")[0], r.fault) for r in hub.requests]
    assert [f for _, _, f in seen if f] == ["http", "http", "http"], seen
    assert ("POST", "/graphql", None) in seen and ("GET", "/repos/acme/widgets/pulls/42/comments", None) in seen
    assert seen[-1] == ("GET", "/repos/acme/widgets/pulls/42", None), seen


def test_rate_limit_faults(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    hub.add_fault(Fault(match="GET /user", kind="secondary_rate_limit", headers={"retry-after": "7"}))
    proc = hub.run_gh(gh_path, "api", "-i", "user")
    assert proc.returncode == 1 and "(HTTP 403)" in proc.stderr and "secondary rate limit" in proc.stderr
    assert "Retry-After: 7" in proc.stdout.splitlines() and "Retry-After: 60" not in proc.stdout

    hub.add_fault(Fault(match="GET /user", kind="primary_rate_limit", reset_in_s=120))
    proc = hub.run_gh(gh_path, "api", "-i", "user")
    assert proc.stderr.startswith("gh: API rate limit exceeded for user ID 1.") and "(HTTP 403)" in proc.stderr
    assert "X-Ratelimit-Remaining: 0" in proc.stdout.splitlines()
    reset = int(proc.stdout.split("X-Ratelimit-Reset: ")[1].splitlines()[0])
    assert 100 < reset - time.time() <= 121

    hub.add_fault(Fault(kind="graphql_rate_limited"))
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", VIEWER)
    assert (proc.returncode, proc.stderr.strip()) == (1, "gh: API rate limit exceeded for user ID 1.")
    assert json.loads(proc.stdout) == {"data": None, "errors": [
        {"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]}


def test_altering_faults(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    hub.add_fault(Fault(kind="graphql_errors_partial"))
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", VIEWER)
    body = json.loads(proc.stdout)
    assert proc.returncode == 1 and body["data"] == {"viewer": {"login": "octocat"}}
    assert "Something went wrong while executing your query" in body["errors"][0]["message"]

    hub.add_fault(Fault(match="GET /user", kind="truncated_json"))
    proc = hub.run_gh(gh_path, "api", "user", "--jq", ".login")
    assert proc.returncode == 1 and proc.stdout == ""

    hub.add_fault(Fault(match="GET /user", kind="hang", delay_s=1.0))
    started = time.monotonic()
    assert hub.run_gh(gh_path, "api", "user", "--jq", ".login").stdout.strip() == "octocat"
    assert time.monotonic() - started >= 1.0

    hub.add_fault(Fault(match="GET /user", kind="disconnect"))
    proc = hub.run_gh(gh_path, "api", "user")
    assert proc.returncode == 1 and "EOF" in proc.stderr

    hub.latency_ms = 400
    started = time.monotonic()
    assert hub.run_gh(gh_path, "api", "user").returncode == 0
    assert time.monotonic() - started >= 0.4


def test_fault_for_one_graphql_operation_leaves_the_world_alone(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    hub.add_fault(Fault(match="graphql:resolveReviewThread", status=502, times=None))
    assert hub.run_gh(gh_path, "api", "graphql", "-f", VIEWER).returncode == 0
    mutation = "query=mutation{ resolveReviewThread(input:{threadId:\"PRRT_kwDOKdemo0001\"}){ thread{ id } } }"
    for _ in range(3):
        assert hub.run_gh(gh_path, "api", "graphql", "-f", mutation).stderr.strip() == "gh: HTTP 502"
    assert hub.world.thread("PRRT_kwDOKdemo0001")["resolved"] is False
    hub.clear_faults()
    assert hub.run_gh(gh_path, "api", "graphql", "-f", mutation).returncode == 0
    assert hub.world.thread("PRRT_kwDOKdemo0001")["resolved"] is True


def test_credentials_are_checked(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO)
    proc = hub.run_gh(gh_path, "api", "user", env=hub.child_env(GH_TOKEN="bad-token"))
    assert (proc.returncode, proc.stderr.strip()) == (1, "gh: Bad credentials (HTTP 401)")
    assert json.loads(proc.stdout) == {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
    assert hub.requests[-1].headers["authorization"] == "token bad-token"
    anonymous = {k: v for k, v in hub.child_env().items() if k != "GH_TOKEN"}
    proc = hub.run_gh(gh_path, "api", "user", env=anonymous)  # GH_HOST quirk: gh sends no Authorization
    assert (proc.returncode, proc.stderr.strip()) == (1, "gh: Bad credentials (HTTP 401)")
    assert hub.requests[-1].headers.get("Authorization") is None


def test_unknown_routes_and_fields_are_loud(make_hub, gh_path) -> None:
    hub = make_hub(DEMO_SCENARIO, allow_unhandled=True)
    proc = hub.run_gh(gh_path, "api", "repos/acme/widgets/branches")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "gh: fakehub: no route for GET /repos/acme/widgets/branches (HTTP 501)"
    query = '{ repository(owner:"acme",name:"widgets"){ pullRequest(number:42){ milestone { title } } } }'
    proc = hub.run_gh(gh_path, "api", "graphql", "-f", f"query={query}")
    assert proc.returncode == 1 and "no resolver for PullRequest.milestone" in proc.stderr
    assert [(r.method, r.path, r.status) for r in hub.unhandled] == [
        ("GET", "/repos/acme/widgets/branches", 501), ("POST", "/graphql", 501)]


def _drain(fd: int, timeout: float) -> str:
    """Everything already written to a pipe (the server flushes stdout before its stderr banner)."""
    data = b""
    while select.select([fd], [], [], timeout)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        timeout = 0.2
    return data.decode()


def test_standalone_prints_env_and_serves(gh_path, tmp_path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakehub", "--scenario", str(DEMO_SCENARIO),
                             "--latency-ms", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        banner = proc.stderr.readline().decode()
        assert "serving" in banner and "until Ctrl-C" in banner, banner
        lines = _drain(proc.stdout.fileno(), 10).splitlines()
        assert lines and all(line.startswith("export ") for line in lines)
        env = dict(shlex.split(line)[1].split("=", 1) for line in lines)
        assert env["GH_HOST"] == "github.localhost" and env["HTTP_PROXY"].startswith("http://127.0.0.1:")
        config = Path(env["GH_CONFIG_DIR"])
        assert config.is_dir()
        # the printed lines work when sourced by a shell
        script = tmp_path / "env.sh"
        script.write_text("\n".join(lines) + "\n")
        shell = subprocess.run(["bash", "-c", f'. {shlex.quote(str(script))} && "$0" api user --jq .login', gh_path],
                               capture_output=True, text=True, timeout=60, check=False)
        assert shell.stdout.strip() == "octocat", shell.stderr
        query = '{ repository(owner:"acme",name:"widgets"){ pullRequest(number:42){ reviewThreads{ totalCount } } } }'
        run = subprocess.run([gh_path, "api", "graphql", "-f", f"query={query}", "--jq",
                              ".data.repository.pullRequest.reviewThreads.totalCount"],
                             capture_output=True, text=True, timeout=60, check=False, env=env)
        assert run.stdout.strip() == "8", run.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert b"stopped" in err and not config.exists()
