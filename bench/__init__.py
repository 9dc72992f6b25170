"""gh-pr-agent benchmark suite (issue 7). Run ``python -m bench``; see bench/README.md."""
