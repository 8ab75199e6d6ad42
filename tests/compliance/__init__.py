"""Compliance tests: every rule and every Decision of RULES.md, through public entry points."""
