"""openapi.yaml as the tests read it: parsed once a process, with libyaml's parser (the pure
Python one takes 1.5 s of CPU for its 300 KB)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

OPENAPI_YAML = Path(__file__).resolve().parents[1] / "openapi.yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str | bytes) -> Any:
    return yaml.load(text, Loader=_LOADER)


@cache
def committed_spec() -> dict[str, Any]:
    """The committed openapi.yaml (the callers must not change it)."""
    spec: dict[str, Any] = parse_yaml(OPENAPI_YAML.read_text())
    return spec
