"""Per-line cleaning and prefilter of ``parse_log``, and the block scan that avoids both on most lines.

``clean`` and ``prefiltered`` define what the engine does with one line. Running them on every line of a
200 MB log costs more than the parsers, and ~90 % of the lines pass neither. ``scan_block`` looks at a
block of raw bytes (whole lines, timestamps and colours still in) and returns the indices of the lines
that may pass the prefilter: a superset, found with C-speed substring tests and a few regexes. Only those
lines, the lines a parser captures and the lines the ring is read for are decoded and cleaned.

Why it is a superset. A block with a ``gh run view`` prefix (``job<TAB>step<TAB>``) is not scanned
(``scan_block`` returns None: the engine cleans every line of it). Lines with a hazard are always
candidates: an OSC sequence (``ESC ]``), a ``^`` before ``[`` or ESC (caret notation, also the one that
removing sequences forms: ``^[ESC[1m[31m``), a ``\r`` that is not part of the line end, a BOM. For any
other line, cleaning is: decode, cut the timestamp, remove CSI and two-byte ANSI sequences, strip the line
end. Sequences never straddle the timestamp cut (a CSI sequence ends at the latest on the ``Z`` of
``…Z ``), and the other steps only remove text at the ends. So a word of the prefilter is in the clean
line only if it is in the raw line or removing a run of sequences joined two of its characters
(``_ESC_RE``: a run between characters that are neighbours in a word), and a clean line starts with one
of ``PREFIXES`` only if the raw line has that prefix, with runs of sequences allowed before each of its
characters, at its start or after a timestamp's ``Z`` (``_PFX_*``). ``tests/unit/ci/test_scan.py``
checks all of this against cleaning every line. One exception, on purpose: a code exactly at a space inside
one of the words that hold spaces (TAP's ``not ok ``, ExUnit's ``) test ``) hides that word from the scan
(``_PAIRS``); those runners print these words uncoloured, and treating every code next to a space as a
possible split would make every coloured line a candidate (a third of the throughput).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import chain, islice, repeat
from typing import Any

from ..logs import _ANSI_RE, _BOM, _CARET_ANSI_RE, _TS_RE, clean_line, strip_gh_prefix

# Line starts that matter although they contain none of the prefilter's words (go -json events too).
PREFIXES = ("##[", "====", "Ran ", "OK (", "ok  \t", "     Running ", "   Doc-tests", "Total tests", "panic: ",
            "[  PASSED  ] ")
_WIDE = ("●", "✕", "×", "✖", "›", "✘", "✗", "\U00100884")
_STR_BATCH = 4096  # str lines per block
_END = object()


def clean(s: str, gh: str) -> tuple[str, str]:
    """One raw line without timestamp, ``gh`` prefix, ANSI codes and line end; and the ``gh`` prefix in force."""
    if s[27:29] == "Z " and s[19:20] == "." and s[10:11] == "T" and s[4:5] == "-":
        s = s[29:]  # the usual "2026-11-30T10:00:00.1234567Z " prefix
    elif s[10:11] == "T" and s[4:5] == "-":
        m = _TS_RE.match(s)
        if m:
            s = s[m.end() :]
    elif s[:1] == _BOM:
        s = clean_line(s)
    elif "\t" in s:
        s, gh = strip_gh_prefix(s, gh)
    if "\x1b" in s:
        s = _ANSI_RE.sub("", s)
    if "^" in s and "^[[" in s:
        s = _CARET_ANSI_RE.sub("", s)
    s = s.rstrip("\r\n")
    if "\r" in s:
        s = clean_line(s)
    return s, gh


def prefiltered(s: str) -> bool:
    """Whether a clean line goes to the parsers: every line one of them starts from contains one of these."""
    return (
        "FAIL" in s
        or "rror" in s
        or "fail" in s
        or "Fail" in s
        or "ERR" in s
        or "pass" in s
        or "RERUN" in s
        or s.startswith(PREFIXES)
        or "<test" in s
        or "illed" in s
        or "timed out" in s
        or "not ok " in s
        or ") test " in s
        or ") doctest " in s
        or "[E]" in s
        or "Running:" in s
        or "Searched:" in s
        or "***" in s
        or (not s.isascii() and ("●" in s or "✕" in s or "×" in s or "✖" in s or "›" in s or "✘" in s
                                 or "✗" in s or "\U00100884" in s))
    )


# -- the block scan ----------------------------------------------------------------------------------
# The scan reads raw bytes as latin-1 text: one character per byte (so UTF-8 needles are byte strings),
# and str operations (``in`` on bytes is several times slower).

# Substrings of the prefilter's words ("timed" for "timed out": no space, so no pair with a space below).
_WORDS = ("FAIL", "rror", "fail", "Fail", "ERR", "pass", "<test", "illed", "timed", "RERUN", "not ok ", ") test ",
          ") doctest ", "[E]", "Running:", "Searched:", "***")
# Pairs of neighbouring characters inside a word, spaces excepted: a code between a character and a space
# would make every coloured line a candidate (codes sit next to spaces everywhere), so the words with spaces
# (TAP's "not ok ", ExUnit's ") test ") are found in the raw text only when no code splits them at a space;
# their runners print those words uncoloured.
_PAIRS = {p[i : i + 2] for w in _WORDS for p in w.split(" ") for i in range(len(p) - 1)}
_SEQ = r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])"  # one CSI or two-byte sequence, as ``_ANSI_RE`` reads it
_RUN = f"(?:{_SEQ}(?:{_SEQ})*|)"  # an optional run of them (a branch: cheaper than ``*`` when absent)


def _charset(chars: Iterable[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(set(chars))) + "]"


# An OSC sequence (the line is cleaned to find out), or a run of sequences between two characters that
# may be neighbours in a word. A run is matched from an ESC after a pair's first character over at most
# ``_RUN_MAX`` sequences (each sequence is then read at most ``_RUN_MAX`` times: linear), and a line with a
# longer run of sequences is a candidate anyway (``_LONG_RUN_RE``, as rare in real logs as it is cheap).
# A run is tried only from its first ESC: an ESC after the final byte of a sequence would read the rest
# of the run again (a line of colour codes read eight times over: 6 MB/s). Which ESC follows a sequence
# cannot be told in general (a final byte is also a letter), but two fixed-width cases can, and they are
# the common ones: ``ESC [ X ESC`` (``ESC [ X`` is always a CSI sequence, so X is never text), and
# ``d X ESC`` with d a digit or ";" and X a character that no word starts with (``_INNER``): X is then
# inside a word, its neighbour in the clean line a character of the word (never a digit or ";") or the
# end of a sequence (never a digit either), so a d before it means X ends a sequence (``ESC[0m``).
_RUN_MAX = 8
_INNER = _charset({p[0] for p in _PAIRS} - {p[0] for w in _WORDS for p in w.split(" ") if p})
_ESC_RE = re.compile(
    r"\x1b(?:\]|(?<=" + _charset(p[0] for p in _PAIRS) + r"\x1b)(?<!\x1b\[" + _INNER + r"\x1b)(?<![0-9;]" + _INNER
    + r"\x1b)(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])(?:" + _SEQ + "){0," + str(_RUN_MAX - 1) + "}(?="
    + _charset(p[1] for p in _PAIRS) + "))"
)
_LONG_RUN_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])(?:" + _SEQ + "){" + str(_RUN_MAX - 1) + "}")


def _esc_marks(text: str) -> list[int]:
    """Offsets (in lines that have them) of OSC sequences, of runs of sequences that removing them may turn
    into a word, and of runs longer than ``_RUN_MAX`` sequences."""
    cap = text.count("\n") + 1
    marks = _offsets(_ESC_RE, text, cap)
    if text.count("\x1b") >= _RUN_MAX:
        marks += _offsets(_LONG_RUN_RE, text, cap)
    return marks


def _offsets(rx: re.Pattern[str], text: str, cap: int) -> list[int]:
    """Offsets of the matches of ``rx`` in ``text``, one C-level pass; past ``cap`` matches (more than the
    block has lines: an adversarial block), only the first match of each line."""
    out = [m.start() for m in islice(rx.finditer(text), cap + 1)]
    return out if len(out) <= cap else _first_per_line(rx, text)


def _first_per_line(rx: re.Pattern[str], text: str) -> list[int]:
    """The offset of the first match of ``rx`` in each line that has one (one search per line at most)."""
    out: list[int] = []
    search, find = rx.search, text.find
    pos = 0
    while (m := search(text, pos)) is not None:
        out.append(m.start())
        pos = find("\n", m.end()) + 1
        if not pos:
            break
    return out


def _trie(words: list[str]) -> str:
    """A regex for "starts with one of ``words``", allowing runs of sequences before each character."""
    if any(not w for w in words):
        return ""
    heads: dict[str, list[str]] = {}
    for w in words:
        heads.setdefault(w[0], []).append(w[1:])
    return _RUN + "(?:" + "|".join(re.escape(c) + _trie(rest) for c, rest in heads.items()) + ")"


_PFX = _trie([*PREFIXES, '{"'])
_PFX_START_RE = re.compile(_PFX)
_PFX_AFTER_NL_RE = re.compile(r"\n" + _PFX)
# After the "Z " that ends a timestamp, or after a "Z" (``_TS_RE`` makes the space optional; then the text
# cannot start with a space, the timestamp would take it). Any Z: a superset.
_PFX_AFTER_Z_RE = re.compile(
    r"Z(?: " + _PFX + "|(?! )" + _trie([p for p in (*PREFIXES, '{"') if not p.startswith(" ")]) + ")"
)
_CR_RE = re.compile(r"\r(?![\r\n])")  # a "\r" that stripping the line end does not remove
_CARET_RE = re.compile(r"\^(?=[\[\x1b])")  # "^[[" in caret notation, or one that removing sequences forms
# A ``gh run view --log`` prefix (``job<TAB>step<TAB><timestamp>``); a digit is 1-4 bytes in UTF-8.
_D = r"(?:[0-9]|[\x80-\xff]{2,4})"
_GH_RE = re.compile(r"\t[^\t\n]*\t" + _D + "{4}-" + _D + "{2}-" + _D + "{2}T" + _D + "{2}:" + _D + "{2}:")
_BOM8 = _BOM.encode().decode("latin-1")
_WORD_GATES = tuple((w, w[0] if w[0] in "FE<*" else "") for w in _WORDS)
# ● ✕ × ✖ › and the BOM in UTF-8, each with a byte of it that plain text rarely has.
_WIDE_GATES = tuple((w.encode().decode("latin-1"), w.encode().decode("latin-1")[-1]) for w in (*_WIDE, _BOM))
# The same with every digit and every non-ASCII byte as "0" (``bytes.translate``, C speed): its literal
# start "\t0000" is found without trying every tab, so a line of tabs costs no regex attempt per tab.
_ZEROS = bytes.maketrans(bytes([*range(0x30, 0x3A), *range(0x80, 0x100)]), b"0" * 138)
_GH_ZEROS_RE = re.compile(rb"\t0000(?:0{0,12})-0{2,8}-0{2,8}T0{2,8}:0{2,8}:")


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def contains_any(words: Iterable[str]) -> ast.expr:
    """The expression ``w1 in s or w2 in s or …``: an inline chain of ``in`` tests is the fastest test Python
    has (a loop or a regex costs 2-3 times more per line). Built as syntax nodes, never as source text: each
    word is a constant node, whatever characters it holds."""
    tests: list[ast.expr] = []
    for w in words:
        if not isinstance(w, str):
            raise TypeError(f"a parser word must be a str, not {type(w).__name__}")
        tests.append(ast.Compare(ast.Constant(w), [ast.In()], [_name("s")]))
    return any_of(tests)


def any_of(tests: list[ast.expr]) -> ast.expr:
    """``t1 or t2 or …`` (``False`` for none)."""
    if not tests:
        return ast.Constant(False)
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests)


def compile_lambda(params: list[str], body: ast.expr, env: dict[str, object] | None = None) -> Callable[..., Any]:
    """``lambda params: body`` compiled from syntax nodes, with ``env`` as its globals."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[],
                         defaults=[])
    tree = ast.fix_missing_locations(ast.Expression(ast.Lambda(args, body)))
    return eval(compile(tree, "<pr_agent.ci.parsers>", "eval"), dict(env or {}))  # type: ignore[no-any-return]


@cache
def _finder(words: tuple[str, ...], wide: tuple[str, ...]) -> Callable[[list[str]], list[int]]:
    """``lines -> indices of the lines holding one of words (or, in non-ASCII lines, of wide)``, compiled
    once per combination."""
    test = contains_any(words)
    if wide:
        not_ascii = ast.UnaryOp(ast.Not(), ast.Call(ast.Attribute(_name("s"), "isascii", ast.Load()), [], []))
        test = any_of([test, ast.BoolOp(ast.And(), [not_ascii, contains_any(wide)])])
    target = ast.Tuple([ast.Name("i", ast.Store()), ast.Name("s", ast.Store())], ast.Store())
    gen = ast.comprehension(target, ast.Call(_name("enumerate"), [_name("lines")], []), [test], 0)
    return compile_lambda(["lines"], ast.ListComp(_name("i"), [gen]))


def _has_gh_prefix(block: bytes, text: str) -> bool:
    """Whether a line of ``block`` (``text`` its latin-1 text) matches ``_GH_RE``: a tab followed by what
    may be a timestamp (``_GH_ZEROS_RE``, a superset), the tab before it on its line, and ``_GH_RE`` there
    (between the two tabs there is no tab and no line end: exactly ``_GH_RE``'s reading)."""
    zeros = block.translate(_ZEROS)
    rfind = zeros.rfind
    for m in _GH_ZEROS_RE.finditer(zeros):
        end = m.start()
        tab = rfind(b"\t", rfind(b"\n", 0, end) + 1, end)
        if tab >= 0 and _GH_RE.match(text, tab):
            return True
    return False


def scan_block(block: bytes) -> tuple[list[str], list[int]] | None:
    """(the lines of ``block`` as latin-1 text, indices of the lines that may pass ``prefiltered``), or None
    when the block must be cleaned line by line (it has a ``gh`` prefix). ``block`` is whole lines, each
    ending in ``\\n``; ``raw_line`` turns one of the lines back into text."""
    text = block.decode("latin-1")
    if "\t" in text and _has_gh_prefix(block, text):
        return None
    lines = text.split("\n")
    lines.pop()
    # A word can only be in the block if its rarest byte is (a one-byte search is much faster).
    words = tuple(w for w, gate in _WORD_GATES if not gate or gate in text)
    wide = tuple(w for w, gate in _WIDE_GATES if gate in text)
    found = _finder(words, wide)(lines)
    cap = len(lines) + 1
    marks = _offsets(_PFX_AFTER_Z_RE, text, cap)
    marks += [m.start() + 1 for m in _PFX_AFTER_NL_RE.finditer(text)]
    if _PFX_START_RE.match(text):
        marks.append(0)
    if "\r" in text:
        marks += _offsets(_CR_RE, text, cap)
    if "^" in text:
        marks += _offsets(_CARET_RE, text, cap)
    if "\x1b" in text:
        marks += _esc_marks(text)
    if marks:
        found = sorted(set(found).union(_line_numbers(text, marks)))
    return lines, found


def raw_line(s: str) -> str:
    """A line of ``scan_block`` as the text it encodes."""
    return s if s.isascii() else s.encode("latin-1").decode("utf-8", "replace")


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """The 0-based line of each offset."""
    offsets.sort()
    out: list[int] = []
    add, count = out.append, text.count
    line = last = 0
    for pos in offsets:
        line += count("\n", last, pos)
        last = pos
        add(line)
    return out


def blocks(items: Iterable[str | bytes]) -> Iterator[bytes | list[str]]:
    """Group ``parse_log`` input into raw blocks for ``scan_block`` (bytes: whole lines, each ending in ``\\n``)
    and lists of lines to clean one by one (lines that hold a ``\\n`` other than their last character).

    ``str`` items are lines; ``bytes`` items are pieces of the raw log (``offline.log_lines`` reads 1 MiB at
    a time) whose lines may span pieces.
    """
    it: Iterator[object] = iter(items)
    pending: list[bytes] = []  # raw bytes after the last "\n" seen
    while (item := next(it, _END)) is not _END:
        if isinstance(item, bytes):
            cut = item.rfind(b"\n") + 1
            if cut:
                yield b"".join(pending) + item[:cut] if pending else item[:cut]
                pending = []
            if cut < len(item):
                pending.append(item[cut:])
            continue
        if pending:  # a str line after raw bytes: the bytes end a line
            yield b"".join(pending) + b"\n"
            pending = []
        batch = [item, *islice(it, _STR_BATCH - 1)]
        if bytes in set(map(type, batch)):  # mixed (rare): the lines up to the first raw piece
            k = next(i for i, x in enumerate(batch) if isinstance(x, bytes))
            it = chain(batch[k:], it)
            batch = batch[:k]
        yield from _str_block(batch)  # type: ignore[arg-type]
    if pending:
        yield b"".join(pending) + b"\n"


def _str_block(lines: list[str]) -> Iterator[bytes | list[str]]:
    text = "".join(lines)
    if text.count("\n") == len(lines) and all(map(str.endswith, lines, repeat("\n"))):
        pass  # every line ends with its only "\n"
    elif "\n" not in text:
        text = "\n".join(lines) + "\n"
    else:
        yield lines
        return
    try:
        yield text.encode()
    except UnicodeEncodeError:  # lone surrogates: bytes would not decode back to the same text
        yield lines
