"""End-to-end and fault tests of the real worker process (issue 7)."""
