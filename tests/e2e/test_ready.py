"""check_merge_readiness end to end: our CLI → the real gh → fakehub (merge state, checks, branch rules)."""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

import orjson
import pytest

from pr_agent.registry import all_tools
from tests.e2e.merge_worlds import checks_only_world, many_pages_world, merge_methods_world, readiness_world
from tests.fakehub import Fault

FAST_POLL = {"GH_PR_AGENT_MERGEABLE_WAIT": "0.4"}
RULES_ROUTE = "GET /repos/{owner}/{repo}/rules/branches/{branch}"

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
                    RULES_ROUTE]  # the admin-only endpoint is not tried; REST rules: for allowed_merge_methods


def test_rulesets_from_graphql_alone(agent) -> None:
    """Without a pull_request rule, baseRef.rules says all the REST rules would: they are not read, and the
    rules of a repository and an organization ruleset still make the blockers."""
    a = agent(checks_only_world())
    outs = {n: run_ready(a, n)[1] for n in (1, 2, 3, 4)}
    assert {n: (o["verdict"], [b["code"] for b in o["blocking_issues"]]) for n, o in outs.items()} == {
        1: ("ready", []), 2: ("blocked", ["required_check_failed"]), 3: ("pending", ["required_check_missing"]),
        4: ("blocked", ["behind_base"])}
    bp = outs[1]["branch_protection"]
    assert (bp["required_checks"], bp["requires_up_to_date"], bp["merge_queue"]) == (["test", "build"], True, True)
    assert bp["sources"] == ["ruleset 42 (repository acme/widgets)", "ruleset 7 (organization acme)"]
    assert bp["required_approvals"] == 0 and "allowed_merge_methods" not in bp
    assert "build" in outs[2]["blocking_issues"][0]["description"]
    assert RULES_ROUTE not in {r.route for r in a.hub.requests}
    assert a.hub.request_count == 4 * 3  # per call: the query, the branch stub, the compare


def test_allowed_merge_methods_still_come_from_rest(agent) -> None:
    a = agent(merge_methods_world(["rebase"]))
    _, out = run_ready(a, 1)
    assert out["branch_protection"]["allowed_merge_methods"] == ["rebase"]
    assert out["next_action"]["command"] == "gh pr merge 1 --repo acme/widgets --rebase"
    assert RULES_ROUTE in {r.route for r in a.hub.requests}


@pytest.mark.parametrize("number", [1, 3, 4, 6, 7, 8, 9])
def test_unreadable_rest_rules_keep_the_verdict(agent, number: int) -> None:
    """The REST rules fail (403): GraphQL's rules give the same verdict and blockers; the answer says what
    only REST has."""
    a = agent(merge_methods_world(["rebase"]))
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets/rules/branches/", status=403, times=None,
                          body={"message": "Resource not accessible by integration"}))
    code, out = run_ready(a, number)
    verdict, blockers, exit_code, _ = CASES[number]
    assert (out["verdict"], [b["code"] for b in out["blocking_issues"]], code) == (verdict, blockers, exit_code)
    bp = out["branch_protection"]
    assert bp["sources"] == ["ruleset 42 (repository acme/widgets)"] and bp["required_checks"] == ["test"]
    assert any("merge methods" in n and "could not be read" in n for n in bp["notes"]), bp["notes"]
    assert any(r.fault for r in a.hub.requests)


def test_refused_graphql_rules_fall_back_to_rest(agent) -> None:
    """A token that may not read baseRef.rules (the field comes back null with FORBIDDEN): the REST rules
    are read instead, and the verdicts stay."""
    a = agent(checks_only_world())
    a.hub.add_fault(Fault(kind="graphql_field_refused", body={"field": "rules"}, match="graphql:PrMergeReadiness",
                          times=None))
    for number, (verdict, blockers) in {2: ("blocked", ["required_check_failed"]), 4: ("blocked", ["behind_base"]),
                                        1: ("ready", [])}.items():
        _, out = run_ready(a, number)
        assert (out["verdict"], [b["code"] for b in out["blocking_issues"]]) == (verdict, blockers)
        assert out["branch_protection"]["required_checks"] == ["test", "build"]
    assert [r.route for r in a.hub.requests].count(RULES_ROUTE) == 3 and any(r.fault for r in a.hub.requests)


def test_page_chains_and_rest_reads_overlap(agent) -> None:
    """3 more thread-state pages and 1 more rollup page: the rollup page and the REST reads start right after
    the first query, not after the thread pages."""
    a = agent(many_pages_world(threads=350, checks=130), latency_ms=300)
    _, out = run_ready(a, 1)
    assert out["verdict"] == "ready" and out["github"]["unresolved_threads"] == 0
    assert sum(out["ci"]["counts"].values()) == 132 and out["ci"]["checks_omitted"] == 132 - len(out["ci"]["checks"])
    assert not any("Read only" in n for n in out["branch_protection"]["notes"])
    ops = sorted(r.operation or r.route or "" for r in a.hub.requests)
    rest = ["GET /repos/{owner}/{repo}/branches/{branch}", "GET /repos/{owner}/{repo}/compare/{basehead}", RULES_ROUTE]
    assert ops == sorted(["PrMergeReadiness", "PrRollupPage", *["PrThreadStatesPage"] * 3, *rest])
    thread_pages = sorted(r.started for r in a.hub.requests if r.operation == "PrThreadStatesPage")
    others = [r.started for r in a.hub.requests if r.operation == "PrRollupPage" or r.path != "/graphql"]
    assert max(others) < thread_pages[1], "the rollup page or a REST read waited for the thread pages"


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
    assert proc.returncode == 3 and orjson.loads(proc.stdout)["error"]["code"] == "pr_not_found"
