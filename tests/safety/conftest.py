from tests.e2e.conftest import agent  # noqa: F401  (the end-to-end harness, shared)
