"""Players' calculators: ``lineup``, ``match`` and ``psz``."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # filled in by the calculators work
    pass
