"""Files the processes of an instance share (the rate-limit counts without Redis, the bot
runner's lock) live in a folder of the temporary directory that is the user's alone."""

from __future__ import annotations

import os
import tempfile

import pytest

from app.config import machine_file


@pytest.fixture
def temporary(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_the_folder_is_made_for_this_user_alone(temporary):
    path = machine_file("bot-runner", "sqlite:///a", ".lock")
    assert path.parent == temporary / f"basra-{os.getuid()}"
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path == machine_file("bot-runner", "sqlite:///a", ".lock")  # every worker finds it
    assert path != machine_file("bot-runner", "sqlite:///b", ".lock")  # one per database


def test_a_folder_others_may_enter_is_refused(temporary):
    planted = temporary / f"basra-{os.getuid()}"
    planted.mkdir(mode=0o777)
    planted.chmod(0o777)
    with pytest.raises(RuntimeError, match="mode 700"):
        machine_file("ratelimits", "sqlite:///a", ".sqlite3")


def test_a_link_in_its_place_is_refused(temporary):
    elsewhere = temporary / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (temporary / f"basra-{os.getuid()}").symlink_to(elsewhere)
    with pytest.raises(RuntimeError):
        machine_file("ratelimits", "sqlite:///a", ".sqlite3")
