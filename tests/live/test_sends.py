"""The hub's non-blocking send (app/live/sends.py): what a socket takes at once, nothing more."""

from __future__ import annotations

import socket

import pytest

from app.live.sends import send_now


def test_a_socket_with_room_takes_the_whole_batch():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert send_now(ours, b"data: 1\n\n") == 9
        assert theirs.recv(100) == b"data: 1\n\n"


def test_a_full_socket_takes_what_fits_and_then_nothing_without_waiting():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        batch = b"x" * 1_000_000
        first = send_now(ours, batch)
        assert 0 < first < len(batch)
        assert send_now(ours, batch) == 0  # full: 0 at once, never a wait


def test_a_reader_that_went_away_is_an_os_error():
    ours, theirs = socket.socketpair()
    theirs.close()
    with ours, pytest.raises(OSError):
        send_now(ours, b"data: 1\n\n")
