"""`ready` and `conflicts` through the CLI in this process (tests/unit/inproc.py) against fakehub through the real
gh; `conflicts` in a real git clone (tests/e2e/gitrepos.py) whose checkout must stay exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.gitrepos import Repos, build, checkout_state, conflicts_world
from tests.e2e.merge_worlds import checks_only_world, merge_methods_world, readiness_world
from tests.e2e.review_worlds import code_owner_world
from tests.fakehub import Fault

POLL = {"GH_PR_AGENT_MERGEABLE_WAIT": "0.1"}


def test_each_blocker_is_named_with_the_command_that_clears_it(inproc) -> None:
    a = inproc(readiness_world())
    verdicts, outs = {}, {}
    for number in (1, 2, 6, 9, 12):
        ran = a.cli("ready", f"acme/widgets#{number}", "--json", **POLL)
        outs[number] = out = ran.json()
        verdicts[number] = (out["verdict"], [b["code"] for b in out["blocking_issues"]], ran.code)
    assert verdicts == {1: ("ready", [], 0), 2: ("draft", ["draft"], 1), 6: ("blocked", ["changes_requested"], 1),
                        9: ("blocked", ["behind_base"], 1), 12: ("conflicts", ["merge_conflicts"], 1)}
    assert outs[9]["next_action"]["command"] == "gh api --method PUT repos/acme/widgets/pulls/9/update-branch"
    assert outs[1]["next_action"]["command"].startswith("gh pr merge 1 ")
    assert outs[1]["branch_protection"]["required_checks"] == ["test"]


def test_pending_and_unknown_are_their_own_exit_code(inproc) -> None:
    a = inproc(readiness_world())
    pending = a.cli("ready", "acme/widgets#3", "--json", **POLL)
    assert pending.code == 8 and pending.json()["verdict"] == "pending"
    unknown = a.cli("ready", "acme/widgets#11", "--json", **POLL)
    assert unknown.code == 8 and unknown.json()["github"]["mergeable"] == "UNKNOWN"
    assert unknown.json()["ready_to_merge"] is False


def test_text_view_and_a_missing_pr(inproc) -> None:
    a = inproc(readiness_world())
    ran = a.cli("ready", "acme/widgets#6", **POLL)
    assert ran.code == 1 and "BLOCKED" in ran.stdout and "gh pr-agent comments" in ran.stdout
    missing = a.cli("ready", "acme/widgets#404", "--json", **POLL)
    assert missing.code == 3 and missing.json()["error"]["code"] == "pr_not_found"


def test_rules_refused_over_graphql_are_read_over_rest_with_the_same_verdict(inproc) -> None:
    a = inproc(checks_only_world())
    a.hub.add_fault(Fault(kind="graphql_field_refused", body={"field": "rules"}, match="graphql:PrMergeReadiness",
                          times=None))
    out = a.cli("ready", "acme/widgets#2", "--json", **POLL).json()
    assert [b["code"] for b in out["blocking_issues"]] == ["required_check_failed"]
    assert out["branch_protection"]["required_checks"] == ["test", "build"]


def test_a_missing_code_owner_review_names_the_owners_and_their_files(inproc) -> None:
    a = inproc(code_owner_world())
    ran = a.cli("ready", "acme/widgets#21", "--json", **POLL)
    assert ran.code == 1
    out = ran.json()
    [blocker] = out["blocking_issues"]
    assert blocker["code"] == "code_owner_review_required"
    assert out["branch_protection"]["code_owner_files"] == {
        "alice": ["src/app.py"], "acme/core": ["src/app.py"], "acme/docs": ["README.md", "docs/guide/intro.md"]}
    assert blocker["command"].endswith("--add-reviewer alice --add-reviewer acme/core --add-reviewer acme/docs")
    assert a.json("ready", "acme/widgets#22", **POLL)["blocking_issues"] == []  # a member of the owning team


def test_unreadable_rest_rules_keep_the_verdict_and_say_what_is_missing(inproc) -> None:
    a = inproc(merge_methods_world(["rebase"]))
    a.hub.add_fault(Fault(match=r"GET /repos/acme/widgets/rules/branches/", status=403, times=None,
                          body={"message": "Resource not accessible by integration"}))
    out = a.json("ready", "acme/widgets#1", **POLL)
    assert out["verdict"] == "ready" and out["branch_protection"]["required_checks"] == ["test"]
    assert any("merge methods" in n and "could not be read" in n for n in out["branch_protection"]["notes"])


def test_an_admin_reads_classic_protection_too(inproc) -> None:
    a = inproc(readiness_world(viewer_permission="ADMIN"))
    classic = a.cli("ready", "acme/widgets#13", "--json", **POLL).json()["branch_protection"]
    assert classic["classic_protection"] == "read" and classic["requires_up_to_date"] is True
    assert a.json("ready", "acme/widgets#1", **POLL)["branch_protection"]["classic_protection"] == "none"


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Repos:
    return build(tmp_path_factory.mktemp("conflicts"))


def test_conflicting_files_are_found_in_the_clone_without_touching_it(inproc, repos: Repos) -> None:
    a = inproc(conflicts_world(repos, {25: "MERGEABLE"}))
    before = checkout_state(repos.clone)
    content = a.cli("conflicts", "acme/widgets#21", "--json", cwd=repos.clone, **POLL)
    rename = a.cli("conflicts", "acme/widgets#22", "--json", cwd=repos.clone, **POLL)
    clean = a.cli("conflicts", "acme/widgets#25", "--json", cwd=repos.clone, **POLL)
    assert checkout_state(repos.clone) == before  # branch, HEAD, index, working tree, stash, refs, config
    assert content.code == 1 and rename.code == 1 and clean.code == 0
    [conflict] = content.json()["conflicts"]
    assert (conflict["file_path"], conflict["conflict_type"]) == ("f.txt", "content")
    assert conflict["base_content_preview"] == "BETA from main"
    assert content.json()["local"]["head_sha"] == repos.heads[21]
    assert content.json()["instructions"]["resolution_steps"][0].startswith("gh pr checkout 21 ")
    [moved] = rename.json()["conflicts"]
    assert (moved["file_path"], moved["renamed_from"]) == ("new_name.txt", "old_name.txt")
    assert clean.json()["conflicts"] == [] and clean.json()["has_conflicts"] is False


def test_outside_a_clone_github_says_whether_there_are_conflicts(inproc, repos: Repos, tmp_path: Path) -> None:
    a = inproc(conflicts_world(repos, {25: "MERGEABLE"}))
    elsewhere = tmp_path / "not-a-clone"
    elsewhere.mkdir()
    ran = a.cli("conflicts", "acme/widgets#23", "--json", cwd=elsewhere, **POLL)
    out = ran.json()
    assert ran.code == 1 and out["source"] != "local" and out["has_conflicts"] is True
    text = a.cli("conflicts", "acme/widgets#21", cwd=repos.clone, **POLL)
    assert text.code == 1 and "f.txt" in text.stdout


def test_binary_and_deleted_files_get_previews_a_person_can_act_on(inproc, repos: Repos) -> None:
    a = inproc(conflicts_world(repos, {}))
    [binary] = a.cli("conflicts", "acme/widgets#24", "--json", cwd=repos.clone, **POLL).json()["conflicts"]
    assert binary["conflict_type"] == "binary"
    assert binary["base_content_preview"].startswith("(binary, 12 bytes")
    assert "--ours" in binary["suggested_resolution"] and "--theirs" in binary["suggested_resolution"]
    deleted = a.cli("conflicts", "acme/widgets#23", "--repo-path", str(repos.clone), "--json", **POLL).json()
    [gone] = deleted["conflicts"]
    assert (gone["conflict_type"], gone["deleted_in"]) == ("delete", "base")
    assert gone["base_content_preview"] == "(deleted on 'base-23')"
    assert "+please, with a change" in gone["head_content_preview"]


def test_another_target_branch_and_refs_that_do_not_exist(inproc, repos: Repos, tmp_path: Path) -> None:
    a = inproc(conflicts_world(repos, {}))
    before = checkout_state(repos.clone)
    other = a.cli("conflicts", "acme/widgets#21", "--target", "base-25", "--repo-path", str(repos.clone), "--json",
                  cwd=tmp_path, **POLL)
    assert other.code == 0 and other.json()["verdict"] == "clean"  # base-25 touched README.md only
    no_branch = a.cli("conflicts", "acme/widgets#21", "--target", "no-such-branch", "--json", cwd=repos.clone,
                      **POLL)
    assert no_branch.code == 3 and no_branch.json()["error"]["details"]["value"] == "no-such-branch"
    no_head = a.cli("conflicts", "acme/widgets#26", "--json", cwd=repos.clone, **POLL)  # no refs/pull/26 there
    assert no_head.code == 3 and no_head.json()["error"]["code"] == "ref_not_found"
    assert checkout_state(repos.clone) == before
    unknown = a.cli("conflicts", "acme/widgets#26", "--json", cwd=tmp_path, **POLL)
    assert unknown.code == 8 and unknown.json()["verdict"] == "unknown"  # never "no conflicts"


def test_an_explicit_repo_path_must_be_a_clone_of_that_repository(inproc, repos: Repos, tmp_path: Path) -> None:
    a = inproc(conflicts_world(repos, {}))
    empty = a.cli("conflicts", "acme/widgets#21", "--repo-path", str(tmp_path), "--json", **POLL)
    assert empty.code == 3 and empty.json()["error"]["code"] == "not_a_git_repository"
    seed = a.cli("conflicts", "acme/widgets#21", "--repo-path", str(repos.origin.parent / "seed"), "--json", **POLL)
    assert seed.code == 3 and seed.json()["error"]["code"] == "clone_mismatch"
    assert "(git remote add upstream https://" in seed.json()["error"]["suggestion"]
