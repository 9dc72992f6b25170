"""Every GraphQL document gh-pr-agent sends, one file each (loaded with pr_agent.gh.load_query)."""
