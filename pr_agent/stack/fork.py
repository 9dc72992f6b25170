"""Where a restack plan fetches a PR's head from and pushes it to: the PR's own repository, or its fork.

A PR from a fork (``isCrossRepository``) has its head branch in another repository. GitHub keeps a copy of
every PR's head in the base repository as ``refs/pull/N/head`` (read-only), so the plan fetches through the
fork's remote when the clone has one, else through that ref. It pushes to the fork's remote only: when the
clone has none, or GitHub would refuse the push (``maintainerCanModify`` false and the viewer is not the
PR's author), the plan has no push step and says so plainly, with what would make it possible.
"""

from __future__ import annotations

from dataclasses import dataclass

from pr_agent.refs import parse_remote_url
from pr_agent.stack import shell
from pr_agent.stack.local import Clone
from pr_agent.stack.model import Pull


@dataclass(frozen=True)
class HeadSource:
    """How the plan reaches one PR's head branch."""

    fetch_remote: str
    fetch_ref: str         # the ref in fetch_remote: refs/heads/B, or refs/pull/N/head
    track: str             # where the fetch writes it locally
    push_remote: str | None
    cannot_push: str | None = None  # why the plan has no push for it (plain words), when push_remote is None
    fork: bool = False

    @property
    def tracks_branch(self) -> bool:
        """The local ref is a remote-tracking branch (so `git branch --track` can follow it)."""
        return self.fetch_ref.startswith("refs/heads/")


def fork_remote(clone: Clone | None, pull: Pull, host: str) -> str | None:
    """The clone's remote for the fork `pull`'s head lives in (on the PR's `host`), if it has one."""
    if clone is None or not pull.head_repo:
        return None
    owner, _, name = pull.head_repo.partition("/")
    host = host.lower()
    for remote, url in sorted(clone.git.remotes()):
        spec = parse_remote_url(url)
        if spec and (spec.owner.lower(), spec.repo.lower(), (spec.host or "github.com").lower()) == (
                owner.lower(), name.lower(), host):
            return remote
    return None


def head_source(pull: Pull, remote: str, clone: Clone | None, host: str = "github.com") -> HeadSource:
    """Same repository: `remote`'s branch. A fork: its remote in the clone, else GitHub's refs/pull/N/head."""
    branch = pull.head_ref
    if not pull.cross_repo:
        return HeadSource(remote, shell.head_ref(branch), shell.remote_ref(remote, branch), remote)
    allowed = pull.viewer_did_author or pull.maintainer_can_modify
    own = fork_remote(clone, pull, host)
    if own is not None:
        shell.check_name(own, f"remote of {pull.head_repo}")
        src = HeadSource(own, shell.head_ref(branch), shell.remote_ref(own, branch), own, fork=True)
    else:
        src = HeadSource(remote, f"refs/pull/{pull.number}/head", shell.pull_track(remote, pull.number), None,
                         fork=True)
    why = None
    if not allowed:
        why = (f"#{pull.number} comes from the fork {pull.head_repo}, does not allow edits by maintainers "
               "(maintainerCanModify is false) and you are not its author: GitHub refuses a push to "
               f"{branch} from anyone but the fork's owner. The plan rebases your local copy only; ask the "
               "author to run it in their clone (or to allow edits by maintainers), then call again.")
    elif own is None:
        add = shell.join(["git", "remote", "add", (pull.head_repo or "fork").split("/")[0],
                          f"https://{host}/{pull.head_repo}.git"])
        where = "this clone" if clone else "the clone the plan runs in"
        why = (f"#{pull.number}'s branch {branch} lives in the fork {pull.head_repo}, and {where} has no remote "
               f"for it, so the plan cannot push it (it fetches it through GitHub's refs/pull/{pull.number}/head, "
               f"which is read-only). Add one (`{add}`) and call again for a plan that pushes it.")
    if why:
        return HeadSource(src.fetch_remote, src.fetch_ref, src.track, None, why, fork=True)
    return src
