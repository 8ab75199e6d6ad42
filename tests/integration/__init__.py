"""Integration tests: the whole application over real files and real servers."""
