"""Find a program on PATH without ever looking in the current directory.

``shutil.which`` on Windows searches the current directory first (before Python 3.12, and later unless
``NoDefaultCurrentDirectoryInExePath`` is set), so a cloned PR holding ``git.bat`` or ``gh.exe`` would run. Here
only absolute PATH entries count, on every platform; an empty or relative entry (``""``, ``.``, ``bin``) is
skipped, since it names the current directory.
"""

from __future__ import annotations

import os
import sys


def which(name: str, path: str | None = None, *, windows: bool | None = None) -> str | None:
    """The first executable ``name`` in the absolute entries of ``path`` (default ``$PATH``), or None."""
    windows = sys.platform == "win32" if windows is None else windows
    search = os.environ.get("PATH", os.defpath) if path is None else path
    sep = ";" if windows else os.pathsep
    exts = [""]
    if windows:
        pathext = [e for e in os.environ.get("PATHEXT", ".COM;.EXE;.BAT;.CMD").split(";") if e]
        exts = [""] if any(name.lower().endswith(e.lower()) for e in pathext) else pathext
    for entry in search.split(sep):
        entry = entry.strip('"')
        if not (_win_abs(entry) if sys.platform == "win32" else os.path.isabs(entry)):
            continue  # "", ".", "bin": the current directory or below it
        for ext in exts:
            candidate = os.path.join(entry, name + ext)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def _win_abs(entry: str) -> bool:
    """A Windows path is absolute only with a drive and a root (``C:\\x``) or as a UNC path (``\\\\srv\\x``)."""
    return bool(len(entry) >= 3 and entry[1] == ":" and entry[2] in "\\/") or entry.startswith(("\\\\", "//"))
