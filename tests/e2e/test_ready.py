"""check_merge_readiness end to end: our CLI → the real gh → fakehub (merge state, checks, branch rules)."""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

import orjson
import pytest

from pr_agent.registry import all_tools
from tests.e2e.merge_worlds import readiness_world

FAST_POLL = {"GH_PR_AGENT_MERGEABLE_WAIT": "0.4"}

# number: (verdict, blocker codes in order, exit code, warning codes)
CASES: dict[int, tuple[str, list[str], int, list[str]]] = {
    1: ("ready", [], 0, []),
    2: ("draft", ["draft"], 1, []),
    3: ("pending", ["required_check_pending"], 8, []),
    4: ("pending", ["required_check_missing"], 8, []),
    5: ("ready", [], 0, ["optional_checks_failing"]),
    6: ("blocked", ["changes_requested"], 1, []),
    7: ("blocked", ["review_required"], 1, []),
    8: ("blocked", ["unresolved_conversations"], 1, []),
    9: ("blocked", ["behind_base"], 1, []),
    10: ("ready", [], 0, []),
    11: ("unknown", ["mergeability_unknown"], 8, []),
    12: ("conflicts", ["merge_conflicts"], 1, []),
    13: ("blocked", ["required_check_failed"], 1, []),
    14: ("ready", [], 0, ["optional_checks_pending", "unresolved_conversations"]),
    15: ("pending", ["required_check_pending"], 8, []),
}
IDS = {1: "ready", 2: "draft", 3: "pending-required-check", 4: "required-check-missing", 5: "unstable-optional-failing",
       6: "changes-requested", 7: "review-required-by-ruleset", 8: "unresolved-conversations-required",
       9: "behind-strict", 10: "unknown-settles-after-two-polls", 11: "unknown-never-settles", 12: "conflicts",
       13: "classic-required-check-failed", 14: "nothing-required", 15: "slash-in-base-branch"}


def run_ready(a: Any, number: int) -> tuple[int, dict[str, Any]]:
    proc = a.cli("ready", f"acme/widgets#{number}", "--json", env=a.env(**FAST_POLL))
    assert proc.stdout, proc.stderr
    return proc.returncode, orjson.loads(proc.stdout)


def assert_real_command(gh_path: str, command: str) -> None:
    """The next step is something that exists: one of our commands, or a gh command whose flags gh knows."""
    argv = shlex.split(command)
    assert argv[0] == "gh", command
    if argv[1] == "pr-agent":
        assert argv[2] in {t.cli_name for t in all_tools().values()}, command
        return
    sub = argv[1:3] if argv[1] in ("pr", "run") else argv[1:2]
    help_text = subprocess.run([gh_path, *sub, "--help"], capture_output=True, text=True, timeout=30,
                               check=False).stdout
    for flag in (a.split("=")[0] for a in argv if a.startswith("--")):
        assert flag in help_text, f"{flag} unknown to {' '.join(sub)} ({command})"


@pytest.mark.parametrize("number", list(CASES), ids=[IDS[n] for n in CASES])
def test_readiness_verdicts(agent, gh_path, number: int) -> None:
    a = agent(readiness_world())
    code, out = run_ready(a, number)
    verdict, blockers, exit_code, warnings = CASES[number]
    assert (out["verdict"], [b["code"] for b in out["blocking_issues"]]) == (verdict, blockers)
    assert code == exit_code
    assert [w["code"] for w in out["warnings"]] == warnings
    assert out["ready_to_merge"] is (verdict == "ready")
    for item in [*out["blocking_issues"], *out["warnings"], out["next_action"]]:
        assert_real_command(gh_path, item["command"])
    if out["blocking_issues"]:
        assert out["next_action"]["command"] == out["blocking_issues"][0]["command"]
    else:
        assert out["next_action"]["command"].startswith(f"gh pr merge {number} ")


def test_ready_details(agent) -> None:
    """Field-level facts of several cases, from one world."""
    a = agent(readiness_world())
    _, ready = run_ready(a, 1)
    assert ready["checks"] == {"ci_passing": True, "approvals_met": True, "no_conflicts": True, "up_to_date": True,
                               "branch_protection_satisfied": True}
    bp = ready["branch_protection"]
    assert (bp["required_approvals"], bp["current_approvals"], bp["required_checks"]) == (1, 1, ["test"])
    assert bp["passing_checks"] == ["test"] and bp["requires_conversation_resolution"] is True
    assert bp["requires_up_to_date"] is True and bp["classic_protection"] == "none"
    assert ready["github"]["approved_by"] == ["alice"] and "review_decision" in ready["github"]

    _, unstable = run_ready(a, 5)
    assert unstable["github"]["merge_state_status"] == "UNSTABLE" and "UNSTABLE" in unstable["summary"]
    assert unstable["checks"]["ci_passing"] is True

    _, missing = run_ready(a, 4)
    assert missing["branch_protection"]["pending_checks"] == ["test"]
    assert [c["kind"] for c in missing["ci"]["checks"] if c["name"] == "test"] == ["missing"]

    _, review = run_ready(a, 7)
    blocker = review["blocking_issues"][0]
    assert "ruleset 42" in blocker["description"] and "--add-reviewer bob" in blocker["command"]
    assert review["github"]["review_requests"] == ["bob", "acme/core"]

    _, behind = run_ready(a, 9)
    assert behind["github"]["behind_by"] == 3 and behind["checks"]["up_to_date"] is False
    assert behind["blocking_issues"][0]["command"] == "gh api --method PUT repos/acme/widgets/pulls/9/update-branch"

    _, nothing = run_ready(a, 14)
    assert "review_decision" not in nothing["github"]  # null: no review requirement, not "review required"
    assert nothing["checks"]["approvals_met"] is True

    _, classic = run_ready(a, 13)
    cbp = classic["branch_protection"]
    assert cbp["classic_protection"] == "partial" and cbp["required_checks"] == ["build"]
    assert any("admins only" in n for n in cbp["notes"]) and "requires_up_to_date" not in cbp
    assert classic["blocking_issues"][0]["command"] == "gh pr-agent checks 'acme/widgets#13'"


def test_unknown_mergeable_is_polled_then_settles_or_stays_unknown(agent) -> None:
    a = agent(readiness_world())
    _, settled = run_ready(a, 10)
    assert settled["github"]["mergeable_polls"] == 2 and settled["verdict"] == "ready"
    assert a.hub.world.pull_request("acme/widgets", 10)["merge_state"]["reads"] == 3
    _, never = run_ready(a, 11)
    assert never["github"]["mergeable"] == "UNKNOWN" and never["github"]["mergeable_polls"] == 4
    assert never["checks"]["no_conflicts"] is False and never["ready_to_merge"] is False


def test_one_graphql_round_trip_and_concurrent_rules(agent) -> None:
    a = agent(readiness_world())
    run_ready(a, 1)
    graphql = [r.operation for r in a.hub.requests if r.path == "/graphql"]
    assert graphql == ["PrMergeReadiness"]
    rest = sorted(r.route for r in a.hub.requests if r.path != "/graphql")
    assert rest == ["GET /repos/{owner}/{repo}/branches/{branch}", "GET /repos/{owner}/{repo}/compare/{basehead}",
                    "GET /repos/{owner}/{repo}/rules/branches/{branch}"]  # the admin-only endpoint is not tried


def test_admin_reads_classic_protection(agent) -> None:
    a = agent(readiness_world(viewer_permission="ADMIN"))
    _, out = run_ready(a, 13)
    bp = out["branch_protection"]
    assert bp["classic_protection"] == "read" and bp["requires_up_to_date"] is True
    assert "GET /repos/{owner}/{repo}/branches/{branch}/protection" in {r.route for r in a.hub.requests}
    _, main = run_ready(a, 1)  # main has rulesets only: the admin endpoint says "Branch not protected"
    assert main["branch_protection"]["classic_protection"] == "none" and main["verdict"] == "ready"


def test_human_output_and_missing_pr(agent) -> None:
    a = agent(readiness_world())
    proc = a.cli("ready", "acme/widgets#6")
    assert proc.returncode == 1
    assert "BLOCKED" in proc.stdout and "gh pr-agent comments" in proc.stdout
    proc = a.cli("ready", "acme/widgets#404", "--json")
    assert proc.returncode == 1 and orjson.loads(proc.stdout)["error"]["code"] == "pr_not_found"
