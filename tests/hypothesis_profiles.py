"""Hypothesis profiles, chosen by HYPOTHESIS_PROFILE: `dev` for the fast loop (`make test`, and a
bare `pytest`), `ci` for the whole check (`make check`), `soak` for `make soak`.

A property test names the number of examples it needs in CI; ``examples(n)`` scales that to the
profile, so a developer's loop runs a fifth of CI's cases and a soak run five times as many.
"""

from __future__ import annotations

import os

from hypothesis import settings

SCALES = {"dev": 0.2, "ci": 1.0, "soak": 5.0}
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if PROFILE not in SCALES:
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: expected one of {sorted(SCALES)}")

for _name, _scale in SCALES.items():
    settings.register_profile(_name, max_examples=max(10, round(100 * _scale)), deadline=None)
settings.load_profile(PROFILE)


def examples(in_ci: int) -> int:
    """How many examples a test that needs ``in_ci`` of them in CI runs under this profile."""
    return max(10, round(in_ci * SCALES[PROFILE]))
