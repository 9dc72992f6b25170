"""gh-pr-agent: precise answers about a GitHub pull request, for agents and people."""

__version__ = "0.1.0"
