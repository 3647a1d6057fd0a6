"""The processes that judge analyses' moves follow the serving process that started them: one
that dies in the middle of a judgement (killed, or restarted by gunicorn, with no chance to shut
its pool down) leaves none behind."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A serving process whose judging process is busy for a minute when it dies.
SERVING = """
import os, threading, time
from pathlib import Path
from app.background.analyses import JudgePool

def judges():
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            line = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"spawn_main" in line:
            found.append(entry.name)
    return found

pool = JudgePool(time.sleep, workers=1)
threading.Thread(target=lambda: next(iter(pool.ordered([(60,)]))), daemon=True).start()
deadline = time.monotonic() + 30
while not judges() and time.monotonic() < deadline:
    time.sleep(0.1)
time.sleep(1.0)  # the judge has started its minute
print(" ".join(judges()), flush=True)
os._exit(0)  # no atexit: as a killed process goes
"""


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # dead, waiting only to be reaped


def test_a_judging_process_ends_soon_after_the_process_that_started_it() -> None:
    run = subprocess.run([sys.executable, "-c", SERVING], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)  # fmt: skip
    judges = [int(pid) for pid in run.stdout.split()]
    assert judges, run.stderr[-2000:]
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in judges):
        assert time.monotonic() < deadline, f"judging processes {judges} outlived their parent"
        time.sleep(0.1)
