"""The full variant of tests/unit/ci/test_parser_throughput.py::test_adversarial_lines_parse_in_linear_time:
each adversarial line parsed after every eighth context (the unit test parses it after one), against a 2 MB
ordinary log."""

from __future__ import annotations

from tests.unit.ci.test_parser_throughput import assert_adversarial_lines_are_linear


def test_adversarial_lines_parse_in_linear_time_after_many_contexts() -> None:
    assert_adversarial_lines_are_linear(stride=8, ordinary_bytes=2_000_000)
