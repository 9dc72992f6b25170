"""Generate a realistic raw GitHub Actions job log of a given size (never committed; cached in bench/.cache).

The shape follows real job logs (`GET /repos/{o}/{r}/actions/jobs/{id}/logs`): a UTF-8 BOM, a
``2026-11-30T10:00:00.1234567Z `` timestamp on every line, the "Set up job" groups, ``##[group]Run …``
step headers with the ANSI-coloured command echo, ``##[endgroup]``, and a monorepo test step that runs
several runners one after another (pytest, go test, jest, cargo test, Maven Surefire) with install and
compile noise in between. A few failures sit deep inside (at about 31 %, 58 % and 87 % of the file), and
the job ends with ``##[error]Process completed with exit code 1.``.

``python -m bench.gen_log OUT --mb 200`` writes OUT and OUT.expected.json: the injected failures (runner,
test name, line number) so a parser's answer can be checked, not only timed.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GEN_VERSION = 1
ESC = "\x1b"
FAIL_AT = (0.31, 0.58, 0.87)

SETUP = """Current runner version: '2.321.0'
##[group]Operating System
Ubuntu
24.04.1
LTS
##[endgroup]
##[group]Runner Image
Image: ubuntu-24.04
Version: 20241201.1.0
##[endgroup]
##[group]GITHUB_TOKEN Permissions
Contents: read
Metadata: read
##[endgroup]
Secret source: Actions
Prepare workflow directory
Prepare all required actions
Getting action download info
Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)
Complete job name: test (ubuntu-24.04, 3.12)
##[group]Run actions/checkout@v4
with:
  repository: acme/monorepo
  token: ***
  ssh-strict: true
  fetch-depth: 1
##[endgroup]
Syncing repository: acme/monorepo
[command]/usr/bin/git version
git version 2.47.1
[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin
Determining the checkout info
##[group]Run make test-all
{esc}[36;1mmake test-all{esc}[0m
shell: /usr/bin/bash -e {0}
env:
  PYTHONUNBUFFERED: 1
  CI: true
##[endgroup]"""

FAILURES: dict[str, tuple[str, str, str]] = {
    # runner: (test name, block, file)
    "pytest": ("tests/test_ledger.py::test_rounding_half_even", "=" * 35 + " FAILURES " + "=" * 35 + """
{esc}[31m{esc}[1m_________________________ test_rounding_half_even __________________________{esc}[0m

    def test_rounding_half_even():
        amount = Decimal("2.675")
>       assert round_money(amount) == Decimal("2.68")
{esc}[1m{esc}[31mE       AssertionError: assert Decimal('2.67') == Decimal('2.68'){esc}[0m
{esc}[1m{esc}[31mE        +  where Decimal('2.67') = round_money(Decimal('2.675')){esc}[0m

{esc}[1m{esc}[31mtests/test_ledger.py{esc}[0m:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_ledger.py::test_rounding_half_even - AssertionError: assert Decimal('2.67') == Decimal('2.68')
{esc}[31m========================= {esc}[31m{esc}[1m1 failed{esc}[0m, {esc}[32m412 passed{esc}[0m"""
               """{esc}[31m in 38.21s{esc}[0m{esc}[31m =========================={esc}[0m""",
               "tests/test_ledger.py"),
    "go": ("TestCompact", """=== RUN   TestCompact
    compact_test.go:58: segments after compaction = 3, want 1
--- FAIL: TestCompact (0.02s)
FAIL
FAIL	github.com/acme/store	1.284s""", "compact_test.go"),
    "jest": ("Checkout › applies the coupon once", """ FAIL  src/checkout/__tests__/coupon.test.ts
  ● Checkout › applies the coupon once

    expect(received).toBe(expected) // Object.is equality

    Expected: 90
    Received: 81

      27 |     cart.apply(coupon);
      28 |     cart.apply(coupon);
    > 29 |     expect(cart.total()).toBe(90);
         |                          ^
      30 |   });

      at Object.<anonymous> (src/checkout/__tests__/coupon.test.ts:29:26)

Tests:       1 failed, 318 passed, 319 total""", "src/checkout/__tests__/coupon.test.ts"),
}


def _passing(rng: random.Random, n: int) -> list[str]:
    """One chunk of ordinary output from a random runner (or install/compile noise)."""
    kind = rng.randrange(7)
    if kind == 0:
        mod = f"tests/unit/test_mod{n % 97:02d}.py"
        return [f"{mod}::test_case_{n}_{i} {ESC}[32mPASSED{ESC}[0m{' ' * 20}[{(n + i) % 100:3d}%]"
                for i in range(rng.randint(4, 12))]
    if kind == 1:
        out = []
        for i in range(rng.randint(3, 8)):
            out += [f"=== RUN   TestHandler{n}_{i}", f"--- PASS: TestHandler{n}_{i} (0.0{i}s)"]
        return [*out, f"ok  \tgithub.com/acme/store/pkg{n % 41}\t0.{n % 900:03d}s"]
    if kind == 2:
        return [f" PASS  src/components/__tests__/Widget{n % 300}.test.tsx ({n % 7}.{n % 10} s)",
                *(f"  {ESC}[32m✓{ESC}[39m renders variant {i} ({i + 2} ms)" for i in range(rng.randint(3, 9)))]
    if kind == 3:
        return [*(f"test parser::tests::case_{n}_{i} ... {ESC}[32mok{ESC}[0m" for i in range(rng.randint(3, 10))),
                f"test result: {ESC}[32mok{ESC}[0m. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"]
    if kind == 4:
        return [f"[INFO] Running com.acme.billing.InvoiceTest{n % 200}",
                f"[INFO] Tests run: {n % 17 + 1}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.{n % 999:03d} s"
                f" - in com.acme.billing.InvoiceTest{n % 200}"]
    if kind == 5:
        fetches = (f"npm http fetch GET 200 https://registry.npmjs.org/pkg-{n}-{i} {i * 7}ms (cache hit)"
                   for i in range(rng.randint(3, 10)))
        return ["##[group]npm ci", *fetches, "##[endgroup]"]
    return [f"{ESC}[1m{ESC}[32m   Compiling{ESC}[0m crate-{n % 300} v0.{n % 9}.{n % 13} "
            f"(/home/runner/work/acme/crate-{n})",
            f"warning: unused variable: `tmp{n}`", f"  --> src/lib{n % 30}.rs:{n % 400}:9"]


def lines(size_bytes: int, seed: int = 7) -> Iterator[tuple[str, str | None]]:
    """(line text without timestamp, runner of an injected failure starting here or None)."""
    rng = random.Random(seed)
    written = 0
    for text in SETUP.replace("{esc}", ESC).splitlines():
        written += len(text) + 30
        yield text, None
    pending = list(zip(FAIL_AT, FAILURES, strict=True))
    n = 0
    while written < size_bytes:
        if pending and written >= pending[0][0] * size_bytes:
            _, runner = pending.pop(0)
            block = FAILURES[runner][1].replace("{esc}", ESC).splitlines()
            for i, text in enumerate(block):
                written += len(text.encode()) + 30
                yield text, runner if i == 0 else None
            continue
        for text in _passing(rng, n):
            written += len(text.encode()) + 30
            yield text, None
        n += 1
    yield "make: *** [Makefile:41: test-all] Error 1", None
    yield "##[error]Process completed with exit code 1.", None
    yield "Post job cleanup.", None
    yield "Cleaning up orphan processes", None


def generate(out: Path, mb: float, seed: int = 7) -> dict[str, Any]:
    """Write the log and its .expected.json; returns the expectation."""
    size = int(mb * 1024 * 1024)
    out.parent.mkdir(parents=True, exist_ok=True)
    failures: list[dict[str, Any]] = []
    sec, frac, lineno = 0, 1234567, 0
    stamp = _stamp(sec)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("\ufeff")
        chunk: list[str] = []
        for text, failing in lines(size, seed):
            lineno += 1
            frac += 4511
            if frac >= 10_000_000:
                frac -= 10_000_000
                sec += 1
                stamp = _stamp(sec)
            chunk.append(f"{stamp}.{frac:07d}Z {text}\n")
            if failing:
                test, _, path = FAILURES[failing]
                failures.append({"runner": failing, "test_name": test, "file_path": path, "line": lineno})
            if len(chunk) >= 4096:
                fh.write("".join(chunk))
                chunk.clear()
        fh.write("".join(chunk))
    tmp.replace(out)
    expected = {"generator_version": GEN_VERSION, "seed": seed, "bytes": out.stat().st_size, "lines": lineno,
                "failures": failures, "exit_code": 1}
    out.with_name(out.name + ".expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    return expected


def _stamp(sec: int) -> str:
    h, rest = divmod(sec, 3600)  # from 10:00:00; a 200 MB log spans well under 14 hours
    return f"2026-11-30T{10 + h:02d}:{rest // 60:02d}:{rest % 60:02d}"


def cached(cache: Path, mb: float, seed: int = 7) -> tuple[Path, dict[str, Any]]:
    """The generated log for (mb, seed, generator version), generating it only when missing."""
    path = cache / f"actions-{mb:g}MB-seed{seed}-v{GEN_VERSION}.log"
    meta = path.with_name(path.name + ".expected.json")
    if path.exists() and meta.exists():
        return path, json.loads(meta.read_text())
    return path, generate(path, mb, seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    exp = generate(args.out, args.mb, args.seed)
    print(f"{args.out}: {exp['bytes'] / 1e6:.1f} MB, {exp['lines']} lines, failures at lines "
          + ", ".join(str(f["line"]) for f in exp["failures"]))


if __name__ == "__main__":
    main()
