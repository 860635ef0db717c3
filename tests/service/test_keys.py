"""Mis-written sealing keys: the server refuses to start and says which entry is wrong, never what it holds."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile

import pytest

from mazziere.services.table.sealing import Keyring
from tests.ports import free_port
from tests.service.test_process import ROOT


def fragments(secret: str, size: int = 6) -> list[str]:
    """Every piece of ``secret`` long enough to give part of a key away."""
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


KEY = base64.b64encode(os.urandom(32)).decode()
URL_KEY = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
MISWRITTEN = {
    "swapped": f"{KEY}:k1",
    "swapped, url-safe key": f"{URL_KEY}:k1",
    "no kid": KEY,
    "no kid, url-safe key": URL_KEY,
    "second entry swapped": f"k1:{base64.b64encode(os.urandom(32)).decode()},{URL_KEY}:k2",
    "short key": f"k1:{URL_KEY[:10]}",
    "not base64": f"k1:{KEY[:20]}!{KEY[21:]}",
}


@pytest.mark.parametrize("entry", list(MISWRITTEN.values()), ids=list(MISWRITTEN))
def test_a_miswritten_key_is_never_echoed(entry: str) -> None:
    with pytest.raises(ValueError) as caught:
        Keyring.parse(entry)
    message = str(caught.value)
    assert "entry" in message
    secrets = [part for e in entry.split(",") for part in e.split(":") if len(part) > 8]
    for secret in secrets:
        leaked = [f for f in fragments(secret) if f in message]
        assert not leaked, (message, leaked)


REPEATED_ID = f"k1:{KEY},k1:{URL_KEY}"
STARTUP = {"swapped": (f"{URL_KEY}:k1", "swapped"), "repeated key id": (REPEATED_ID, "same key id")}


@pytest.mark.parametrize(("keys", "says"), list(STARTUP.values()), ids=list(STARTUP))
def test_the_startup_failure_log_line_holds_no_key_material(keys: str, says: str) -> None:
    env = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(free_port()),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_SEAL_KEYS": keys,
        "MAZZIERE_DATA_DIR": tempfile.mkdtemp(prefix="mazziere-data-"),  # its own store: SQLite serves one host
    }
    done = subprocess.run(
        [sys.executable, "-m", "mazziere.services.cli", "serve"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "startup_failed" in done.stderr and says in done.stderr
    output = done.stdout + done.stderr
    assert not [f for f in fragments(URL_KEY) + fragments(KEY) if f in output]


def test_good_seat_keys_are_remembered_and_wrong_ones_never() -> None:
    keyring = Keyring.ephemeral()
    good = keyring.seat_key("t_1", 2)
    assert keyring.check_seat_key(good, "t_1", 2) and keyring.check_seat_key(good, "t_1", 2)
    assert not keyring.check_seat_key(good, "t_1", 3) and not keyring.check_seat_key(good, "t_2", 2)
    assert not keyring.check_seat_key(good[:-1] + ("A" if good[-1] != "A" else "B"), "t_1", 2)
    assert keyring._good_keys == {(good, "t_1", 2)}
