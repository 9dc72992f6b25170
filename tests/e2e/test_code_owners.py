"""check_merge_readiness names a missing code-owner review (fakehub models CODEOWNERS: ext_codeowners)."""

from __future__ import annotations

import shlex

import orjson

from tests.e2e.review_worlds import code_owner_world
from tests.e2e.test_ready import assert_real_command


def test_missing_code_owner_review_is_named(agent, gh_path) -> None:
    a = agent(code_owner_world())

    def ready(n: int) -> dict:
        proc = a.cli("ready", f"acme/widgets#{n}", "--json")
        assert proc.stdout, proc.stderr
        return orjson.loads(proc.stdout)

    out = ready(21)
    [blocker] = out["blocking_issues"]
    assert blocker["code"] == "code_owner_review_required"
    assert "alice, acme/core, acme/docs" in blocker["description"] and "1 approval" in blocker["description"]
    assert "Needs 1 approving review(s), has 1" not in blocker["description"]
    assert out["branch_protection"]["requires_code_owner_review"] is True
    # the files each owner owns: *.md at any depth is @acme/docs'; /src/ is alice's and @acme/core's, except
    # src/vendor/, which the last matching line leaves unowned
    assert out["branch_protection"]["code_owner_files"] == {
        "alice": ["src/app.py"], "acme/core": ["src/app.py"], "acme/docs": ["README.md", "docs/guide/intro.md"]}
    assert "(owning alice: src/app.py; acme/core: src/app.py; acme/docs: README.md, docs/guide/intro.md)" in \
        blocker["description"]
    assert out["next_action"]["command"] == blocker["command"]
    # gh pr edit reads fields fakehub's pinned schema lacks; like test_ready, check gh knows every flag
    assert_real_command(gh_path, blocker["command"])
    assert shlex.split(blocker["command"])[-6:] == ["--add-reviewer", "alice", "--add-reviewer", "acme/core",
                                                    "--add-reviewer", "acme/docs"]

    assert ready(22)["blocking_issues"] == []  # a member of the owning team approved
    assert "code_owner_files" not in ready(22)["branch_protection"]  # nothing missing: not read
    assert ready(23)["blocking_issues"] == []  # the last matching line leaves src/vendor/ unowned
