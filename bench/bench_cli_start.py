"""Benchmark: how long the ``turnited`` command takes to start, beyond a bare
interpreter (``python -c pass``), for ``--help``, the calculator ``lineup``
(in a folder without a configuration, as a player runs it, and in a game's
folder, where it reads ``game.language``) and ``status`` of a running game.

Each command is run ``--runs`` times as ``python -m bot ...`` in a fresh
process; the figure is the smallest CPU time (user + system) of the child
minus the smallest of ``python -c pass`` (CPU time is disturbed less by the
other processes on a busy machine than the wall clock, which is printed
beside it as the median). ``--before REF`` measures the same commands on
another revision of the code (exported with ``git archive`` into a temporary
folder and put first on ``PYTHONPATH``) and prints the ratios; ``--imports``
lists, per command, the modules that cost most (``python -X importtime``).
``--instructions`` also counts the instructions each command executes under
``valgrind --tool=callgrind`` (one run each, ``PYTHONHASHSEED=0``): a figure
the machine's load does not disturb, at about 40 times the run time.

A compiled message catalog is cached in the user's cache directory
(``bot.render.i18n``); each command is run once before the measurement, so
the figures are those of every call after the first.

Run: .venv/bin/python -m bench.bench_cli_start [--runs 15] [--before main] [--imports]
     [--instructions]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.revision import export

GOAL = 0.15  # seconds beyond a bare interpreter (issue 19)


def commands(game: Path, empty: Path) -> dict[str, tuple[list[str], Path]]:
    """name -> (arguments after ``python``, working directory)."""
    config = str(game / "config.yaml")
    return {
        "bare interpreter": (["-c", "pass"], empty),
        "--help": (["-m", "bot", "--help"], empty),
        "lineup (no config)": (["-m", "bot", "lineup", "10-10-20-25-25", "--wp", "90"], empty),
        "lineup (in a game)": (["-m", "bot", "lineup", "10-10-20-25-25", "--wp", "90"], game),
        "status": (["-m", "bot", "--config", config, "status"], empty),
    }


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds of the child, wall seconds) of one run; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def measure(cmds: dict[str, tuple[list[str], Path]], env: dict[str, str], runs: int
            ) -> dict[str, tuple[float, float]]:
    """name -> (least CPU seconds, median wall seconds), interleaving the
    commands so that a burst of load hits them alike."""
    cpu: dict[str, list[float]] = {name: [] for name in cmds}
    wall: dict[str, list[float]] = {name: [] for name in cmds}
    for argv, cwd in cmds.values():  # once before: the catalog cache is filled
        run_once(argv, cwd, env)
    for _ in range(runs):
        for name, (argv, cwd) in cmds.items():
            c, w = run_once(argv, cwd, env)
            cpu[name].append(c)
            wall[name].append(w)
    return {name: (min(cpu[name]), statistics.median(wall[name])) for name in cmds}


def instructions(argv: list[str], cwd: Path, env: dict[str, str]) -> int | None:
    """Instructions executed by one run under callgrind (None without valgrind)."""
    if shutil.which("valgrind") is None:
        return None
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, *argv], cwd=cwd, env={**env, "PYTHONHASHSEED": "0"},
                          capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def top_imports(argv: list[str], cwd: Path, env: dict[str, str], count: int = 8
                ) -> list[tuple[int, str]]:
    """The ``count`` costliest imports (cumulative microseconds) of one run."""
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True)
    found = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
        if match and len(match.group(2)) <= 2:  # the top-level imports and their children
            found.append((int(match.group(1)), match.group(3)))
    return sorted(found, reverse=True)[:count]


def make_game(folder: Path, env: dict[str, str]) -> Path:
    """A game with round 1 open: ``init``, then a deadline in the future."""
    game = folder / "game"
    for argv in (["init", str(game)],
                 ["--config", str(game / "config.yaml"), "deadline", "set", "2099-12-06 20:00"]):
        done = subprocess.run([sys.executable, "-m", "bot", *argv], env=env, cwd=folder,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"setting up the game failed: {done.stderr}")
    return game


def environment(code: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNITED")}
    env.pop("PYTHONPATH", None)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="REF", help="a git revision to compare with")
    parser.add_argument("--imports", action="store_true", help="list the costliest imports")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind (load-independent)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnited-bench-start-") as tmp:
        folder = Path(tmp)
        (folder / "empty").mkdir()
        trees: dict[str, Path | None] = {"now": None}
        if args.before:
            trees = {args.before: export(args.before, Path(tempfile.mkdtemp(dir=folder))),
                     "now": None}
        figures: dict[str, dict[str, tuple[float, float]]] = {}
        counted: dict[str, dict[str, int | None]] = {}
        for label, code in trees.items():
            env = environment(code)
            game_dir = folder / f"game-{len(figures)}"
            game_dir.mkdir()
            cmds = commands(make_game(game_dir, env), folder / "empty")
            figures[label] = measure(cmds, env, args.runs)
            if args.instructions:
                counted[label] = {name: instructions(argv, cwd, env)
                                  for name, (argv, cwd) in cmds.items()}
            if args.imports:
                print(f"\ncostliest imports ({label}), cumulative ms:")
                for name, (argv, cwd) in cmds.items():
                    if name == "bare interpreter":
                        continue
                    shown = ", ".join(f"{m} {us / 1000:.0f}"
                                      for us, m in top_imports(argv, cwd, env))
                    print(f"  {name}: {shown}")
            shutil.rmtree(game_dir)
    print(f"\nCPU time beyond a bare interpreter, least of {args.runs} runs "
          f"(median wall time of the whole process in brackets); goal <= {GOAL:.2f} s")
    labels = list(figures)
    bare = {label: figures[label]["bare interpreter"][0] for label in labels}
    print(f"  {'command':<22}" + "".join(f"{label:>22}" for label in labels)
          + ("   ratio" if len(labels) == 2 else ""))
    for name in figures["now"]:
        if name == "bare interpreter":
            continue
        cells = []
        for label in labels:
            cpu, wall = figures[label][name]
            cells.append(f"{cpu - bare[label]:8.3f} s ({wall:5.2f} s)")
        line = f"  {name:<22}" + "".join(f"{c:>22}" for c in cells)
        if len(labels) == 2:
            before = figures[labels[0]][name][0] - bare[labels[0]]
            after = figures["now"][name][0] - bare["now"]
            line += f"   {before / after:5.1f}x" if after > 0 else "      -"
        print(line)
    print(f"  {'(bare interpreter)':<22}"
          + "".join(f"{figures[label]['bare interpreter'][0]:8.3f} s "
                    f"({figures[label]['bare interpreter'][1]:5.2f} s)" .rjust(22)
                    for label in labels))
    if counted:
        print("\nInstructions beyond a bare interpreter (callgrind, millions)")
        bare_i = {label: counted[label]["bare interpreter"] or 0 for label in labels}
        for name in counted["now"]:
            if name == "bare interpreter":
                continue
            cells = [f"{((counted[label][name] or 0) - bare_i[label]) / 1e6:10.0f} M"
                     for label in labels]
            line = f"  {name:<22}" + "".join(f"{c:>22}" for c in cells)
            if len(labels) == 2:
                before = (counted[labels[0]][name] or 0) - bare_i[labels[0]]
                after = (counted["now"][name] or 0) - bare_i["now"]
                line += f"   {before / after:5.1f}x" if after > 0 else "      -"
            print(line)
        print(f"  {'(bare interpreter)':<22}"
              + "".join(f"{bare_i[label] / 1e6:10.0f} M".rjust(22) for label in labels))
    print("CPU times of short processes on a machine shared with other work: compare the "
          "columns, not runs on different days.")


if __name__ == "__main__":
    main()
