"""Generated commands built from untrusted text, executed for real: get_failing_tests' reproduction commands
(test names from CI logs) and check_merge_readiness' next steps run in bash against recording stubs (`pytest`,
`go`, `npx`, `cargo`, `bundle`, `gh` first on PATH). Each program must get exactly the intended argv — the test
it names selects exactly the failing test — and no payload may run. Human output stays free of escapes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from tests.e2e.ci_worlds import job
from tests.e2e.ci_worlds import world as ci_world
from tests.e2e.conftest import Agent
from tests.e2e.merge_worlds import readiness_world
from tests.safety.hostile import (
    TEST_NAMES,
    UNSAFE_ON_TERMINAL,
    assert_nothing_ran,
    intended_argvs,
    named_recording_stubs,
    recorded,
    run_pasted,
    sandbox,
)
from tests.safety.worlds import FAST_ENV, pinned_gh

NAMES = [n for n in TEST_NAMES if "\n" not in n]


def _log(lines: list[str]) -> str:
    body = [*lines, "##[error]Process completed with exit code 1."]
    return "".join(f"2026-11-30T10:00:01.{i:07d}Z {line}\n" for i, line in enumerate(body))


def runner_logs() -> dict[str, list[str]]:
    """One job log per runner, each failing once per hostile test name, in the runner's own format."""
    go_names = [n.replace(" ", "_") for n in NAMES]  # go test turns spaces in subtest names into underscores
    return {
        "pytest": ["============================= test session starts ==============================",
                   f"collected {len(NAMES)} items", "",
                   "=========================== short test summary info ============================",
                   *[f"FAILED tests/test_h.py::test_x[{n}] - AssertionError: boom" for n in NAMES],
                   f"========================= {len(NAMES)} failed in 0.12s ========================="],
        "go": [*[line for n in go_names for line in (f"=== RUN   TestH/{n}", f"    --- FAIL: TestH/{n} (0.00s)",
                                                    "        h_test.go:12: boom")],
               "--- FAIL: TestH (0.00s)", "FAIL", "FAIL\tgithub.com/acme/calc\t0.01s"],
        "jest": ["FAIL src/h.test.ts", *[line for n in NAMES for line in (
            f"  ● Suite › {n}", "", "    expect(received).toBe(expected)", "",
            "      at Object.<anonymous> (src/h.test.ts:3:9)", "")],
            f"Tests:       {len(NAMES)} failed, {len(NAMES)} total"],
        "cargo": [f"running {len(NAMES)} tests", *[f"test tests::{n} ... FAILED" for n in NAMES], "", "failures:", "",
                  *[line for n in NAMES for line in (f"---- tests::{n} stdout ----",
                                                      f"thread 'tests::{n}' panicked at src/lib.rs:1:2:", "boom", "")],
                  "failures:", *[f"    tests::{n}" for n in NAMES], "",
                  f"test result: FAILED. 0 passed; {len(NAMES)} failed; 0 ignored"],
        "rspec": ["Failures:", "", *[line for i, n in enumerate(NAMES) for line in (
            f"  {i + 1}) Widget {n}", "     Failure/Error: expect(a).to eq(b)",
            f"     # ./spec/widget_spec.rb:{i + 3}:in `block'", "")],
            f"{len(NAMES)} examples, {len(NAMES)} failures", "", "Failed examples:", "",
            *[f"rspec ./spec/widget_spec.rb:{i + 3} # Widget {n}" for i, n in enumerate(NAMES)]],
        "mocha": ["  0 passing (3ms)", f"  {len(NAMES)} failing", "", *[line for i, n in enumerate(NAMES) for line in (
            f"  {i + 1}) Suite", f"       {n}:", "     AssertionError: boom",
            "      at Context.<anonymous> (test/h.spec.js:3:9)", "")]],
        "playwright": [f"Running {len(NAMES)} tests", "", *[line for i, n in enumerate(NAMES) for line in (
            f"  {i + 1}) [chromium] › tests/h.spec.ts:{i + 3}:5 › Suite › {n} ───", "", "    Error: boom", "")],
            f"  {len(NAMES)} failed",
            *[f"    [chromium] › tests/h.spec.ts:{i + 3}:5 › Suite › {n} ───" for i, n in enumerate(NAMES)]],
        "exunit": ["Running ExUnit with seed: 1, max_cases: 2", "", *[line for i, n in enumerate(NAMES) for line in (
            f"  {i + 1}) test {n} (Calc.HTest)", f"     test/h_test.exs:{i + 3}", "     Assertion with == failed",
            "     stacktrace:", f"       test/h_test.exs:{i + 4}: (test)", "")],
            "Finished in 0.1 seconds (0.00s async, 0.1s sync)", f"{len(NAMES)} tests, {len(NAMES)} failures"],
        "tap": ["TAP version 13", *[line for i, n in enumerate(NAMES) for line in (
            f"# Subtest: {n}", f"not ok {i + 1} - {n}", "  ---",
            f"  location: '/home/runner/work/calc/calc/test/h.test.mjs:{i + 3}:1'",
            "  failureType: 'testCodeFailure'", "  error: 'boom'", "  ...")],
            f"1..{len(NAMES)}", f"# tests {len(NAMES)}", "# pass 0", f"# fail {len(NAMES)}"],
        "dart": [*[line for i, n in enumerate(NAMES) for line in (
            f"00:01 +0 -{i + 1}: test/h_test.dart: Suite {n} [E]", "  Expected: <1>", "    Actual: <2>", "",
            f"  test/h_test.dart {i + 3}:5  main.<fn>", "")], f"00:02 +0 -{len(NAMES)}: Some tests failed."],
        "ava": [*[f"  ✘ [fail]: h › {n}" for n in NAMES], "  ─", "", *[line for i, n in enumerate(NAMES) for line in (
            f"  h › {n}", "", f"  test/h.test.js:{i + 3}", "", "  Difference (- actual, + expected):", "", "  - 1",
            "  + 2", "", f"  › test/h.test.js:{i + 3}:5", "", "")], "  ─", "", f"  {len(NAMES)} tests failed"],
        "bun": ["bun test v1.1.38 (bf2f153f)", "", "test/h.test.ts:", *[line for i, n in enumerate(NAMES) for line in (
            "error: expect(received).toBe(expected)", "",
            f"      at <anonymous> (/home/runner/work/calc/calc/test/h.test.ts:{i + 3}:9)",
            f"(fail) Suite > {n} [0.10ms]")], "", " 0 pass", f" {len(NAMES)} fail",
            f"Ran {len(NAMES)} tests across 1 file. [9.00ms]"],
        "deno": [f"running {len(NAMES)} tests from ./h_test.ts", *[f"{n} ... FAILED (1ms)" for n in NAMES], "",
                 " ERRORS ", "", *[line for i, n in enumerate(NAMES) for line in (
                     f"{n} => ./h_test.ts:{i + 3}:6", "error: Error: boom",
                     f"    at file:///home/runner/work/calc/calc/h_test.ts:{i + 4}:9", "")],
                 " FAILURES ", "", *[f"{n} => ./h_test.ts:{i + 3}:6" for i, n in enumerate(NAMES)], "",
                 f"FAILED | 0 passed | {len(NAMES)} failed (3ms)", "", "error: Test failed"],
        "minitest": ["# Running:", "", "F" * len(NAMES), "", *[line for i, n in enumerate(NAMES) for line in (
            f"  {i + 1}) Failure:", f"HTest#test_{n} [test/h_test.rb:{i + 3}]:", "Expected: 1", "  Actual: 2", "")],
            f"{len(NAMES)} runs, {len(NAMES)} assertions, {len(NAMES)} failures, 0 errors, 0 skips"],
        "ctest": ["Test project /home/runner/work/calc/calc/build", *[line for i, n in enumerate(NAMES) for line in (
            f"    Start {i + 1}: {n}", f"{i + 1}/{len(NAMES)} Test #{i + 1}: {n} ........***Failed    0.01 sec")],
            "", f"0% tests passed, {len(NAMES)} tests failed out of {len(NAMES)}", "", "The following tests FAILED:",
            *[f"\t{i + 1:3d} - {n} (Failed)" for i, n in enumerate(NAMES)], "Errors while running CTest"],
        "sbt": ["[info] HSpec:", *[line for i, n in enumerate(NAMES) for line in (
            f"[info] - {n} *** FAILED *** (1 millisecond)", f"[info]   boom (HSpec.scala:{i + 3})")],
            f"[info] Tests: succeeded 0, failed {len(NAMES)}, canceled 0, ignored 0, pending 0",
            "[error] Failed tests:", "[error] \tcalc.HSpec"],
    }


def hostile_ci_world() -> dict[str, Any]:
    logs = runner_logs()
    checks = [job(runner, 1100 + i) for i, runner in enumerate(logs)]
    return ci_world(checks, {"runs": [{"check": r, "log_text": _log(lines)} for r, lines in logs.items()]})


def _regex_selects(pattern: str, name: str) -> bool:
    return re.fullmatch(pattern, name) is not None


def assert_selects_exactly(f: dict[str, Any], argvs: list[list[str]]) -> None:
    """The command reruns exactly failure ``f``: the runner gets the test's own id (or a regex selecting it)."""
    assert len(argvs) == 1, argvs
    argv, name, runner = argvs[0], f["test_name"], f["runner"]
    if runner == "pytest":
        assert argv == ["pytest", name]
    elif runner == "go":
        prog, sub, package, flag, pattern = argv
        assert (prog, sub, package, flag) == ("go", "test", f["suite"], "-run")
        parts = pattern.split("$/^")
        assert len(parts) == len(name.split("/")) and all(
            _regex_selects(("^" if i else "") + p + ("$" if i < len(parts) - 1 else ""), n)
            for i, (p, n) in enumerate(zip(parts, name.split("/"), strict=True))), (pattern, name)
    elif runner == "jest":
        prog, tool, target, flag, pattern = argv
        assert (prog, tool, target, flag) == ("npx", "jest", f["suite"] or f["file_path"], "-t")
        assert _regex_selects(pattern, " ".join(p.strip() for p in name.split(" › "))), (pattern, name)
    elif runner == "cargo":
        assert argv[:2] == ["cargo", "test"] and argv[-3:] == ["--", "--exact", name], argv
    elif runner == "rspec":
        assert argv == ["bundle", "exec", "rspec", f["file_path"], f"--example={name}"]
    elif runner == "mocha":
        prog, tool, target, grep = argv
        assert (prog, tool, target) == ("npx", "mocha", f["file_path"]) and grep.startswith("--grep=")
        assert _regex_selects(grep[len("--grep="):], name), (grep, name)
    elif runner == "playwright":  # the id's own file (a regex Playwright matches on the path) and line
        prog, tool, sub, where, project = argv
        where_path, _, where_line = where.rpartition(":")
        path, line, _col = name.split(" › ")[1].rsplit(":", 2)
        assert (prog, tool, sub, project) == ("npx", "playwright", "test", "--project=chromium")
        assert re.fullmatch(where_path, path) and where_line == line, (where, name)
    elif runner == "exunit":  # ExUnit tags each test with its own name
        assert argv == ["mix", "test", f["file_path"], f"--only=test:{name}"]
    elif runner == "tap":  # node --test's name pattern, matched on the name
        prog, flag, pattern, path = argv
        assert (prog, flag, path) == ("node", "--test", f["file_path"]) and pattern.startswith("--test-name-pattern=")
        assert re.search(pattern[len("--test-name-pattern="):], name), (pattern, name)
    elif runner == "dart":  # dart test's --plain-name is the test's full name, plainly
        assert argv == ["dart", "test", f["suite"], f"--plain-name={name}"]
    elif runner == "ava":  # AVA's --match is the whole title, without the "file ›" prefix it prints
        assert argv == ["npx", "ava", f["file_path"], "--match=" + name.rsplit(" › ", 1)[1]], (argv, name)
    elif runner == "bun":  # bun's -t regex over the titles joined by spaces
        prog, sub, target, flag, pattern = argv
        assert (prog, sub, target, flag) == ("bun", "test", f["suite"], "-t")
        assert _regex_selects(pattern, " ".join(p.strip() for p in name.split(" > "))), (pattern, name)
    elif runner == "deno":  # deno's /regex/ filter over the top-level test's name
        prog, sub, target, flag = argv
        assert (prog, sub, target) == ("deno", "test", f["file_path"]) and flag.startswith("--filter=/")
        assert _regex_selects(flag[len("--filter=/"):-1], name.split(" ... ", 1)[0]), (flag, name)
    elif runner == "minitest":  # ruby's --name=/^method$/ selects the method
        prog, inc, path, flag = argv
        assert (prog, inc, path) == ("ruby", "-Itest", f["file_path"]) and flag.startswith("--name=/")
        assert re.fullmatch(flag[len("--name=/"):-1], name.split("#", 1)[1]), (flag, name)
    elif runner == "ctest":  # -R: a regex over the test names, anchored
        prog, flag, r, pattern = argv
        assert (prog, flag, r) == ("ctest", "--output-on-failure", "-R") and _regex_selects(pattern, name), argv
    elif runner == "sbt":  # testOnly the suite; -z selects by the test's text, in sbt's own quotes
        if '"' in name or "\\" in name:  # no -z sbt would read back exactly: the suite
            assert argv == ["sbt", f"testOnly {f['suite']}"], argv
        else:
            assert argv == ["sbt", f'testOnly {f["suite"]} -- -z "{name}"'], argv
    else:
        raise AssertionError(f"no expectation for runner {runner}")


def all_pages(a: Agent, *args: str) -> list[dict[str, Any]]:
    pages, cursor = [], None
    while True:
        proc = a.cli("checks", "acme/widgets#7", *args, *(["--cursor", cursor] if cursor else []), "--json",
                     env=a.env(**FAST_ENV))
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        pages.append(orjson.loads(proc.stdout))
        cursor = pages[-1].get("nextCursor")
        if not cursor:
            return pages


def test_reproduction_commands_run_exactly_the_failing_test(make_hub, tmp_path: Path) -> None:
    a = Agent(make_hub(hostile_ci_world()), pinned_gh(), tmp_path / "home")
    pages = all_pages(a)
    failures = [f for p in pages for f in p["failures"]]
    by_runner: dict[str, int] = {}
    for f in failures:
        by_runner[f["runner"]] = by_runner.get(f["runner"], 0) + 1
    assert all(by_runner.get(r, 0) >= len(NAMES) - 2 for r in runner_logs()), by_runner  # the parsers saw them
    box, record = sandbox(tmp_path), tmp_path / "argv.jsonl"
    stubs = named_recording_stubs(tmp_path / "stubs", record)
    ran = 0
    for f in failures:
        command = f.get("reproduce_command")
        if not command:
            continue
        record.unlink(missing_ok=True)
        proc = run_pasted(command, stubs, box)
        assert proc.returncode == 0, (command, proc.stderr)
        assert recorded(record) == intended_argvs(command), command  # bash and shlex agree: nothing expanded
        assert_selects_exactly(f, recorded(record))
        ran += 1
    assert ran >= len(failures) - 8, (ran, len(failures))
    for page in pages:  # the page's command list is exactly its failures' commands, and the log commands run too
        assert page["instructions"]["commands"] == list(dict.fromkeys(
            f["reproduce_command"] for f in page["failures"] if f.get("reproduce_command")))[:20]
        for fc in page["failed_checks"]:
            record.unlink(missing_ok=True)
            assert run_pasted(fc["full_log_command"], stubs, box).returncode == 0
            assert recorded(record) == [["gh", "pr-agent", "checks", "acme/widgets#7", "--log", str(fc["job_id"])]]
    assert_nothing_ran(box, tmp_path)

    human = a.cli("checks", "acme/widgets#7", "--detail", "full", env=a.env(**FAST_ENV))
    assert human.returncode == 1 and "rerun:" in human.stdout
    assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr), "raw control/bidi characters on the terminal"


def hostile_readiness_world() -> dict[str, Any]:
    w = readiness_world()
    pr7 = w["repositories"][0]["pull_requests"][6]
    pr7["merge_state"]["review_requests"] = ["it's", "$(touch pwned)", "-rf", "acme/core"]
    return w


def test_readiness_next_steps_get_exactly_the_intended_argv(make_hub, tmp_path: Path) -> None:
    a = Agent(make_hub(hostile_readiness_world()), pinned_gh(), tmp_path / "home")
    box, record = sandbox(tmp_path), tmp_path / "argv.jsonl"
    stubs = named_recording_stubs(tmp_path / "stubs", record)
    seen: set[str] = set()
    outs: dict[int, dict[str, Any]] = {}
    for number in range(1, 16):
        proc = a.cli("ready", f"acme/widgets#{number}", "--json", env=a.env(**FAST_ENV))
        out = outs[number] = orjson.loads(proc.stdout)
        commands = [b["command"] for b in out["blocking_issues"]] + [w["command"] for w in out["warnings"]]
        for command in dict.fromkeys([*commands, out["next_action"]["command"]]):
            record.unlink(missing_ok=True)
            assert run_pasted(command, stubs, box).returncode == 0, command
            argv = recorded(record)
            assert argv == intended_argvs(command) and len(argv) == 1, command
            prog, *args = argv[0]
            assert prog == "gh", command
            if args[0] == "pr-agent":
                assert args[2] == f"acme/widgets#{number}", command
            elif args[0] in ("pr", "run"):
                assert args[args.index("--repo") + 1] == "acme/widgets", command
            else:
                assert args[:3] == ["api", "--method", "PUT"], command
            seen.add(" ".join(args[:2]))
    for number in (1, 7, 13):
        human = a.cli("ready", f"acme/widgets#{number}", env=a.env(**FAST_ENV))
        assert not UNSAFE_ON_TERMINAL.search(human.stdout + human.stderr)
    record.unlink(missing_ok=True)
    run_pasted(outs[7]["blocking_issues"][0]["command"], stubs, box)
    assert recorded(record) == [["gh", "pr", "edit", "7", "--repo", "acme/widgets", "--add-reviewer", "it's",
                                 "--add-reviewer", "$(touch pwned)", "--add-reviewer", "-rf"]]
    assert {"pr merge", "pr ready", "pr edit", "pr-agent checks", "pr-agent comments", "api --method"} <= seen
    assert_nothing_ran(box, tmp_path)
