"""The per-tool error catalogue (tool _meta, capability resource) agrees with the error table and the registry."""

from __future__ import annotations

from pr_agent.error_catalogue import BY_TOOL, COMMON, MEANING, catalogue, codes, tool_meta
from pr_agent.errors import CODES
from pr_agent.registry import all_tools


def test_every_tool_has_a_catalogue_of_real_codes() -> None:
    assert set(BY_TOOL) == set(all_tools())
    for tool in all_tools():
        assert set(codes(tool)) <= set(CODES) and len(codes(tool)) == len(set(codes(tool)))
        meta = tool_meta(tool)
        assert [e["code"] for e in next(iter(meta.values()))] == list(BY_TOOL[tool])
        assert all(e["temporary"] is CODES[e["code"]][1] for e in next(iter(meta.values())))
    assert set(MEANING) <= set(CODES)


def test_every_code_is_returned_by_some_tool() -> None:
    used = {c for t in BY_TOOL for c in codes(t)}
    # preferences_unwritable and git-side codes of the config command belong to the CLI only
    assert set(CODES) - used <= {"preferences_unwritable"}, set(CODES) - used
    cat = catalogue(sorted(BY_TOOL))
    assert set(cat["codes"]) == used and cat["common_to_every_tool"] == list(COMMON)
