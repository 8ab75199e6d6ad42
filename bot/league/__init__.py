"""The league: managers, teams, rounds and moves over time (RULES.md §6, §7, §10)."""
