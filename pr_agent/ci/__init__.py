"""CI logs: cleaning, cutting a job log to its failed step, and parsing test-runner output.

Submodules (import them directly; this package imports nothing so it stays cheap):

- :mod:`pr_agent.ci.logs`: ``clean_lines``, ``slice_failed_step``, ``StepTiming``, ``LogSlice``.
- :mod:`pr_agent.ci.parsers`: ``parse_log``, ``ParsedLog``, ``TestFailure``, ``NonTestFailure``.

Everything here is pure: no network, no subprocess, no files. Inputs are iterables of lines and are
consumed once, in bounded memory.
"""
