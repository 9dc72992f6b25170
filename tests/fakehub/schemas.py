"""The pinned GitHub schemas under fixtures/github/, loaded once per process.

`scripts/refresh-github-schemas` writes them; fixtures/github/VERSIONS.md says from which packages.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
from pathlib import Path
from typing import Any

from graphql import GraphQLSchema, build_client_schema
from jsonschema import Draft7Validator

REPO_ROOT = Path(__file__).resolve().parents[2]
GITHUB_FIXTURES = REPO_ROOT / "fixtures" / "github"
GRAPHQL_SCHEMA_FILE = GITHUB_FIXTURES / "graphql-schema.json.gz"
OPENAPI_SUBSET_FILE = GITHUB_FIXTURES / "openapi-subset.json"

_lock = threading.Lock()


@functools.cache
def _graphql_schema() -> GraphQLSchema:
    data = json.loads(gzip.decompress(GRAPHQL_SCHEMA_FILE.read_bytes()))
    return build_client_schema(data, assume_valid=True)


def graphql_schema() -> GraphQLSchema:
    """GitHub's GraphQL schema (`@octokit/graphql-schema`), built with graphql-core; cached."""
    with _lock:  # several hub threads may ask at once on first use
        return _graphql_schema()


@functools.cache
def openapi_subset() -> dict[str, Any]:
    """The sliced OpenAPI description: `operations` and `components.schemas`."""
    return json.loads(OPENAPI_SUBSET_FILE.read_text())


def operation_keys() -> set[str]:
    """`"METHOD /path/{template}"` of every REST operation in the subset."""
    return set(openapi_subset()["operations"])


@functools.cache
def _validator(operation: str) -> Draft7Validator:
    subset = openapi_subset()
    try:
        op = subset["operations"][operation]
    except KeyError:
        raise KeyError(
            f"operation {operation!r} is not in {OPENAPI_SUBSET_FILE}; add it to OPERATIONS in "
            "scripts/refresh-github-schemas and re-run the script") from None
    return Draft7Validator({"allOf": [op["schema"]], "components": subset["components"]})


def validate_response(operation: str, body: Any) -> list[str]:
    """Messages for every way `body` breaks the success-response schema of `operation` (empty = valid)."""
    with _lock:
        validator = _validator(operation)
    errors = []
    for err in sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        errors.append(f"{where}: {err.message}"[:500])
    return errors


def success_status(operation: str) -> int:
    return int(openapi_subset()["operations"][operation]["status"])
