"""The benchmarks: each module prints figures and ratios, none is a test.

Run one from the checkout as ``.venv/bin/python -m bench.NAME`` (``bot``
and the test helpers, ``tests.support`` and ``tests.servers``, import the
normal way). ``bench.revision`` puts another revision's code beside this
checkout for the benches that compare with it.
"""
