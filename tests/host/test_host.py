"""The host over gRPC, on a SQLite store: invites and capabilities, moves in order, Watch, timers and bots, and
what never leaves it (state tokens, seat keys, other seats' cards)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from mazziere.services.app import App
from mazziere.services.cli.verify import events_of, verify_record
from mazziere.services.config import Config
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.gen.mazziere.v1 import trentuno_pb2 as tpb
from mazziere.services.grpc.server import ServerThread
from mazziere.services.host.host import Host
from mazziere.services.table.sealing import Keyring
from tests.service.conftest import KEYS
from tests.service.helpers import error_info
from tests.service.test_shutdown import wait_for

Code = grpc.StatusCode
CAPABILITY = "x-table-capability"
DENIED = "PERMISSION_DENIED/CAPABILITY_INVALID"


@dataclass
class Hosted:
    app: App
    host: Host
    server: ServerThread
    stub: Any
    channel: grpc.Channel

    def close(self) -> None:
        self.channel.close()
        self.server.run(self.host.stop())
        self.server.shutdown()


def start_host(config: Config) -> Hosted:
    app = App(config, keyring=Keyring.parse(config.seal_keys), hosting=True)
    host = app.host
    assert host is not None
    server = ServerThread(app.grpc)
    port = server.start()
    server.run(host.start())
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return Hosted(app, host, server, host_pb2_grpc.HostServiceStub(channel), channel)


def host_config(data: Path, **changes: Any) -> Config:
    base = Config(
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        log_calls=False,
        grace_seconds=1.0,
        seal_keys=KEYS,
        data_dir=str(data),
        bot_delay_ms=0,
        heartbeat_seconds=0.5,
        **ROOMY,
    )
    return replace(base, **changes)


ROOMY: dict[str, Any] = {
    "caller_tables_per_minute": 10_000,
    "caller_open_tables": 10_000,
    "caller_plays_per_second": 10_000.0,
    "caller_reads_per_second": 10_000.0,
}
"""Caller limits no test of the host's other behaviour reaches (every test calls from 127.0.0.1); the limits have
tests of their own (tests/host/test_abuse.py)."""


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosted]:
    h = start_host(host_config(tmp_path_factory.mktemp("host")))
    yield h
    h.close()


def cap(capability: str) -> list[tuple[str, str]]:
    return [(CAPABILITY, capability)]


def reason(exc: grpc.RpcError) -> str:
    info = error_info(exc)
    return f"{exc.code().name}/{info.reason if info else ''}"  # type: ignore[attr-defined]


def refused(work: Any) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        work()
    return reason(caught.value)


def open_trentuno(stub: Any, *, bot: str = "", turn: int = 600) -> hpb.OpenTableResponse:
    seats = [hpb.HostedSeat(name="Ada", chips=10), hpb.HostedSeat(name="Bruno", chips=10, bot=bot)]
    seats.append(hpb.HostedSeat(name="Carla", chips=10))
    return stub.OpenTable(hpb.OpenTableRequest(game="trentuno", seats=seats, turn_seconds=turn), timeout=10)


def invites(opened: hpb.OpenTableResponse) -> dict[int, str]:
    return {i.seat: i.capability for i in opened.invites}


def table_of(stub: Any, opened: hpb.OpenTableResponse, capability: str) -> hpb.GetHostedTableResponse:
    return stub.GetHostedTable(hpb.GetHostedTableRequest(table_id=opened.table_id), metadata=cap(capability))


def play_first(stub: Any, opened: hpb.OpenTableResponse) -> hpb.PlayResponse:
    """The first legal move of the seat to act, once it is a person's."""
    keys = invites(opened)
    any_seat = next(iter(keys.values()))
    wait_for(lambda: table_of(stub, opened, any_seat).update.to_act[0] in keys)  # bots play by themselves
    seat = table_of(stub, opened, any_seat).update.to_act[0]
    mine = table_of(stub, opened, keys[seat]).update
    entry = mine.update.legal_actions[0]
    action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=mine.seq, action=action)
    return stub.Play(request, metadata=cap(keys[seat]), timeout=10)


# -- invites and what each one may do -------------------------------------------------------------


def test_each_invite_sees_its_own_seat_and_nothing_else(hosted: Hosted) -> None:
    for _ in range(20):  # a dealt 31 ends the deal at once and shows every hand (TR-10): deal again at a new table
        opened = open_trentuno(hosted.stub)
        keys = invites(opened)
        assert sorted(keys) == [0, 1, 2] and len({*keys.values(), opened.owner.capability}) == 4
        assert all(f"#table={opened.table_id}&invite=" in i.url for i in [*opened.invites, opened.spectators])
        play_first(hosted.stub, opened)  # the deal: each seat now holds cards
        view = table_of(hosted.stub, opened, keys[0]).update.update.view.trentuno
        if view.phase == tpb.TRENTUNO_PHASE_PLAYING:
            break
    for seat, capability in keys.items():
        seen = table_of(hosted.stub, opened, capability)
        assert seen.seat == seat
        hands = seen.update.update.view.trentuno.hands
        for other, hand in enumerate(hands):
            visible = [c.card for c in hand.values if c.card]
            assert (len(visible) > 0) == (other == seat), (seat, other)  # Trentuno: each sees only its own hand
    spectator = table_of(hosted.stub, opened, opened.spectators.capability)
    assert not spectator.HasField("seat")
    assert all(not c.card for hand in spectator.update.update.view.trentuno.hands for c in hand.values)


def test_no_answer_carries_a_state_token_or_a_seat_key(hosted: Hosted) -> None:
    """Rollback and peeking are impossible at a hosted table: a browser never holds a token or a seat key."""
    opened = open_trentuno(hosted.stub)
    played = play_first(hosted.stub, opened)
    record = hosted.server.run(hosted.host.store.get(opened.table_id))
    assert record is not None
    secrets = [record.token, *(k.encode() for k in record.seat_keys)]
    answers = [opened, played, *(table_of(hosted.stub, opened, c) for c in invites(opened).values())]
    for answer in answers:
        data = answer.SerializeToString()
        assert not any(secret in data for secret in secrets)


def test_a_missing_wrong_or_foreign_capability_is_refused(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    other = open_trentuno(hosted.stub)
    request = hpb.GetHostedTableRequest(table_id=opened.table_id)
    assert refused(lambda: hosted.stub.GetHostedTable(request)) == DENIED
    wrong = cap("x" * 43)
    assert refused(lambda: hosted.stub.GetHostedTable(request, metadata=wrong)) == DENIED
    foreign = cap(invites(other)[0])
    assert refused(lambda: hosted.stub.GetHostedTable(request, metadata=foreign)) == DENIED
    missing = hpb.GetHostedTableRequest(table_id="t_000000000000000000000000")
    assert refused(lambda: hosted.stub.GetHostedTable(missing, metadata=foreign)) == "NOT_FOUND/TABLE_NOT_FOUND"


def test_an_invite_plays_only_its_own_seat(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    seat = table_of(hosted.stub, opened, keys[0]).update.to_act[0]
    other = (seat + 1) % 3
    action = pb.Action(seat=seat, kind="DEAL")
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=0, action=action)
    assert refused(lambda: hosted.stub.Play(request, metadata=cap(keys[other]))) == DENIED
    spectators = cap(opened.spectators.capability)
    assert refused(lambda: hosted.stub.Play(request, metadata=spectators)) == DENIED
    assert hosted.stub.Play(request, metadata=cap(keys[seat])).update.seq == 1


def test_the_owner_reissues_an_invite_and_the_old_one_stops_working(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    old = invites(opened)[2]
    request = hpb.ReissueInviteRequest(table_id=opened.table_id, seat=2)
    assert refused(lambda: hosted.stub.ReissueInvite(request, metadata=cap(old))) == DENIED
    new = hosted.stub.ReissueInvite(request, metadata=cap(opened.owner.capability)).invite
    assert new.seat == 2 and new.capability != old
    assert table_of(hosted.stub, opened, new.capability).seat == 2
    assert refused(lambda: table_of(hosted.stub, opened, old)) == DENIED


def test_a_closed_table_takes_no_move_and_tells_its_watchers(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    watch = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(keys[1]), timeout=20)
    assert next(watch).update.snapshot
    closing = hpb.CloseTableRequest(table_id=opened.table_id)
    assert refused(lambda: hosted.stub.CloseTable(closing, metadata=cap(keys[0]))) == DENIED
    hosted.stub.CloseTable(closing, metadata=cap(opened.owner.capability))
    last = next(m for m in watch if m.HasField("update"))
    assert last.update.closed
    assert refused(lambda: play_first(hosted.stub, opened)) == "FAILED_PRECONDITION/TABLE_CLOSED"


def test_a_closed_table_issues_no_invite_and_gives_no_advice(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    owner = cap(opened.owner.capability)
    advise = hpb.AdviseSeatRequest(table_id=opened.table_id, samples=16)
    assert hosted.stub.AdviseSeat(advise, metadata=cap(keys[0]), timeout=20).advice.seat == 0  # open, it advises
    hosted.stub.CloseTable(hpb.CloseTableRequest(table_id=opened.table_id), metadata=owner)
    closed = "FAILED_PRECONDITION/TABLE_CLOSED"
    for request in (  # a seat's invite, and the spectators' link
        hpb.ReissueInviteRequest(table_id=opened.table_id, seat=1),
        hpb.ReissueInviteRequest(table_id=opened.table_id),
    ):
        assert refused(partial(hosted.stub.ReissueInvite, request, metadata=owner)) == closed
    assert refused(lambda: hosted.stub.AdviseSeat(advise, metadata=cap(keys[0]), timeout=20)) == closed
    assert table_of(hosted.stub, opened, keys[1]).seat == 1  # the invites of a closed table still read it


def test_a_watch_of_a_closed_table_ends_after_the_closing_update(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    closed = hosted.stub.CloseTable(
        hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
    )
    spectators = cap(opened.spectators.capability)
    for after in (0, -1):  # a new watcher, and one asking for the whole record: each stream ends at the close
        request = hpb.WatchRequest(table_id=opened.table_id, after_seq=after)
        updates = [
            m.update for m in hosted.stub.Watch(request, metadata=spectators, timeout=20) if m.HasField("update")
        ]
        assert updates[-1].closed and updates[-1].seq == closed.seq, after
    request = hpb.WatchRequest(table_id=opened.table_id, after_seq=closed.seq)  # one that saw the close already
    assert not [m for m in hosted.stub.Watch(request, metadata=spectators, timeout=20) if m.HasField("update")]


def test_a_closed_tables_snapshot_is_at_its_closing_seq(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    closed = hosted.stub.CloseTable(
        hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
    )
    for capability in (opened.owner.capability, opened.spectators.capability, invites(opened)[0]):
        now = table_of(hosted.stub, opened, capability).update
        assert now.closed and now.seq == closed.seq


def test_closing_a_table_reveals_the_pack_still_in_play_to_its_watchers(hosted: Hosted) -> None:
    """docs/fairness.md: the host's close gathers the table, so its record can be verified to the end."""
    opened = open_trentuno(hosted.stub)
    dealt = play_first(hosted.stub, opened).update.update.events  # the dealer deals: pack 1 is in play
    committed = {e.draw: e.data for e in dealt if e.kind == "COMMITTED"}
    opening = {e.draw: e.data for e in opened.update.update.events if e.kind == "COMMITTED"}
    pack = next(e.draw for e in dealt if e.kind == "HAND")
    watch = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability))
    assert next(watch).update.snapshot
    hosted.stub.CloseTable(hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability))
    last = next(m for m in watch if m.HasField("update")).update
    seeds = [e for e in last.update.events if e.kind == "SEED"]
    assert last.closed and [e.draw for e in seeds] == [pack]
    assert (
        hashlib.sha256(b"mazziere/commit/v2" + bytes.fromhex(seeds[0].data)).hexdigest()
        == {**opening, **committed}[pack]
    )
    watch.cancel()


def test_the_spectators_whole_record_from_the_opening_verifies(hosted: Hosted) -> None:
    """Watch from after_seq = -1 gives the spectators every step from the opening: the table's public record,
    which the verifier accepts to the end once the table is closed (docs/fairness.md)."""
    opened = open_trentuno(hosted.stub)
    play_first(hosted.stub, opened)
    hosted.stub.CloseTable(hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability))
    request = hpb.WatchRequest(table_id=opened.table_id, after_seq=-1)
    steps = []
    for message in hosted.stub.Watch(request, metadata=cap(opened.spectators.capability), timeout=20):
        if message.HasField("update"):
            steps.append(message.update)
            if message.update.closed:
                break
    assert [s.seq for s in steps] == list(range(len(steps))) and not steps[0].snapshot
    record = [json_format.MessageToDict(e) for s in steps for e in s.update.events]
    result = verify_record(record)
    assert result.ok and result.checked_draws and not result.unrevealed, result
    # The steps as NDJSON (mazziere verify's input): each update's next draw and commitment, and the close, are
    # checked too (checks 6 and 8); a page that joined after the opening checks its part with --partial.
    lines = [json.dumps(json_format.MessageToDict(step)) for step in steps]
    events = events_of(lines)
    assert {"NEXT_DRAW", "CLOSED"} <= {e["kind"] for e in events}
    whole = verify_record(events)
    assert whole.ok and not whole.unrevealed, whole.error
    late = verify_record(events_of(lines[1:]), partial=True)
    assert late.ok, late.error


# -- moves in order ---------------------------------------------------------------------------------


def test_concurrent_moves_at_one_seq_apply_exactly_one(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    seat = table_of(hosted.stub, opened, keys[0]).update.to_act[0]
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=0, action=pb.Action(seat=seat, kind="DEAL"))
    with futures.ThreadPoolExecutor(16) as pool:
        calls = [pool.submit(hosted.stub.Play, request, metadata=cap(keys[seat]), timeout=30) for _ in range(50)]
        outcomes = []
        for call in calls:
            try:
                outcomes.append(f"OK/{call.result().update.seq}")
            except grpc.RpcError as exc:
                outcomes.append(reason(exc))
    assert outcomes.count("OK/1") == 1, outcomes
    assert set(outcomes) == {"OK/1", "ABORTED/STALE_SEQUENCE"}, set(outcomes)
    assert table_of(hosted.stub, opened, keys[0]).update.seq == 1


# -- Watch ------------------------------------------------------------------------------------------


def test_watch_pushes_each_move_and_resumes_with_nothing_lost_or_repeated(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub, bot="cautious")  # the bot plays its turns by itself
    keys = invites(opened)
    watch = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(keys[2]), timeout=30)
    first = next(watch)
    assert first.update.snapshot and first.update.seq == 0 and [p.bot for p in first.presence] == ["", "cautious", ""]
    seqs: list[int] = []

    def read(stream: Any, until: int) -> None:
        for message in stream:
            if message.HasField("update"):
                seqs.append(message.update.seq)
                if message.update.seq >= until:
                    return

    played = play_first(hosted.stub, opened)
    read(watch, played.update.seq)
    watch.cancel()
    play_first(hosted.stub, opened)  # the table moves on while this seat does not watch
    seq_now = table_of(hosted.stub, opened, keys[0]).update.seq
    resumed = hosted.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id, after_seq=seqs[-1]), metadata=cap(keys[2]), timeout=30
    )
    read(resumed, seq_now)
    resumed.cancel()
    assert seqs == list(range(1, seq_now + 1)), seqs  # every step once, in order, across the reconnect


def test_a_step_made_while_a_watch_opens_reaches_it(hosted: Hosted, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move lands after the Watch first read the table and before it listens (another caller's move, such as the
    sitting move another look at the table made): the watcher gets it at once, not at the table's next move."""
    opened = open_trentuno(hosted.stub)
    before = table_of(hosted.stub, opened, opened.spectators.capability).update.seq
    attendance = hosted.host.attendance
    watched = attendance.watched

    async def a_move_first(record: Any) -> None:
        monkeypatch.setattr(attendance, "watched", watched)
        await asyncio.to_thread(play_first, hosted.stub, opened)
        await watched(record)

    monkeypatch.setattr(attendance, "watched", a_move_first)
    watch = hosted.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability), timeout=20
    )
    seqs = []
    for message in watch:  # every step the table has, before its first heartbeat (the table is idle after)
        if message.heartbeat:
            break
        if message.HasField("update"):
            seqs.append(message.update.seq)
    watch.cancel()
    assert seqs[-1] == before + 1, seqs


def test_watchers_see_who_is_connected(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    keys = invites(opened)
    ada = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(keys[0]), timeout=20)
    assert [p.connected for p in next(ada).presence] == [True, False, False]
    carla = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(keys[2]), timeout=20)
    assert [p.connected for p in next(carla).presence] == [True, False, True]
    assert [p.connected for p in next(m for m in ada if m.presence).presence] == [True, False, True]
    carla.cancel()
    assert [p.connected for p in next(m for m in ada if m.presence).presence] == [True, False, False]
    ada.cancel()


def test_an_idle_watch_sends_heartbeats(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub)
    watch = hosted.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability), timeout=20
    )
    next(watch)
    assert next(watch).heartbeat and next(watch).heartbeat
    watch.cancel()


# -- timers and bots --------------------------------------------------------------------------------


def test_a_turn_not_played_in_time_is_played_by_the_host(hosted: Hosted) -> None:
    opened = open_trentuno(hosted.stub, turn=1)
    keys = invites(opened)
    first = table_of(hosted.stub, opened, keys[0]).update
    assert first.turn_ends_unix_ms > 0
    wait_for(lambda: table_of(hosted.stub, opened, keys[0]).update.seq > first.seq)


def test_a_due_turn_never_waits_for_another_tables_move(hosted: Hosted) -> None:
    """Two tables' turns run out; the first one's move hangs (a bot thinking, say): the second is played meanwhile."""
    slow, quick = open_trentuno(hosted.stub, turn=1), open_trentuno(hosted.stub, turn=1)
    release = threading.Event()
    tables = hosted.host.tables
    act = tables.act

    async def hanging(request: Any, call: Any) -> Any:
        if request.table_id == slow.table_id and request.auto_play:
            await asyncio.get_running_loop().run_in_executor(None, release.wait, 30)
        return await act(request, call)

    tables.act = hanging  # type: ignore[method-assign]
    try:
        start = table_of(hosted.stub, quick, invites(quick)[0]).update.seq
        wait_for(lambda: table_of(hosted.stub, quick, invites(quick)[0]).update.seq > start)
        assert not release.is_set()
    finally:
        release.set()
        tables.act = act  # type: ignore[method-assign]


def test_the_open_tables_are_counted_from_the_start(tmp_path: Path) -> None:
    config = host_config(tmp_path)
    first = start_host(config)
    opened = [open_trentuno(first.stub) for _ in range(3)]
    first.stub.CloseTable(hpb.CloseTableRequest(table_id=opened[0].table_id), metadata=cap(opened[0].owner.capability))
    first.close()
    again = start_host(config)
    try:
        assert again.app.metrics.registry.get_sample_value("mazziere_host_tables") == 2
    finally:
        again.close()


def test_bots_play_their_own_turns(hosted: Hosted) -> None:
    seats = [hpb.HostedSeat(name="Ada", chips=10), hpb.HostedSeat(name="Bot", chips=10, bot="random")]
    request = hpb.OpenTableRequest(game="sette_e_mezzo", seats=seats, turn_seconds=600)
    opened = hosted.stub.OpenTable(request, timeout=10)
    ada = invites(opened)[0]
    deal = table_of(hosted.stub, opened, ada).update
    if 0 in deal.to_act:
        play_first(hosted.stub, opened)
    wait_for(lambda: 1 not in table_of(hosted.stub, opened, ada).update.to_act)


def test_bad_tables_are_refused(hosted: Hosted) -> None:
    bots = [hpb.HostedSeat(name=n, chips=10, bot="random") for n in ("a", "b", "c")]
    only_bots = hpb.OpenTableRequest(game="trentuno", seats=bots)
    assert refused(lambda: hosted.stub.OpenTable(only_bots)) == "INVALID_ARGUMENT/INVALID_REQUEST"
    bots[0].bot = "genius"
    assert refused(lambda: hosted.stub.OpenTable(hpb.OpenTableRequest(game="trentuno", seats=bots))).endswith(
        "UNKNOWN_POLICY"
    )
    unknown = hpb.OpenTableRequest(game="tressette", seats=[hpb.HostedSeat(name="a", chips=1)])
    assert refused(lambda: hosted.stub.OpenTable(unknown)) == "INVALID_ARGUMENT/UNKNOWN_GAME"


# -- restarts and keys ------------------------------------------------------------------------------


def test_a_restarted_host_goes_on_from_its_last_move_and_rotated_keys_open_its_tables(tmp_path: Path) -> None:
    config = host_config(tmp_path)
    first = start_host(config)
    opened = open_trentuno(first.stub)
    played = play_first(first.stub, opened)
    first.close()
    new_key = "k9:" + "A" * 43 + "="
    rotated = replace(config, seal_keys=f"{new_key},{config.seal_keys}")  # a new primary, the old one kept
    second = start_host(rotated)
    try:
        seen = table_of(second.stub, opened, invites(opened)[0])
        assert seen.update.seq == played.update.seq
        again = play_first(second.stub, opened)
        assert again.update.seq == played.update.seq + 1
        record = second.server.run(second.host.store.get(opened.table_id))
        assert record is not None and second.app.keyring.open(record.token)[0].kid == "k9"  # re-sealed by its move
    finally:
        second.close()


def test_the_embedded_default_keeps_its_sealing_key_beside_the_store(tmp_path: Path) -> None:
    from mazziere.services.app import make_keyring

    config = host_config(tmp_path, seal_keys="")
    made = make_keyring(config, keep_in=tmp_path)
    kept = make_keyring(config, keep_in=tmp_path)
    assert made.primary == kept.primary
    assert (tmp_path / "seal.keys").stat().st_mode & 0o777 == 0o600


def test_two_hosts_cannot_share_one_sqlite_store(tmp_path: Path) -> None:
    config = host_config(tmp_path)
    first = start_host(config)
    try:
        with pytest.raises(Exception, match="another host"):
            start_host(config)
    finally:
        first.close()


def test_a_server_with_api_keys_still_hosts_people_who_hold_none(tmp_path: Path) -> None:
    """Browsers hold no API key: the host's calls are guarded by capabilities, its engine calls carry its key."""
    key = "host-key-0123456789abcdef"
    tenants = json.dumps({"tenants": [{"name": "host", "keys": [key]}]})
    keyed = start_host(host_config(tmp_path, tenants=tenants, engine_api_key=key))
    try:
        opened = open_trentuno(keyed.stub)
        assert play_first(keyed.stub, opened).update.seq == 1
    finally:
        keyed.close()
