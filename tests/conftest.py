"""Shared pytest fixtures. Keep this file small: the fixtures live in
their own modules and are registered here with one import each.

Hypothesis: under CI (``CI`` set, as ``.ci/run`` is run) the examples are
derandomized and no per-example deadline applies, so a loaded machine or an
unlucky seed cannot fail a landing; locally every run explores new examples.
"""

from __future__ import annotations

import os

from hypothesis import settings

from tests.servers import dovecot, smtp_server  # noqa: F401
from tests.support.oauth import issuer  # noqa: F401

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
