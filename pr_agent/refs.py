"""PR references: every form a user pastes, and the repository a bare number belongs to.

Parsing is pure (:func:`parse_ref`); resolving a bare number or "no argument" needs the
environment (``--repo``, ``GH_REPO``, the current clone's remotes, the current branch), which
:func:`resolve_pr` takes from the caller's context (any object with the attributes of
:class:`Environment`; the tools pass their :class:`~pr_agent.context.Context`, which imports this module,
never the other way round).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from pr_agent import surface
from pr_agent.errors import PrAgentError, command_repair

if TYPE_CHECKING:
    from pr_agent.gh import Gh
    from pr_agent.git import Git


class Environment(Protocol):
    """What resolving a reference reads: the gateways, the environment and ``--repo``."""

    gh: Gh
    git: Git
    env: Mapping[str, str]
    repo_override: str | None

ACCEPTED_FORMS = [
    "123",
    "#123",
    "owner/repo#123",
    "owner/repo/pull/123",
    "owner/repo/pulls/123",
    "owner/repo/pull/123/files (any suffix, as in a URL)",
    "host/owner/repo#123",
    "https://github.com/owner/repo/pull/123 (any suffix: /files, /checks, #discussion_r…)",
    "(nothing) = the PR of the current branch",
]
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]{1,100}"
_NUM = r"[1-9][0-9]{0,9}"
_HOST = r"[A-Za-z0-9.-]+\.[A-Za-z0-9.-]+(?::[0-9]+)?"
_SHORT = re.compile(rf"^(?:(?P<host>{_HOST})/)?(?P<owner>{_OWNER})/(?P<repo>{_REPO})"
                    rf"(?:#|/pulls?/)(?P<number>{_NUM})/?$")
_URL_PATH = re.compile(rf"^/(?:api/v3/repos/)?(?P<owner>{_OWNER})/(?P<repo>{_REPO})/pulls?/(?P<number>{_NUM})"
                       r"(?:/.*)?$")
_HOSTLESS_PATH = re.compile(rf"^{_OWNER}/{_REPO}/pulls?/{_NUM}(?:[/#?]|$)")
_REPO_SPEC = re.compile(rf"^(?:(?P<host>{_HOST})/)?(?P<owner>{_OWNER})/(?P<repo>{_REPO})$")
_MAX_NUMBER = 2**31 - 1


def valid_owner_repo(owner: str, repo: str) -> bool:
    """GitHub's own rules: an owner of letters, digits and single inner hyphens (old accounts may have more);
    a repository of letters, digits, ``.``, ``_``, ``-`` that is not ``.`` or ``..`` — so neither can add a
    path segment to a REST path or a resource URI."""
    return (re.fullmatch(_OWNER, owner) is not None and re.fullmatch(_REPO, repo) is not None
            and repo not in (".", ".."))


@dataclass(frozen=True)
class PRRef:
    """A fully resolved pull request."""

    owner: str
    repo: str
    number: int
    host: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.owner}/{self.repo}#{self.number}"

    @property
    def qualified(self) -> str:
        """owner/repo#N, prefixed with the host when it is not github.com (a form parse_ref accepts)."""
        return f"{self.host}/{self}" if self.host and self.host != "github.com" else str(self)

    @property
    def web_url(self) -> str:
        return f"https://{self.host or 'github.com'}/{self.owner}/{self.repo}/pull/{self.number}"


@dataclass(frozen=True)
class ParsedRef:
    number: int | None
    owner: str | None = None
    repo: str | None = None
    host: str | None = None
    comment_id: int | None = None  # from a #discussion_r<ID> / #r<ID> anchor


@dataclass(frozen=True)
class RepoSpec:
    owner: str
    repo: str
    host: str | None = None


def invalid_ref(text: str, reason: str) -> PrAgentError:
    return PrAgentError(
        "invalid_pr_reference",
        f"{text!r} is not a pull request reference: {reason}.",
        suggestion="Use one of: " + "; ".join(ACCEPTED_FORMS) + ".",
        details={"field": "pr", "value": text[:200], "reason": reason, "accepted_forms": ACCEPTED_FORMS},
        repair=command_repair(["gh", "pr", "list"]),
    )


def _number(text: str, raw: str) -> int:
    n = int(raw)
    if n > _MAX_NUMBER:
        raise invalid_ref(text, "the number is too large")
    return n


def _clean_host(host: str | None) -> str | None:
    if not host:
        return None
    host = host.lower()
    for prefix in ("www.", "api."):
        if host.startswith(prefix) and host.count(".") >= 2:
            host = host[len(prefix) :]
    return host


def parse_ref(text: str) -> ParsedRef:
    """Parse what a user typed. Raises ``invalid_pr_reference`` with the accepted forms."""
    raw = text
    text = text.strip()
    if not text:
        raise invalid_ref(raw, "it is empty")
    if len(text) > 2048 or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise invalid_ref(raw, "it contains control characters or is too long")
    if re.fullmatch(r"#?[0-9]+", text):
        digits = text.lstrip("#")
        if digits.startswith("0"):
            raise invalid_ref(raw, "PR numbers start at 1")
        return ParsedRef(_number(raw, digits))
    m = _SHORT.match(text)
    if m and m["repo"] in (".", ".."):
        raise invalid_ref(raw, "a repository cannot be named . or ..")
    if m:
        return ParsedRef(_number(raw, m["number"]), m["owner"], m["repo"], _clean_host(m["host"]))
    candidate = text if "://" in text else (f"https://{text}" if re.match(_HOST + "/", text) else "")
    hostless = not candidate and _HOSTLESS_PATH.match(text) is not None
    if hostless:  # owner/repo/pull/123/files: a PR URL's path without its host, any suffix, as with the host
        candidate = "https://host.invalid/" + text
    if candidate:
        parts = urlsplit(candidate)
        if parts.scheme not in ("http", "https"):
            raise invalid_ref(raw, f"the URL scheme {parts.scheme!r} is not http or https")
        m = _URL_PATH.match(parts.path)
        if not m:
            raise invalid_ref(raw, "the URL is not a pull request URL (…/owner/repo/pull/123)")
        if m["repo"] in (".", ".."):
            raise invalid_ref(raw, "a repository cannot be named . or ..")
        if not re.fullmatch(_HOST, parts.netloc.rpartition("@")[2]):
            raise invalid_ref(raw, "the URL's host is not a host name")
        comment = re.fullmatch(r"(?:discussion_)?r([0-9]{1,20})", parts.fragment or "")
        host = None if hostless else _clean_host(parts.netloc.rpartition("@")[2])
        return ParsedRef(_number(raw, m["number"]), m["owner"], m["repo"], host, int(comment[1]) if comment else None)
    raise invalid_ref(raw, "it matches none of the accepted forms")


def parse_repo_spec(text: str, *, source: str) -> RepoSpec:
    m = _REPO_SPEC.match(text.strip())
    if not m or m["repo"] in (".", ".."):
        raise PrAgentError(
            "invalid_arguments", f"{source} {text!r} is not a repository; expected [HOST/]OWNER/REPO.",
            suggestion="Pass the repository as OWNER/REPO, e.g. cli/cli.",
            details={"field": source, "value": text[:200], "reason": "expected [HOST/]OWNER/REPO"})
    return RepoSpec(m["owner"], m["repo"], _clean_host(m["host"]))


def parse_remote_url(url: str) -> RepoSpec | None:
    """owner/repo/host of a git remote URL (https, ssh, scp-like); None when it is not one."""
    url = url.strip()
    m = re.match(r"^(?:[A-Za-z0-9._-]+@)?(?P<host>[A-Za-z0-9.-]+):(?!/)(?P<path>.+)$", url)
    if m and "://" not in url:
        host, path = m["host"], m["path"]
    else:
        try:
            parts = urlsplit(url)
            hostname = parts.hostname
        except ValueError:  # e.g. an unbalanced "[" (IPv6 literal): not a remote we can use, never a crash
            return None
        if parts.scheme not in ("https", "http", "ssh", "git", "git+ssh") or not hostname:
            return None
        host, path = hostname, parts.path
    path = path.strip("/")
    path = path[:-4] if path.endswith(".git") else path
    segs = path.split("/")
    if len(segs) != 2 or not valid_owner_repo(segs[0], segs[1]):
        return None
    host = host.lower()
    if host == "ssh.github.com":
        host = "github.com"
    return RepoSpec(segs[0], segs[1], host)


_REMOTE_PRIORITY = {"upstream": 3, "github": 2, "origin": 1}


def repo_from_clone(ctx: Environment) -> RepoSpec:
    git = ctx.git
    if not git.is_repo():
        raise PrAgentError(
            "repository_not_determined",
            "Cannot tell which repository you mean: not inside a git clone and no repository was given.",
            suggestion=surface.text("Name the PR fully (owner/repo#123 or its URL)",
                                     surface.face(cli=", pass --repo OWNER/REPO, or set GH_REPO.", mcp=".")),
            details={"cwd": str(git.cwd)})
    gh_host = _clean_host(ctx.env.get("GH_HOST"))
    remotes = []
    for name, url in git.remotes():
        spec = parse_remote_url(url)
        if spec and (not gh_host or spec.host == gh_host):
            remotes.append((name, spec))
    if not remotes:
        where = f" on host {gh_host} (GH_HOST)" if gh_host else ""
        raise PrAgentError(
            "repository_not_determined",
            f"This clone has no GitHub remote{where}.",
            suggestion=surface.text("Add a remote (git remote add origin URL)",
                                     surface.face(cli=", pass --repo OWNER/REPO,", mcp=""), " or name the PR fully."),
            details={"cwd": str(git.cwd), "remotes": [n for n, _ in git.remotes()]},
            repair=command_repair(["git", "remote", "-v"]))
    for key, value in git.config_regexp(r"^remote\..*\.gh-resolved$"):
        name = key[len("remote.") : -len(".gh-resolved")]
        if value == "base":
            for rname, spec in remotes:
                if rname == name:
                    return spec
        elif "/" in value:
            return parse_repo_spec(value, source="gh-resolved")
    remotes.sort(key=lambda r: -_REMOTE_PRIORITY.get(r[0], 0))
    return remotes[0][1]


def resolve_repo(ctx: Environment) -> RepoSpec:
    """--repo, then GH_REPO, then the current clone (the order gh uses)."""
    if ctx.repo_override:
        return parse_repo_spec(ctx.repo_override, source="--repo")
    if ctx.env.get("GH_REPO"):
        return parse_repo_spec(ctx.env["GH_REPO"], source="GH_REPO")
    return repo_from_clone(ctx)


def resolve_pr(ctx: Environment, text: str | None) -> PRRef:
    """Resolve a reference (or None = the current branch's PR) to owner/repo/number."""
    if text is not None and text.strip():
        parsed = parse_ref(text)
        if parsed.owner and parsed.repo and parsed.number:
            if ctx.repo_override:  # -R and a full reference: they must agree, never one silently ignored
                spec = parse_repo_spec(ctx.repo_override, source="--repo")
                if (spec.owner.lower(), spec.repo.lower()) != (parsed.owner.lower(), parsed.repo.lower()) or (
                        parsed.host and spec.host and parsed.host.lower() != spec.host.lower()):
                    raise PrAgentError(
                        "invalid_arguments",
                        f"--repo {ctx.repo_override} and the PR reference {text!r} name different repositories.",
                        suggestion="Give the repository once: drop --repo, or pass only the PR number with it.",
                        details={"field": "--repo", "value": ctx.repo_override, "pr": text[:200],
                                 "reason": "conflicts with the PR reference"})
            return PRRef(parsed.owner, parsed.repo, parsed.number, parsed.host)
        spec = resolve_repo(ctx)
        assert parsed.number is not None
        return PRRef(spec.owner, spec.repo, parsed.number, spec.host)
    return _current_branch_pr(ctx)


def _current_branch_pr(ctx: Environment) -> PRRef:
    spec = resolve_repo(ctx)
    git = ctx.git
    if not git.is_repo():
        raise git.not_a_repo()
    branch = git.current_branch()
    if not branch:
        raise PrAgentError("detached_head", "HEAD is detached, so there is no current branch to find a PR for.",
                           suggestion="Pass the PR number or URL, or check out the PR's branch.",
                           details={"cwd": str(git.cwd)})
    merge = git.config_get(f"branch.{branch}.merge") or ""
    m = re.fullmatch(r"refs/pull/([0-9]+)/head", merge)
    if m:
        return PRRef(spec.owner, spec.repo, int(m[1]), spec.host)
    head = merge[len("refs/heads/") :] if merge.startswith("refs/heads/") else branch
    from pr_agent.queries import load_query

    data = ctx.gh.graphql(load_query("pr_for_branch"),
                          {"owner": spec.owner, "repo": spec.repo, "head": head}, hostname=spec.host)
    nodes = [n for n in ((data.get("repository") or {}).get("pullRequests") or {}).get("nodes") or [] if n]
    if not nodes:
        raise PrAgentError(
            "no_pr_for_branch", f"No pull request found for branch {branch!r} in {spec.owner}/{spec.repo}.",
            suggestion="Push the branch and open a PR (gh pr create), or pass the PR number.",
            details={"branch": branch, "repository": f"{spec.owner}/{spec.repo}"},
            repair=command_repair(["gh", "pr", "create"]))
    open_first = sorted(nodes, key=lambda n: n.get("state") != "OPEN")
    return PRRef(spec.owner, spec.repo, int(open_first[0]["number"]), spec.host)
