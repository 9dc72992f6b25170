"""CODEOWNERS matching in fakehub, against the examples of GitHub's docs ("About code owners")."""

from __future__ import annotations

from tests.fakehub.ext_codeowners import owners_of, unmet

DOCS_EXAMPLE = """\
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
/build/logs/ @doctocat
docs/*  docs@example.com
apps/   @octocat
/docs/  @doctocat
/scripts/ @doctocat @octocat
/apps/github
"""


def test_patterns_as_github_documents_them() -> None:
    repo = {"codeowners": DOCS_EXAMPLE}
    assert owners_of(repo, "README.md") == ["global-owner1", "global-owner2"]
    assert owners_of(repo, "src/x.js") == ["js-owner"]
    assert owners_of(repo, "build/logs/a/b.txt") == ["doctocat"]
    assert owners_of(repo, "x/build/logs/a.txt") == ["global-owner1", "global-owner2"]  # anchored
    assert owners_of(repo, "docs/getting-started.md") == ["doctocat"]  # /docs/ is later than docs/*
    assert owners_of(repo, "deep/apps/a.txt") == ["octocat"]  # apps/ matches at any depth
    assert owners_of(repo, "apps/github/x.txt") == []  # the last match has no owners: unowned


def test_team_members_satisfy_a_team_owner() -> None:
    repo = {"codeowners": "/src/ @acme/core\n*.md @bob\n", "teams": {"acme/core": ["carol"]}}
    pr = {"files": ["src/a.py", "README.md", "setup.cfg"], "author": "octocat"}
    assert unmet(repo, pr, ["carol"]) == {"README.md": ["bob"]}
    assert unmet(repo, pr, ["carol", "BOB"]) == {}
    assert unmet(repo, pr, ["dave"]) == {"src/a.py": ["acme/core"], "README.md": ["bob"]}
