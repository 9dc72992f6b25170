"""The conflicting files of a PR, computed in a local clone without touching the user's checkout.

The PR head (``refs/pull/N/head``) and the base branch are fetched into private refs
(``refs/gh-pr-agent/<id>/…``; no FETCH_HEAD, no remote-tracking update), merged in memory with
``git merge-tree --write-tree`` (writes objects only: HEAD, index, working tree and stash are never
touched), described, and the private refs are deleted again.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pr_agent import surface
from pr_agent.errors import PrAgentError, command_repair
from pr_agent.git import Git
from pr_agent.gitsafe import pathspec
from pr_agent.merge.conflicts import (
    FileConflict,
    MergeTreeError,
    apply_renames,
    clip,
    conflict_hunks,
    diff_body,
    group_conflicts,
    parse_merge_tree,
    relabel_sides,
)
from pr_agent.refs import PRRef, parse_remote_url
from pr_agent.shellcmd import command

MIN_GIT = (2, 38, 0)
MAX_DETAILED = 50  # files with previews; the rest are listed with their type only
_PRIORITY = {"upstream": 3, "github": 2, "origin": 1}


def matching_remote(git: Git, ref: PRRef) -> str | None:
    """The remote of this clone that points at the PR's repository (gh's remote priority on ties)."""
    found = []
    for name, url in git.remotes():
        spec = parse_remote_url(url)
        if spec and spec.owner.lower() == ref.owner.lower() and spec.repo.lower() == ref.repo.lower():
            found.append(name)
    found.sort(key=lambda n: -_PRIORITY.get(n, 0))
    return found[0] if found else None


def open_clone(ref: PRRef, repo_path: str | None, cwd_git: Git) -> tuple[Git, str] | None:
    """(git, remote) of the clone to use; None when not in a clone of the PR's repository (and no
    --repo-path was given). An explicit --repo-path that does not fit is an error."""
    if repo_path is None:
        if not cwd_git.is_repo():
            return None
        remote = matching_remote(cwd_git, ref)
        return (cwd_git, remote) if remote else None
    path = Path(repo_path).expanduser()
    git = Git(path)
    git.require()  # an explicit clone needs git: git_not_found, not "not a clone"
    if not path.is_dir() or not git.is_repo():
        raise PrAgentError("not_a_git_repository", f"{repo_path} is not a git clone.",
                           suggestion=surface.text(f"Pass the path of a clone of {ref.full_name}, or omit ",
                                                   surface.arg("detect_merge_conflicts", "repo_path"), "."),
                           details={"field": "repo_path", "value": repo_path})
    remote = matching_remote(git, ref)
    if not remote:
        raise PrAgentError(
            "clone_mismatch", f"No remote of {repo_path} points at {ref.full_name}.",
            suggestion=f"Add one ({command(['git', 'remote', 'add', 'upstream', _clone_url(ref)])}) "
            "or pass the path of a clone of that repository.",
            details={"field": "repo_path", "value": repo_path, "remotes": [n for n, _ in git.remotes()]},
            repair=command_repair(["git", "-C", repo_path, "remote", "-v"]))
    return git, remote


def _clone_url(ref: PRRef) -> str:
    return f"https://{ref.host or 'github.com'}/{ref.full_name}.git"


@dataclass
class LocalResult:
    repo_path: str
    remote: str
    base_branch: str
    base_sha: str
    head_sha: str
    merge_base: str | None
    git_version: str
    tree: str
    conflicts: list[dict[str, Any]] = field(default_factory=list)


def _fetch(git: Git, remote: str, ref: PRRef, base: str, private: str, field: str) -> None:
    git.revs(f"refs/heads/{base}")  # a base branch from GitHub: a valid ref name, never a second refspec
    specs = [f"+refs/pull/{ref.number}/head:{private}/head", f"+refs/heads/{base}:{private}/base"]
    res = git.fetch_into(remote, specs)
    if res.returncode == 0:
        return
    err = res.stderr.strip()
    if "couldn't find remote ref" in err:
        missing = err.split("couldn't find remote ref", 1)[1].strip().splitlines()[0]
        if missing.startswith("refs/pull/"):
            raise PrAgentError(
                "ref_not_found", f"Remote {remote!r} has no {missing} (a mirror or fork rather than "
                f"{ref.full_name} on GitHub, or a PR whose head is gone?).",
                suggestion=f"Check `{command(['git', 'ls-remote', '--', remote, missing])}`; point a remote at "
                f"{ref.full_name} or pass a clone of it as "
                + surface.text(surface.arg("detect_merge_conflicts", "repo_path"), "."),
                details={"remote": remote, "ref": missing}, repair=command_repair(["git", "remote", "-v"]))
        raise PrAgentError(
            "ref_not_found", f"Branch {base!r} does not exist on remote {remote!r}.",
            suggestion="Check the branch name (git ls-remote --heads REMOTE) and call again.",
            details={"field": field, "value": base, "remote": remote},
            repair=command_repair(["git", "ls-remote", "--heads", "--", remote]))
    raise PrAgentError("git_failed", f"git fetch from {remote!r} failed: {err[:300]}",
                       suggestion="Check your network and that `git fetch` works in this clone, then retry.",
                       details={"remote": remote, "git_stderr": err[:500]}, temporary=True,
                       repair=command_repair(["git", "fetch", "--end-of-options", remote]))


def analyze(git: Git, remote: str, ref: PRRef, base: str, *, field: str = "target_branch") -> LocalResult:
    """``field`` names where ``base`` came from (for the error when it does not exist)."""
    version = git.require_version(MIN_GIT, "listing conflicting files (git merge-tree --write-tree)")
    private = f"refs/gh-pr-agent/{os.getpid()}-{secrets.token_hex(4)}"
    try:
        _fetch(git, remote, ref, base, private, field)
        base_sha = git.rev_parse_commit(f"{private}/base")
        head_sha = git.rev_parse_commit(f"{private}/head")
        if not base_sha or not head_sha:
            raise PrAgentError("ref_not_found", "The fetched refs could not be read back.",
                               suggestion="Run the command again.", details={"remote": remote})
        res = git.merge_tree(base_sha, head_sha)
        try:
            result = parse_merge_tree(res.stdout, res.returncode)
        except MergeTreeError:
            hint = ("The two histories share no commit (a shallow clone? try `git fetch --unshallow`)."
                    if "unrelated histories" in res.stderr else "Run the same git merge-tree yourself to see why.")
            raise PrAgentError("git_failed", f"git merge-tree failed (exit {res.returncode}): "
                               f"{res.stderr.strip()[:300]}", suggestion=hint,
                               details={"exit_code": res.returncode, "git_stderr": res.stderr[:500]}) from None
        mb = git.merge_base(base_sha, head_sha)
        out = LocalResult(str(git.cwd), remote, base, base_sha, head_sha, mb, ".".join(map(str, version)),
                          result.tree)
        if not result.clean:
            files = group_conflicts(result)
            tracking = f"refs/remotes/{remote}/{base}"  # what the resolution steps merge (tools/conflicts.py)
            sides = [st.path for f in files for st in f.stages if "~" in st.path]
            dirs = [p.rpartition("/")[0] for p in sides]
            taken = set().union(*(git.names_in(c, dirs) for c in (mb, base_sha, head_sha) if c)) if sides else set()
            relabel_sides(files, {head_sha: "HEAD", base_sha: tracking.replace("/", "_")}, taken)
            if mb:
                apply_renames(files, git.renames(mb, base_sha), git.renames(mb, head_sha))
            out.conflicts = [describe(git, result.tree, f, base, detailed=i < MAX_DETAILED)
                             for i, f in enumerate(files)]
        return out
    finally:
        git.delete_refs([f"{private}/head", f"{private}/base"])


def _blob_preview(git: Git, fc: FileConflict, stage: int) -> str:
    st = fc.stage(stage)
    if st is None:
        return "(absent)"
    if st.mode == "120000":
        return f"(symlink → {clip(git.show(st.oid) or '', 1, 200)})"
    if st.mode == "160000":
        return f"(submodule at commit {st.oid[:12]})"
    text = git.show(st.oid)
    return clip(text) if text is not None else "(unreadable)"


def describe(git: Git, tree: str, fc: FileConflict, base: str, *, detailed: bool = True) -> dict[str, Any]:
    kind = fc.conflict_type
    out: dict[str, Any] = {"file_path": fc.path, "paths": fc.paths, "conflict_type": kind, "git_conflicts": fc.kinds,
                           "git_messages": fc.messages}
    if fc.renamed_from:
        out["renamed_from"], out["renamed_in"] = fc.renamed_from, fc.renamed_in
    deleted = fc.deleted_in
    if deleted:
        out["deleted_in"] = deleted
    hunks, total = [], 0
    if not detailed:
        note = f"(not shown: more than {MAX_DETAILED} conflicting files)"
        out["base_content_preview"] = out["head_content_preview"] = note
    elif kind == "binary":
        sides = []
        for n in (2, 3):
            st = fc.stage(n)
            size = git.blob_size(st.oid) if st else None
            sides.append(f"(binary, {size} bytes, blob {st.oid[:12]})" if st else "(absent)")
        out["base_content_preview"], out["head_content_preview"] = sides
    elif deleted:
        keep = fc.stage(3 if deleted == "base" else 2)
        ancestor = fc.stage(1)
        change = diff_body(git.diff_blobs(ancestor.oid, keep.oid)) if ancestor and keep else ""
        gone = f"(deleted on {base!r})" if deleted == "base" else "(deleted in the PR)"
        kept = change or _blob_preview(git, fc, 3 if deleted == "base" else 2)
        out["base_content_preview"], out["head_content_preview"] = (gone, kept) if deleted == "base" else (kept, gone)
    elif kind == "mode":
        sides = []
        for n in (2, 3):
            st = fc.stage(n)
            sides.append(f"mode {st.mode} {_blob_preview(git, fc, n)}" if st else "(absent)")
        out["base_content_preview"], out["head_content_preview"] = sides
    else:
        merged = git.show(f"{tree}:{fc.path}")
        hunks, total = conflict_hunks(merged or "")
        if hunks:
            out["base_content_preview"], out["head_content_preview"] = hunks[0].base, hunks[0].head
        else:
            out["base_content_preview"] = _blob_preview(git, fc, 2)
            out["head_content_preview"] = _blob_preview(git, fc, 3)
    out["hunks"] = [{"line": h.line, "base": h.base, "head": h.head} for h in hunks]
    out["total_hunks"] = total
    out["suggested_resolution"] = suggestion(fc, base)
    return out


def suggestion(fc: FileConflict, base: str) -> str:
    """What to do with one conflicted file after the steps' merge (the PR's branch checked out, ``base`` merged in:
    ``--ours`` is the PR's side, ``--theirs`` is ``base``'s). It never stages anything itself: keep, edit or delete
    files in the working tree, and the steps' ``git add -A -- PATHS`` records each path as it is (a deleted file as
    deleted) — a ``git rm`` here would make that step fail on a path that is gone from the index."""
    def run(*argv: str) -> str:  # a backticked command inside prose, built by the one command builder
        return "`" + command(list(argv)) + "`"

    spec = pathspec(fc.path)
    ours, theirs = run("git", "checkout", "--ours", "--", spec), run("git", "checkout", "--theirs", "--", spec)
    delete = run("rm", "--", fc.path)
    others = [p for p in fc.paths if p != fc.path]  # git's other unmerged paths for this conflict
    kind = fc.conflict_type
    if kind == "binary":
        return (f"Binary file: pick one whole version. {ours} keeps the PR's, {theirs} takes {base}'s; the add "
                "step records it.")
    if kind == "delete":
        if fc.deleted_in == "base":
            return (f"{base} deleted this file but the PR changed it (the PR's version is in the working tree): "
                    f"keep it as it is, or delete it ({delete}) and move the PR's change to where that code lives "
                    "now; the add step records either.")
        return (f"The PR deleted this file but {base} changed it ({base}'s version is in the working tree): confirm "
                f"the deletion with {delete}, or keep the file as it is; the add step records either.")
    if kind == "rename":
        if fc.renamed_from and not others and "rename/delete" not in fc.kinds:
            who = base if fc.renamed_in == "base" else "the PR"
            return (f"{who} renamed {fc.renamed_from} to {fc.path}; the other side edited the old file. Resolve the "
                    f"conflict markers in {fc.path} keeping both edits; the add step records it.")
        if "rename/delete" in fc.kinds:
            return (f"One side renamed a file to {fc.path}, the other deleted it ({'; '.join(fc.messages)[:200]}). "
                    f"Keep it as it is, or delete it ({delete}); the add step records either.")
        theirs_new, ours_new = fc.stage(2), fc.stage(3)  # merge-tree's sides: 2 = base, 3 = the PR
        if theirs_new and ours_new and theirs_new.path != ours_new.path:
            b, p = theirs_new.path, ours_new.path
            return (f"Both sides renamed {fc.path}: {base} to {b}, the PR to {p}; git kept a copy at each new name. "
                    f"Keep the PR's name with {run('rm', '--', b)}, or {base}'s with {run('rm', '--', p)}; the add "
                    "step records the kept file and the deletions.")
        return (f"Renames collide ({'; '.join(fc.messages)[:300]}). Keep the file you want at {fc.path} and delete "
                "the other copies; the add step records them.")
    if kind in ("mode", "file/directory"):
        what = "type (a file, a symlink or a submodule)" if kind == "mode" else "kind (a file where the other has " \
            "a directory)"
        copies = ", ".join(fc.paths)
        side = next((p for p in fc.paths if p.endswith("~HEAD")), None)
        note = f" ({side} is the PR's)" if side else ""
        return (f"The sides disagree on this path's {what}: git kept both, at {copies}{note}. Keep both, or delete "
                f"the one you do not want ({run('rm', '-r', '--', fc.path)}, say); to keep a copy under another "
                "name, move it and `git add` that name too. The add step records the paths listed here.")
    if kind == "add/add":
        return (f"Both {base} and the PR added this file independently: combine the two versions between the "
                "markers; the add step records it.")
    kept = fc.stage(3 if fc.deleted_in == "base" else 2)
    if kind == "submodule" and fc.deleted_in and kept:  # git's modify/delete on a submodule
        who, other = ("the PR", base) if fc.deleted_in == "base" else (base, "the PR")
        keep = run("git", "update-index", "--cacheinfo", f"160000,{kept.oid},{fc.path}")
        drop = run("git", "rm", "-q", "--cached", "--", fc.path)
        return (f"{other} deleted the submodule {fc.path} but {who} moved it to commit {kept.oid[:12]}: keep it with "
                f"{keep}, or confirm the deletion with {drop}. That records the choice in the index (the add step "
                "leaves submodules alone: adding one that is not checked out fails).")
    if kind == "submodule":
        picks = [f"{run('git', 'update-index', '--cacheinfo', f'160000,{st.oid},{fc.path}')} keeps {who}'s commit "
                 f"{st.oid[:12]}" for who, st in (("the PR", fc.stage(3)), (base, fc.stage(2)))
                 if st and st.mode == "160000"]
        return (f"Both sides moved the submodule {fc.path} to different commits: pick one. " + "; ".join(picks)
                + ". That records the choice in the index (the add step leaves submodules alone: adding one that is "
                "not checked out fails); to combine the two, merge them inside the submodule and record the result's "
                "commit the same way.")
    if kind == "symlink":
        return (f"Both sides changed where this symlink points: git left the PR's link. Keep it, or take {base}'s "
                f"with {theirs}; the add step records it.")
    return (f"Edit the file: in each <<<<<<< … >>>>>>> block keep what both sides meant (the first half is the PR's, "
            f"the second {base}'s), delete the markers; the add step records it.")
