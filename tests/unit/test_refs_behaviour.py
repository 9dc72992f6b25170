"""PR references as a user pastes them back: the host survives into every next step (issue 19 survivors)."""

from __future__ import annotations

import pytest

from pr_agent.refs import PRRef, parse_remote_url

# Expected values are written out, never built with `qualified` itself.
CASES = [
    (PRRef("acme", "widgets", 7, "ghe.example.com"), "ghe.example.com/acme/widgets#7"),
    (PRRef("acme", "widgets", 7, "github.com"), "acme/widgets#7"),
    (PRRef("acme", "widgets", 7, None), "acme/widgets#7"),
    (PRRef("o", "r", 12345, "git.corp.internal:8443"), "git.corp.internal:8443/o/r#12345"),
]


@pytest.mark.parametrize(("ref", "expected"), CASES)
def test_qualified_keeps_an_enterprise_host(ref: PRRef, expected: str) -> None:
    assert ref.qualified == expected


def test_web_url_points_at_the_enterprise_host() -> None:
    assert PRRef("acme", "widgets", 7, "ghe.example.com").web_url == "https://ghe.example.com/acme/widgets/pull/7"
    assert PRRef("acme", "widgets", 7).web_url == "https://github.com/acme/widgets/pull/7"


@pytest.mark.parametrize("url", ["git@GHE.Example.COM:acme/widgets.git", "https://GHE.example.com/acme/widgets"])
def test_remote_host_is_compared_case_insensitively(url: str) -> None:
    spec = parse_remote_url(url)
    assert spec is not None
    assert spec.host == "ghe.example.com"
