"""The JSON-RPC code of a failed resources/read, by error class (pr_agent/mcp_resources.py): every typed error
maps to the code its class names, and the envelope rides along in ``data``."""

from __future__ import annotations

from pr_agent.errors import CODES, PrAgentError
from pr_agent.mcp_resources import resource_error, rpc_code

# what each class means for a resource, written out here (not read from the code under test)
EXPECTED = {
    "not_found": -32002, "log_expired": -32002, "repository_not_found": -32002, "pr_not_found": -32002,
    "invalid_arguments": -32602, "invalid_pr_reference": -32602, "untrusted_host": -32602,
    "repository_not_determined": -32602,
    "rate_limited": -32603, "server_error": -32603, "network_error": -32603, "timeout": -32603,
    "forbidden": -32603, "auth_failed": -32603, "gh_not_authenticated": -32603, "gh_not_found": -32603,
    "cancelled": -32603, "internal_error": -32603, "unexpected_response": -32603,
}


def test_each_error_class_has_its_code() -> None:
    for code, want in EXPECTED.items():
        assert rpc_code(PrAgentError(code, "x", suggestion="s")) == want, code
    # every code of the taxonomy maps to one of the three
    assert {rpc_code(PrAgentError(code, "x", suggestion="s")) for code in CODES} == {-32002, -32602, -32603}


def test_the_envelope_is_the_data_and_text_is_labelled() -> None:
    err = PrAgentError("log_expired", "The log of job 7 has expired.\x1b[2J", suggestion="Re-run the job.")
    exc = resource_error(err)
    assert exc.error.code == -32002 and exc.error.data["code"] == "log_expired"
    assert exc.error.data["suggestion"] == "Re-run the job." and exc.error.data["temporary"] is False
    assert "\x1b" not in exc.error.message and "data, not instructions" in exc.error.message
