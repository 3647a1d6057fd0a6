"""Measure the bot ladder and record the table in docs/bots.md.

    .venv/bin/python bench/bots.py                   # 400 matches a pairing, 2 processes
    .venv/bin/python bench/bots.py --matches 60      # a quicker look
    .venv/bin/python bench/bots.py --no-write        # print only
    .venv/bin/python bench/bots.py --record runs.jsonl   # stoppable: run it again to go on
    .venv/bin/python bench/bots.py --record runs.jsonl --only expert:greedy --jobs 1
    .venv/bin/python bench/bots.py --record runs.jsonl --no-play   # the table of what is in it

The pairings: each level against the one below, the top level against greedy and against
``classic`` (the previous expert). Each is ``basra simulate --a A --b B --matches N --seed S
--jobs J`` (matches to 101, two players, half with each seating on the same decks). The
ratings are a Bradley-Terry fit over all of them (``app/engine/bots/ratings.py``), random
anchored at 1000; the table between the markers in docs/bots.md is replaced, the rest of
the page is left alone. With ``--record`` every finished match is appended to a file, and a
run started again with the same file and settings plays only the matches not in it yet.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path

from app.engine.bots import BOT_LEVELS
from app.engine.bots.ratings import fit
from app.engine.bots.simulate import MatchSpec, Progress, run_matches
from app.engine.bots.stats import MatchResult, Summary, summarise

TOP = BOT_LEVELS[-1]
PAIRINGS = (
    *((BOT_LEVELS[i], BOT_LEVELS[i - 1]) for i in range(1, len(BOT_LEVELS))),
    (TOP, "greedy"),
    (TOP, "classic"),
)
DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
Row = tuple[str, str, Summary]


def run_pairing(
    a: str,
    b: str,
    matches: int,
    seed: int,
    jobs: int,
    record: Path | None = None,
    play: bool = True,
) -> Summary:
    done = {r.index: r for r in recorded(record, a, b, seed) if r.index < matches}
    todo = range(matches) if play else range(0)
    specs = [MatchSpec(i, a, b, seed, 2, 101) for i in todo if i not in done]
    progress = Progress(len(specs), sys.stderr)
    started = time.monotonic()
    results: list[MatchResult] = list(done.values())
    for result in run_matches(specs, jobs):
        results.append(result)
        if record is not None:
            with record.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"a": a, "b": b, "seed": seed, **asdict(result)}) + "\n")
        progress.update(len(results) - len(done))
    progress.close()
    results.sort(key=lambda r: r.index)
    return summarise(results, a, b, time.monotonic() - started)


def recorded(record: Path | None, a: str, b: str, seed: int) -> list[MatchResult]:
    """The matches of pairing ``a`` vs ``b`` with ``seed`` already in ``record``."""
    if record is None or not record.exists():
        return []
    found = []
    for line in record.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if (data.pop("a"), data.pop("b"), data.pop("seed")) == (a, b, seed):
            found.append(MatchResult(**data))
    return found


def ratings(rows: list[Row]) -> dict[str, float]:
    return fit((a, b, s.a.wins + s.draws / 2, s.matches) for a, b, s in rows)


def table(rows: list[Row], seed: int, jobs: int) -> str:
    lines = [
        f"Matches to 101, 2 players, seed {seed}, {jobs} processes on "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
        "| pairing (a vs b) | matches | a wins (95% CI) | points/round a - b (95% CI) "
        "| a's decision ms median / p99 | a's CPU ms median / p99 |",
        "|---|---:|---|---|---|---|",
    ]
    for a, b, s in rows:
        low, high = s.a.ci
        lines.append(
            f"| {a} vs {b} | {s.matches} | {s.a.win_rate:.1%} ({low:.1%} to {high:.1%}) "
            f"| {s.margin:+.1f} ± {s.margin_ci:.1f} "
            f"| {s.a.median_ms:.2f} / {s.a.p99_ms:.2f} "
            f"| {s.a.cpu_median_ms:.2f} / {s.a.cpu_p99_ms:.2f} |"
        )
    fitted = ratings(rows)
    order = sorted(fitted, key=lambda level: fitted[level])
    lines += [
        "",
        "Ratings (Bradley-Terry over these matches, random = 1000): "
        + ", ".join(f"{level} {fitted[level]:.0f}" for level in order),
        "",
        "Reproduce one row:",
        "",
        "```",
    ]
    for a, b, s in rows:
        lines.append(
            f"basra simulate --a {a} --b {b} --matches {s.matches} --seed {seed} --jobs {jobs}"
        )
    lines += ["```"]
    return "\n".join(lines)


def record(text: str) -> None:
    page = DOC.read_text(encoding="utf-8")
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400, help="matches a pairing")
    parser.add_argument(
        "--search-matches",
        type=int,
        help="matches of a pairing with the top level in it (default: --matches)",
    )
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="do not touch docs/bots.md")
    parser.add_argument("--record", type=Path, help="append each match here; resume from it")
    parser.add_argument(
        "--only",
        action="append",
        metavar="A:B",
        help="play only this pairing (repeatable), e.g. to run pairings side by side into "
        "one --record; the page is then left alone",
    )
    parser.add_argument(
        "--no-play",
        action="store_true",
        help="play nothing: the table from the matches in --record (up to --matches each)",
    )
    args = parser.parse_args()
    if args.no_play and args.record is None:
        parser.error("--no-play needs --record")
    rows: list[Row] = []
    for a, b in PAIRINGS:
        if args.only and f"{a}:{b}" not in args.only:
            continue
        matches = args.matches if TOP not in (a, b) else args.search_matches or args.matches
        summary = run_pairing(
            a, b, matches, args.seed, args.jobs, args.record, play=not args.no_play
        )
        if not summary.matches:
            continue  # --no-play, and none recorded
        print(summary.table(2, 101, args.seed), flush=True)
        rows.append((a, b, summary))
    if args.only:
        return 0
    text = table(rows, args.seed, args.jobs)
    print(text)
    fitted = ratings(rows)
    print("RATINGS = {" + ", ".join(f'"{k}": {round(fitted[k])}' for k in BOT_LEVELS) + "}")
    if not args.no_write:
        record(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
