"""The heavyweight variants of unit tests (large inputs, many repetitions): in the full suite, not in the quick
subset (tests/quick/README.md). Each is the same property its unit test checks on a smaller input."""
