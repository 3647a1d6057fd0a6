"""A/B of the engine's warm round rate: engines of different commits, side by side.

Run with ``.venv/bin/python bench/engine_ab.py`` (default: the baseline ``a44c55a^``, the
engine before the first engine optimisation, against this working tree). Each engine runs
in a subprocess of its own, importing ``app.engine`` from its own tree, and plays the
same work as the "caches warm" figure of bench/engine.py: that file's ``play_rounds``,
1000 random two-player rounds a repetition, timed in the worker's CPU seconds
(time.process_time). The workers take turns, one repetition each, the order reversed
every other time, so a noisy neighbour on this shared machine falls on all of them alike;
the figures are medians.

An engine is a git revision (extracted with ``git archive``) or ``.`` (this working tree).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
BENCH = HERE.parent / "engine.py"


def worker(tree: str, rounds: int, passes: int | None) -> None:
    """Import ``app.engine`` from ``tree``, then answer each line of stdin with one
    repetition's rounds per CPU second and per wall-clock second; or, given ``passes``,
    play that many repetitions and stop (for callgrind)."""
    sys.path.insert(0, tree)
    import app.engine  # noqa: F401  (from ``tree``: bench/engine.py then reuses it)

    spec = importlib.util.spec_from_file_location("engine_bench", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for name, module in list(sys.modules.items()):
        if name == "app" or name.startswith("app."):
            source = getattr(module, "__file__", None) or ""
            if not Path(source).resolve().is_relative_to(Path(tree).resolve()):
                raise SystemExit(f"{name} imported from {source}, not from {tree}")
    if passes is not None:
        for _ in range(passes):
            bench.play_rounds(rounds, 0, random.Random(0))
        return
    for _ in sys.stdin:
        cpu = time.process_time()
        wall = time.perf_counter()
        bench.play_rounds(rounds, 0, random.Random(0))
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
        print(f"{rounds / max(cpu, 1e-9)} {rounds / wall}", flush=True)


def extract(revision: str, into: Path) -> tuple[str, str]:
    """The tree of ``revision``'s app/engine under ``into``; (path, short commit)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", f"{revision}^{{commit}}"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    tree = into / commit
    tree.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "archive", commit, "app/__init__.py", "app/engine"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return str(tree), commit


def instructions(tree: str) -> int:
    """Instructions a warm round under callgrind: (three passes of 300 rounds - one) / 600.
    Repeatable to a few in a million, whatever else the machine runs; takes ~30 s."""
    counts = []
    for passes in (1, 3):
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                   sys.executable, str(HERE), "--worker", tree, "--rounds", "300",
                   "--passes", str(passes)]  # fmt: skip
        report = subprocess.run(command, check=True, capture_output=True, text=True).stderr
        counts.append(int(report.split("Collected : ")[1].split()[0]))
    return (counts[1] - counts[0]) // 600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engines", nargs="*", default=["a44c55a^", "."],
                        help="git revisions or . (this tree); ratios are to the first")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=15, help="timed repetitions per engine")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per repetition")
    counting = "also count each engine's instructions a warm round (callgrind)"
    parser.add_argument("--instructions", action="store_true", help=counting)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--passes", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.rounds, args.passes)
        return

    scratch = Path(tempfile.mkdtemp(prefix="engine-ab-"))
    names, trees, workers = [], [], []
    try:
        for engine in args.engines:
            if engine == ".":
                tree, name = str(ROOT), "this tree"
            else:
                tree, commit = extract(engine, scratch)
                name = f"{engine} ({commit})" if engine != commit else engine
            names.append(name)
            trees.append(tree)
            command = [sys.executable, str(HERE), "--worker", tree, "--rounds", str(args.rounds)]
            pipe = subprocess.PIPE
            workers.append(subprocess.Popen(command, stdin=pipe, stdout=pipe, text=True))

        def run(index: int) -> tuple[float, float]:
            process = workers[index]
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write("run\n")
            process.stdin.flush()
            cpu, wall = process.stdout.readline().split()
            return float(cpu), float(wall)

        load = os.getloadavg()[0]
        print(f"python {platform.python_version()} on {platform.machine()}, "
              f"{os.cpu_count()} cores, load average {load:.2f}")  # fmt: skip
        print(f"warm random 2-player rounds (bench/engine.py's play_rounds, {args.rounds} a "
              f"repetition), {args.repeat} repetitions an engine, alternated\n")  # fmt: skip
        for index in range(len(workers)):
            run(index)  # fills the caches: every repetition after it is warm
        cpu: list[list[float]] = [[] for _ in workers]
        wall: list[list[float]] = [[] for _ in workers]
        for repetition in range(args.repeat):
            order = list(range(len(workers)))
            if repetition % 2:
                order.reverse()
            for index in order:
                rate, wall_rate = run(index)
                cpu[index].append(rate)
                wall[index].append(wall_rate)

        width = max(len(name) for name in names)
        print(f"{'engine':<{width}}  {'per CPU s':>9}  {'min-max':>11}  {'rounds/s':>9}  "
              f"{'ratio':>6}  {'paired':>6}")  # fmt: skip
        base = statistics.median(cpu[0])
        for index, name in enumerate(names):
            median = statistics.median(cpu[index])
            # The median of the per-repetition ratios: each pair ran back to back.
            paired = statistics.median(a / b for a, b in zip(cpu[index], cpu[0], strict=True))
            spread = f"{min(cpu[index]):.0f}-{max(cpu[index]):.0f}"
            print(f"{name:<{width}}  {median:>9.0f}  {spread:>11}  "
                  f"{statistics.median(wall[index]):>9.0f}  {median / base:>6.3f}  "
                  f"{paired:>6.3f}")  # fmt: skip
        print(f"\nratio: median rounds per CPU second over the first engine's; paired: the "
              f"median of the repetitions' ratios. Load average at the end "
              f"{os.getloadavg()[0]:.2f}")  # fmt: skip
        if args.instructions:
            counts = [instructions(tree) for tree in trees]
            print("\ninstructions a warm round (callgrind):")
            for name, count in zip(names, counts, strict=True):
                print(f"{name:<{width}}  {count:>9,}  {counts[0] / count:>6.3f}")
    finally:
        for process in workers:
            if process.stdin is not None:
                process.stdin.close()
            process.wait()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
