"""The quick test subset (`scripts/test --quick`): all unit tests plus the few end-to-end items that, by coverage,
execute nearly everything the full suite executes. See tests/quick/README.md and docs/testing.md."""
