"""Key rotation as deploy/README.md describes it: stage, promote, retire, with keys made by ``mazziere new-key``.

Each step is a new server (a rollout) with the keys of that step, and a host that keeps its tables across them.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import replace

import grpc
import pytest

from mazziere.services import cli
from mazziere.services.table.sealing import Keyring, new_key_entry, read_header
from tests.service.conftest import BASE, Running
from tests.service.helpers import Table, error_info

KID = re.compile(r"^k(\d{8}T\d{6}Z)-[a-z2-7]{8}$")


def new_key(capsys: pytest.CaptureFixture[str]) -> str:
    """One entry as the operator makes it: the output of ``mazziere new-key``."""
    assert cli.main(["new-key"]) == 0
    return capsys.readouterr().out.strip()


def kid_of(entry: str) -> str:
    return entry.partition(":")[0]


def play(server: Running, table: Table, moves: int, rng: random.Random) -> None:
    """A few legal moves on ``table`` through ``server`` (fewer if the game ends)."""
    for _ in range(moves):
        if table.is_over:
            return
        server.client.act(table, server.client.random_action(table, rng))


def serving(keys: str) -> Running:
    return Running(replace(BASE, seal_keys=keys))


def test_two_keys_made_in_one_second_have_different_ids(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.0)
    first, second = new_key(capsys), new_key(capsys)
    one, two = KID.match(kid_of(first)), KID.match(kid_of(second))
    assert one and two, (kid_of(first), kid_of(second))
    assert one.group(1) == two.group(1) == "20270115T080000Z"
    assert kid_of(first) != kid_of(second)
    assert first.partition(":")[2] != second.partition(":")[2]
    Keyring.parse(f"{first}\n{second}")  # a valid keyring, both ids within the pattern
    ids = {kid_of(new_key_entry(1_800_000_000.0)) for _ in range(50)}
    assert len(ids) == 50


def test_a_repeated_key_id_is_refused_by_position_without_the_keys() -> None:
    one, two = new_key_entry(), new_key_entry()
    clash = f"{one}\n# staged\n{kid_of(one)}:{two.partition(':')[2]}"
    with pytest.raises(ValueError) as caught:
        Keyring.parse(clash)
    message = str(caught.value)
    assert "entries 1 and 2" in message and "same key id" in message
    for key in (one.partition(":")[2], two.partition(":")[2]):
        assert not [key[i : i + 6] for i in range(len(key) - 5) if key[i : i + 6] in message]


def test_rotation_stage_promote_retire_keeps_tables_in_play(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(7)
    old = new_key(capsys)
    new = new_key(capsys)  # made the same day as the old one, maybe the same second
    assert kid_of(old) != kid_of(new)

    before = serving(old)
    try:
        started = before.client.create("trentuno", seed=None)
        play(before, started, 2, rng)
        assert read_header(started.state)[0].kid == kid_of(old)
    finally:
        before.close()

    # 1. Stage: the new key second. Every table goes on; everything is still sealed with the old key.
    staged = serving(f"{old}\n{new}")
    try:
        play(staged, started, 2, rng)
        assert read_header(started.state)[0].kid == kid_of(old)
        during = staged.client.create("trentuno", seed=None)
        assert read_header(during.state)[0].kid == kid_of(old)
    finally:
        staged.close()

    # 2. Promote: the new key first, the old one kept. Old tables go on, resealed under the new key.
    promoted = serving(f"{new}\n{old}")
    try:
        for table in (started, during):
            play(promoted, table, 2, rng)
            assert read_header(table.state)[0].kid == kid_of(new)
            assert all(key.startswith(f"{kid_of(old)}.") for key in table.keys.values())
        after = promoted.client.create("trentuno", seed=None)
        assert read_header(after.state)[0].kid == kid_of(new)
        assert all(key.startswith(f"{kid_of(new)}.") for key in after.keys.values())
        play(promoted, after, 2, rng)
    finally:
        promoted.close()

    # 3. Retire: the old key gone. Tables started under it are refused (their seat keys); new ones play on.
    retired = serving(new)
    try:
        play(retired, after, 2, rng)
        if not started.is_over:
            with pytest.raises(grpc.RpcError) as caught:
                play(retired, started, 1, rng)
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            info = error_info(caught.value)
            assert info is not None and info.reason == "SEAT_KEY_INVALID"
    finally:
        retired.close()
