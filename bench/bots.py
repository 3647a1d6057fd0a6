"""Measure the bots against each other and record the table in docs/bots.md.

    .venv/bin/python bench/bots.py                 # 600 matches a pairing, 2 processes
    .venv/bin/python bench/bots.py --matches 100   # a quicker look
    .venv/bin/python bench/bots.py --no-write      # print only

Each pairing is ``basra simulate --a A --b B --matches N --seed S --jobs J`` (matches to
101, two players, half with each seating on the same decks); the table between the
markers in docs/bots.md is replaced, the rest of the page is left alone.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from app.engine.bots.simulate import MatchSpec, Progress, run_matches
from app.engine.bots.stats import MatchResult, Summary, summarise

PAIRINGS = (("greedy", "random"), ("expert", "greedy"), ("expert", "random"))
DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def run_pairing(a: str, b: str, matches: int, seed: int, jobs: int) -> Summary:
    specs = [MatchSpec(i, a, b, seed, 2, 101) for i in range(matches)]
    progress = Progress(matches, sys.stderr)
    started = time.monotonic()
    results: list[MatchResult] = []
    for result in run_matches(specs, jobs):
        results.append(result)
        progress.update(len(results))
    progress.close()
    results.sort(key=lambda r: r.index)
    return summarise(results, a, b, time.monotonic() - started)


def table(rows: list[tuple[str, str, Summary]], matches: int, seed: int, jobs: int) -> str:
    lines = [
        f"Matches to 101, 2 players, seed {seed}, {jobs} processes on "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
        "| pairing (a vs b) | matches | a wins (95% CI) | points/round a - b (95% CI) "
        "| points/round a, b | decisions/s a, b | a's decision ms median / p95 |",
        "|---|---:|---|---|---|---|---|",
    ]
    for a, b, s in rows:
        low, high = s.a.ci
        lines.append(
            f"| {a} vs {b} | {s.matches} | {s.a.win_rate:.1%} ({low:.1%} to {high:.1%}) "
            f"| {s.margin:+.1f} ± {s.margin_ci:.1f} "
            f"| {s.a.points_per_round:.1f}, {s.b.points_per_round:.1f} "
            f"| {s.a.decisions_per_second:,.0f}, {s.b.decisions_per_second:,.0f} "
            f"| {s.a.median_ms:.2f} / {s.a.p95_ms:.2f} |"
        )
    lines += ["", "Reproduce one row:", "", "```"]
    for a, b, _ in rows:
        lines.append(
            f"basra simulate --a {a} --b {b} --matches {matches} --seed {seed} --jobs {jobs}"
        )
    lines += ["```", "", f"or all of them: `.venv/bin/python bench/bots.py --matches {matches} "
              f"--seed {seed} --jobs {jobs}`."]  # fmt: skip
    return "\n".join(lines)


def record(text: str) -> None:
    page = DOC.read_text(encoding="utf-8")
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=600)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="do not touch docs/bots.md")
    args = parser.parse_args()
    rows = []
    for a, b in PAIRINGS:
        summary = run_pairing(a, b, args.matches, args.seed, args.jobs)
        print(summary.table(2, 101, args.seed), flush=True)
        rows.append((a, b, summary))
    text = table(rows, args.matches, args.seed, args.jobs)
    print(text)
    if not args.no_write:
        record(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
