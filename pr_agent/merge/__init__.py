"""Merge readiness and merge conflicts: fetching GitHub's merge state, reading branch rules, the
readiness verdict, and the local ``git merge-tree`` analysis (import the submodules directly).

- :mod:`.commands`: shell-quoted next-step commands (gh, gh pr-agent, git).
- :mod:`.github`: the GraphQL/REST fetches, polling ``mergeable: UNKNOWN``.
- :mod:`.rules`: rulesets + classic protection → the requirements a merge must meet.
- :mod:`.readiness`: the verdict, blockers and next action (pure).
- :mod:`.conflicts`: conflicting files, types and previews from ``git merge-tree`` (pure parsing).
- :mod:`.local`: fetching the PR into private refs of a clone and running the analysis there.
"""
