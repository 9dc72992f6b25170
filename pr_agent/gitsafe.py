"""What keeps the git gateway from running a repository's programs or reading data as options (design §10).

A clone is untrusted code: its ``.git/config`` and hooks may come from anywhere (a copied directory, a setup
script the PR ran). For every command the gateway runs:

- hooks are off (``core.hooksPath`` points at the null device), ``core.fsmonitor`` is off, optional locks are
  not taken (``GIT_OPTIONAL_LOCKS=0``: ``git status`` does not rewrite ``.git/index``), the ``ext::`` transport
  is refused;
- programs the repository's own configuration (scopes ``local`` / ``worktree``) names are replaced:
  attribute-driven merge drivers (``merge.<name>.driver``) by git's own ``git merge-file``, filters
  (``filter.<name>.clean/smudge/process``) and diff drivers (``diff.<name>.textconv/command``) by nothing,
  ``core.sshCommand`` / ``core.gitProxy`` /
  ``credential.helper`` of the repository by the defaults. The user's global and system configuration stays in
  force: it is the user's. Fetches name git's own ``--upload-pack`` (``remote.<name>.uploadpack`` cannot be
  replaced with ``-c``).

Revisions that come from GitHub or from the caller are validated before they reach git (:func:`revision`): full
hex object ids, or ``refs/…`` names that ``git check-ref-format`` accepts, optionally with ``^{commit}`` /
``^{tree}`` or a leading ``^``; nothing that starts with ``-``.
"""

from __future__ import annotations

import os
import re

from pr_agent.errors import PrAgentError

ALWAYS = ("-c", f"core.hooksPath={os.devnull}", "-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never")
SAFE_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_PAGER": "cat"}
# the keys whose values are programs git runs, as --show-scope --get-regexp reads them
PROGRAM_KEYS = (r"^(merge\..+\.driver|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)"
                r"|core\.(sshcommand|gitproxy)|credential\..*helper)$")
# remote.<name>.uploadpack cannot be overridden with -c (git: "more than one uploadpack given, using the first"):
# fetches pass --upload-pack instead
UPLOAD_PACK = "--upload-pack=git-upload-pack"
MERGE_FILE = "git merge-file --marker-size=%L %A %O %B"

HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"refs/[^\x00-\x20\x7f~^:?*\[\\]+")
_SUFFIX = re.compile(r"\^\{(?:commit|tree)\}")


def overrides(scoped: str) -> list[str]:
    """``-c`` pairs replacing every program the repository's own config names (``git config --show-scope
    --get-regexp PROGRAM_KEYS`` output)."""
    out: list[str] = []
    for line in scoped.splitlines():
        scope, _, rest = line.partition("\t")
        key = rest.split(" ", 1)[0]
        if scope not in ("local", "worktree") or not key:
            continue
        low = key.lower()
        if low.startswith("merge."):
            value = MERGE_FILE
        elif low == "core.sshcommand":
            value = "ssh"
        else:
            value = ""  # filters, diff drivers, proxies, credential helpers: none
        out += ["-c", f"{key}={value}"]
    return out


def invalid_revision(value: str, why: str) -> PrAgentError:
    return PrAgentError("invalid_arguments", f"Refusing the git revision {value[:100]!r}: {why}.",
                        suggestion="Object ids must be full hex ids and refs full refs/… names; check the data "
                        "this came from.", details={"field": "revision", "value": value[:200], "reason": why})


def revision(value: str, *, exclude: bool = False, ref_ok: bool = True) -> tuple[str, str | None]:
    """(value, the ref that needs ``git check-ref-format`` or None); raises for anything else."""
    if not isinstance(value, str) or not value:
        raise invalid_revision(str(value), "it is empty")
    core = value[1:] if exclude and value.startswith("^") else value
    core = _SUFFIX.sub("", core) if core.endswith("}") else core
    if HEX.fullmatch(core):
        return value, None
    if ref_ok and _REF.fullmatch(core) and ".." not in core and "@{" not in core and not core.endswith((".", "/")):
        return value, core
    raise invalid_revision(value, "it is neither a full object id nor a refs/… name")


_PATHSPEC_MAGIC = re.compile(r"[*?\[\\]|^:")


def pathspec(path: str) -> str:
    """A pathspec that names exactly ``path``: git reads ``*``, ``?``, ``[`` and ``\\`` as a glob and a leading
    ``:`` as magic, so such a path gets the ``:(literal)`` prefix (other paths stay as they are, readable)."""
    return ":(literal)" + path if _PATHSPEC_MAGIC.search(path) else path
