"""Which branch requirements are read from classic branch protection, and how their sources are named (issue
19 mutation survivors of merge/rules.py). Shapes are GitHub's REST answers: GET /repos/{o}/{r}/branches/{b}
(`protection.required_status_checks` with `contexts` and `checks`, visible to every reader) and the admin-only
GET .../branches/{b}/protection (`required_status_checks.strict`, `required_pull_request_reviews`)."""

from __future__ import annotations

from typing import Any

from pr_agent.merge.rules import Requirements, requirements

UP_TO_DATE_NOTE = "Whether the branch must be up to date before merging is not visible to your login"


def req(branch: dict[str, Any] | None = None, protection: dict[str, Any] | None = None, status: str = "skipped",
        ref_update_rule: dict[str, Any] | None = None) -> Requirements:
    return requirements(branch_name="main", rules=[], branch=branch, ref_update_rule=ref_update_rule,
                        protection=protection, protection_status=status)  # type: ignore[arg-type]


def stub(**rsc: Any) -> dict[str, Any]:
    return {"name": "main", "protected": True,
            "protection": {"enabled": True, "required_status_checks": {"enforcement_level": "everyone", **rsc}}}


def test_required_checks_listed_only_as_checks_on_the_branch_are_required() -> None:
    r = req(stub(contexts=[], checks=[{"context": "build", "app_id": 15368}]))
    assert r.required_checks == ["build"]
    assert r.classic == "partial"
    assert r.sources == ["classic branch protection (partly readable)"]


def test_a_strict_flag_on_the_branch_stub_makes_up_to_date_required() -> None:
    r = req(stub(contexts=["ci"], checks=[], strict=True))
    assert r.strict is True
    assert not any(UP_TO_DATE_NOTE in n for n in r.notes)


def test_an_unknown_strictness_is_said_only_when_protection_is_not_fully_readable() -> None:
    partial = req(stub(contexts=["ci"], checks=[]))
    assert partial.strict is None and any(UP_TO_DATE_NOTE in n for n in partial.notes)
    unprotected = req({"name": "main", "protected": False})
    assert unprotected.classic == "none" and unprotected.strict is None
    assert not any(UP_TO_DATE_NOTE in n for n in unprotected.notes)


def test_admin_protection_with_contexts_only_requires_them() -> None:
    protection = {"required_status_checks": {"strict": False, "contexts": ["lint", "test"], "checks": []}}
    r = req({"name": "main", "protected": True}, protection, "read")
    assert r.required_checks == ["lint", "test"]
    assert r.classic == "read" and r.sources == ["classic branch protection"]
    assert r.strict is False


def test_classic_review_requirement_is_named_once_as_its_source() -> None:
    protection = {"required_pull_request_reviews": {"required_approving_review_count": 2}}
    alone = req({"name": "main", "protected": True}, protection, "read")
    assert alone.required_approvals == 2 and alone.review_sources == ["classic branch protection"]
    both = req({"name": "main", "protected": True}, protection, "read",
               ref_update_rule={"requiredApprovingReviewCount": 2})
    assert both.review_sources == ["classic branch protection"]
