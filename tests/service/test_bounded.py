"""run_bounded: an isolated piece of work is stopped at its budget, whatever it does."""

from __future__ import annotations

import time

import pytest

from bot.service.bounded import HandlingFailed, HandlingTimeout, run_bounded


def spin(n: int) -> int:
    while True:  # CPU-bound: no thread timeout could stop this
        n += 1


def double(n: int) -> int:
    return 2 * n


def boom(text: str) -> None:
    raise ValueError(text)


def test_an_endless_cpu_bound_loop_is_stopped_at_the_budget():
    started = time.monotonic()
    with pytest.raises(HandlingTimeout, match=r"longer than 0\.5 s"):
        run_bounded(spin, 0, seconds=0.5, isolate=True)
    assert time.monotonic() - started < 3


def test_results_and_errors_come_back():
    assert run_bounded(double, 21, seconds=10, isolate=True) == 42
    assert run_bounded(double, 21, seconds=10, isolate=False) == 42
    with pytest.raises(HandlingFailed, match="ValueError: kaputt"):
        run_bounded(boom, "kaputt", seconds=10, isolate=True)
    with pytest.raises(ValueError, match="kaputt"):
        run_bounded(boom, "kaputt", seconds=10, isolate=False)
