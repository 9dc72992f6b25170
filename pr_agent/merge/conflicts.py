"""Conflicting files from ``git merge-tree --write-tree -z --messages`` output (pure parsing).

``branch1`` is the base (``ours`` in the markers), ``branch2`` the PR head (``theirs``). Output format
(git-merge-tree(1), git ≥ 2.38, with ``-z``)::

    <tree>NUL  then per conflicted stage  <mode> SP <oid> SP <stage> TAB <path>NUL
    NUL        then per message           <n>NUL <path>NUL … <type>NUL <message>NUL

Exit 0 = clean, 1 = conflicts — but git 2.39 also exits 1 for a ref it cannot resolve (empty stdout),
so a conflict is only believed when the output starts with a tree id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

ConflictType = Literal["content", "rename", "delete", "mode", "add/add", "binary", "file/directory", "submodule",
                       "symlink", "other"]
_OID = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_STAGE = re.compile(r"^(\d{6}) ([0-9a-f]{40,64}) ([123])\t(.*)$", re.S)
PREVIEW_LINES = 12
PREVIEW_CHARS = 800
MAX_HUNKS = 3


class MergeTreeError(ValueError):
    """The output is not a merge result (bad ref, unrelated histories, …)."""


@dataclass(frozen=True)
class Stage:
    mode: str
    oid: str
    stage: int  # 1 = merge base, 2 = base branch (ours), 3 = PR head (theirs)
    path: str


@dataclass(frozen=True)
class Message:
    paths: tuple[str, ...]
    kind: str  # e.g. "CONFLICT (contents)", "Auto-merging", "CONFLICT (modify/delete)"
    text: str


@dataclass
class MergeTree:
    tree: str
    clean: bool
    stages: list[Stage] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)


def parse_merge_tree(stdout: str, returncode: int) -> MergeTree:
    records = stdout.split("\0")
    tree = records[0].strip() if records else ""
    if returncode not in (0, 1) or not _OID.match(tree):
        raise MergeTreeError(f"git merge-tree exited {returncode} without a merge result")
    out = MergeTree(tree=tree, clean=returncode == 0)
    i = 1
    while i < len(records) and records[i]:
        m = _STAGE.match(records[i])
        if m:
            out.stages.append(Stage(m[1], m[2], int(m[3]), m[4]))
        i += 1
    i += 1  # the empty record between stages and messages
    while i < len(records) and records[i].isdigit():
        n = int(records[i])
        paths = tuple(records[i + 1 : i + 1 + n])
        kind, text = [*records[i + 1 + n : i + 3 + n], "", ""][:2]
        out.messages.append(Message(paths, kind, text.strip()))
        i += n + 3
    return out


@dataclass
class FileConflict:
    path: str
    kinds: list[str] = field(default_factory=list)  # git's conflict types, e.g. "contents", "modify/delete"
    messages: list[str] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)
    renamed_from: str | None = None
    renamed_in: Literal["base", "head"] | None = None

    @property
    def add_add(self) -> bool:
        return any(m.startswith("CONFLICT (add/add)") for m in self.messages)

    @property
    def paths(self) -> list[str]:
        """Every path git leaves unmerged in the index for this conflict (both new names of a rename/rename, the
        ``path~side`` copy of a file/directory or distinct-types conflict), in git's order."""
        out: list[str] = []
        for st in self.stages:
            if st.path not in out:
                out.append(st.path)
        return out or [self.path]

    def stage(self, n: int) -> Stage | None:
        return next((s for s in self.stages if s.stage == n and s.path == self.path), None) or \
            next((s for s in self.stages if s.stage == n), None)

    @property
    def conflict_type(self) -> ConflictType:
        kinds = set(self.kinds)
        if "binary" in kinds:
            return "binary"
        if any(k.startswith(("rename", "directory rename", "implicit dir rename")) for k in kinds) \
                or self.renamed_from:
            return "rename"
        if "modify/delete" in kinds:
            # a submodule deleted on one side and moved on the other: recorded with git update-index / git rm
            # --cached, never by adding the path (a submodule that is not checked out cannot be added)
            return "submodule" if any(st.mode == "160000" for st in self.stages) else "delete"
        if "distinct modes" in kinds:
            return "mode"
        if self.add_add:
            return "add/add"
        if "file/directory" in kinds:
            return "file/directory"
        if any(k.startswith("submodule") for k in kinds):
            return "submodule"
        if {st.mode for st in self.stages if st.stage in (2, 3)} == {"120000"}:
            return "symlink"  # both sides changed where a link points: git reports it as contents
        return "content" if "contents" in kinds or not kinds else "other"

    @property
    def deleted_in(self) -> Literal["base", "head"] | None:
        if "modify/delete" not in self.kinds and not any("delete" in k for k in self.kinds):
            return None
        if self.stage(2) is None and self.stage(3) is not None:
            return "base"
        if self.stage(3) is None and self.stage(2) is not None:
            return "head"
        return None


def _kind(message_kind: str) -> str | None:
    m = re.match(r"CONFLICT \((.+)\)$", message_kind)
    return m[1] if m else None


def group_conflicts(result: MergeTree) -> list[FileConflict]:
    """One entry per conflicted file (side files such as ``path~branch`` folded into their file)."""
    files: dict[str, FileConflict] = {}
    alias: dict[str, str] = {}
    for msg in result.messages:
        kind = _kind(msg.kind)
        if kind is None or not msg.paths:
            continue
        main = alias.get(msg.paths[0], msg.paths[0])
        fc = files.setdefault(main, FileConflict(main))
        if kind not in fc.kinds:
            fc.kinds.append(kind)
        fc.messages.append(msg.text)
        for p in msg.paths[1:]:
            alias.setdefault(p, main)
    for st in result.stages:
        main = alias.get(st.path, st.path)
        files.setdefault(main, FileConflict(main)).stages.append(st)
    return sorted(files.values(), key=lambda f: f.path)


def relabel_sides(conflicts: list[FileConflict], labels: dict[str, str], taken: set[str] | None = None) -> None:
    """Rename git's side copies (``path~<label>``) to the names the user's own merge gives them.

    ``git merge-tree A B`` names a copy it moves aside after the commit it came from (``d~<oid>``); the resolution
    steps' ``git merge refs/remotes/R/T`` on the PR's branch names it ``d~HEAD`` (the PR's side) or
    ``d~refs_remotes_R_T`` (the target's: the ref with ``/`` flattened to ``_``). ``labels``: oid -> label.
    When that name is already a path of the merge (``taken``: the paths of the merge base and both sides in the
    copies' directories), git appends ``_0``, ``_1``, … until it is free (merge-ort's ``unique_path``)."""
    used = set(taken or ())
    renamed: dict[str, str] = {}

    def fix(path: str) -> str:
        if path in renamed:
            return renamed[path]
        for oid, label in labels.items():
            if path.endswith("~" + oid):
                name = want = path[: -len(oid)] + label
                n = 0
                while name in used:
                    name, n = f"{want}_{n}", n + 1
                used.add(name)
                renamed[path] = name
                return name
        return path

    for fc in conflicts:
        for st in fc.stages:
            fix(st.path)

    def fix_text(text: str) -> str:
        for old, new in renamed.items():
            text = text.replace(old, new)
        for oid, label in labels.items():
            text = text.replace("~" + oid, "~" + label)
        return text

    for fc in conflicts:
        fc.path = fix(fc.path)
        fc.stages = [Stage(st.mode, st.oid, st.stage, fix(st.path)) for st in fc.stages]
        fc.messages = [fix_text(m) for m in fc.messages]


def apply_renames(conflicts: list[FileConflict], base_renames: list[tuple[str, str]],
                  head_renames: list[tuple[str, str]]) -> None:
    """Mark conflicts on a path that one side renamed (rename/edit shows up as a content conflict)."""
    for fc in conflicts:
        for side, renames in (("base", base_renames), ("head", head_renames)):
            for old, new in renames:
                if new == fc.path and old != new:
                    fc.renamed_from, fc.renamed_in = old, side  # type: ignore[assignment]


@dataclass(frozen=True)
class Hunk:
    line: int  # 1-based line of the <<<<<<< marker in the merged file
    base: str
    head: str


def conflict_hunks(text: str) -> tuple[list[Hunk], int]:
    """The first conflict blocks of a file with markers, and how many there are in all."""
    hunks: list[Hunk] = []
    total = 0
    state, start = None, 0
    ours: list[str] = []
    theirs: list[str] = []
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("<<<<<<<") and state is None:
            state, start, ours, theirs = "ours", no, [], []
        elif line.startswith("|||||||") and state == "ours":
            state = "base"
        elif line.startswith("=======") and state in ("ours", "base"):
            state = "theirs"
        elif line.startswith(">>>>>>>") and state == "theirs":
            total += 1
            if len(hunks) < MAX_HUNKS:
                hunks.append(Hunk(start, clip("\n".join(ours)), clip("\n".join(theirs))))
            state = None
        elif state == "ours":
            ours.append(line)
        elif state == "theirs":
            theirs.append(line)
    return hunks, total


def clip(text: str, lines: int = PREVIEW_LINES, chars: int = PREVIEW_CHARS) -> str:
    rows = text.splitlines()
    cut = "\n".join(rows[:lines])
    more = len(rows) > lines
    if len(cut) > chars:
        cut, more = cut[:chars], True
    return cut + ("\n…" if more else "")


def diff_body(diff: str) -> str:
    """A unified diff without its header lines (from the first @@ on), clipped."""
    rows = diff.splitlines()
    start = next((i for i, r in enumerate(rows) if r.startswith("@@")), len(rows))
    return clip("\n".join(rows[start:]))
