"""CODEOWNERS matching (pr_agent/merge/codeowners.py), on the examples of GitHub's docs "About code owners"
(https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners#example-of-a-codeowners-file):
the expected owners below are the ones those docs state for each pattern."""

from __future__ import annotations

import pytest

from pr_agent.merge.codeowners import files_by_owner, owners_of, parse

DOCS_EXAMPLE = """\
# These owners will be the default owners for everything in the repo.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
/apps/ @octocat
/apps/github @doctocat
"""


@pytest.mark.parametrize(("path", "owners"), [
    ("README.md", ("global-owner1", "global-owner2")),  # only * matches
    ("src/app.js", ("js-owner",)),  # a later line overrides *; the inline comment is not an owner
    ("main.go", ("docs@example.com",)),
    ("notes/a.txt", ("octo-org/octocats",)),
    ("build/logs/today.log", ("octocat",)),  # /build/logs/ matches, but the later **/logs wins (docs: /build/logs)
    ("deep/build/logs/x.log", ("octocat",)),  # not under /build/logs/, but **/logs matches at any depth
    ("docs/getting-started.md", ("doctocat",)),  # docs/* then /docs/: the last one wins
    ("docs/build-app/troubleshooting.md", ("doctocat",)),  # docs/* does not reach it; /docs/ does
    ("web/apps/x.py", ("octocat",)),  # apps/ matches an apps directory anywhere
    ("scripts/run.sh", ("doctocat", "octocat")),
    ("apps/github/x.py", ("doctocat",)),  # the very last line
])
def test_docs_example_last_match_wins(path: str, owners: tuple[str, ...]) -> None:
    assert owners_of(parse(DOCS_EXAMPLE), path) == owners


def test_a_line_without_owners_leaves_paths_unowned() -> None:
    rules = parse("* @all\n/vendor/\n")
    assert owners_of(rules, "vendor/lib/x.c") == () and owners_of(rules, "src/x.c") == ("all",)


def test_files_by_owner_keeps_githubs_spelling_and_order() -> None:
    rules = parse("*.md @acme/docs\n/src/ @Alice @acme/core\n/src/vendor/\n")
    files = ["src/app.py", "README.md", "src/vendor/lib.py", "docs/guide/intro.md"]
    assert files_by_owner(rules, files, ["alice", "acme/core", "acme/docs", "nobody"]) == {
        "alice": ["src/app.py"], "acme/core": ["src/app.py"], "acme/docs": ["README.md", "docs/guide/intro.md"],
        "nobody": []}


def test_unsupported_syntax_is_skipped_not_misread() -> None:
    rules = parse("* @all\n!secret.txt @x\n[ab].py @y\nfile\\#1.txt @hash\n")
    assert owners_of(rules, "secret.txt") == ("all",) and owners_of(rules, "a.py") == ("all",)
    assert owners_of(rules, "file#1.txt") == ("hash",)
