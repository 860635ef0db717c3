"""The hosted table's states over gRPC: the waiting room (nobody played before the clock starts; the owner's start;
a late joiner), the pause when no person is present and the resume when one returns, a person away past the grace
played by the table and marked so, and quick reactions reaching every watcher without a trace in the table."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import sette_e_mezzo_pb2 as sm
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.host.conftest import Backend
from tests.host.test_host import Hosted, cap, host_config, invites, refused, start_host, table_of
from tests.host.test_store import step, table
from tests.service.test_shutdown import wait_for

GRACE = 1.0
"""The presence grace of these tests' host (seconds)."""
WAITING, PLAYING, PAUSED = hpb.TABLE_STATE_WAITING, hpb.TABLE_STATE_PLAYING, hpb.TABLE_STATE_PAUSED


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosted]:
    h = start_host(host_config(tmp_path_factory.mktemp("host"), presence_grace_seconds=GRACE))
    yield h
    h.close()


def open_table(stub: Any, *, turn: int, bot: str = "", waiting: bool = False, follow: bool = False) -> Any:
    """Trentuno for Ada, Bruno (a bot if ``bot``) and Carla."""
    seats = [hpb.HostedSeat(name="Ada", chips=10), hpb.HostedSeat(name="Bruno", chips=10, bot=bot)]
    seats.append(hpb.HostedSeat(name="Carla", chips=10))
    request = hpb.OpenTableRequest(
        game="trentuno", seats=seats, turn_seconds=turn, waiting_room=waiting, follow_presence=follow
    )
    return stub.OpenTable(request, timeout=10)


def watching(hosted: Hosted, opened: Any, capability: str) -> Any:
    return hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(capability), timeout=30)


def owner_view(hosted: Hosted, opened: Any) -> hpb.GetHostedTableResponse:
    """The table as its owner sees it (the owner is no seat: looking does not count as being there)."""
    return table_of(hosted.stub, opened, opened.owner.capability)


def presence_of(answer: Any, field: str) -> list[bool]:
    return [getattr(p, field) for p in answer.presence]


def test_a_waiting_room_plays_nobody_until_every_person_has_come(hosted: Hosted) -> None:
    opened = open_table(hosted.stub, turn=1, bot="cautious", waiting=True)
    keys = invites(opened)
    assert opened.update.turn_ends_unix_ms == 0
    first = owner_view(hosted, opened)
    assert first.status.state == WAITING and first.status.turn_ends_unix_ms == 0
    ada = watching(hosted, opened, keys[0])
    told = next(ada)
    assert told.status.state == WAITING and presence_of(told, "joined") == [True, True, False]
    time.sleep(2.5)  # more than the turn's second and the bot's delay: still, nothing is played
    assert owner_view(hosted, opened).update.seq == first.update.seq
    assert owner_view(hosted, opened).status.state == WAITING
    # The last person comes: the clock starts, and every watcher is told.
    late = table_of(hosted.stub, opened, keys[2])
    assert late.status.state == PLAYING and late.status.turn_ends_unix_ms > 0
    started = next(m for m in ada if m.HasField("status") and m.status.state == PLAYING)
    assert presence_of(started, "joined") == [True, True, True]
    assert presence_of(started, "played_by_table") == [False, False, False]
    wait_for(lambda: owner_view(hosted, opened).update.seq > first.update.seq)  # the clock runs now
    ada.cancel()


def test_the_owner_starts_the_table_and_it_plays_the_seats_not_taken_until_a_late_joiner_comes(
    hosted: Hosted,
) -> None:
    opened = open_table(hosted.stub, turn=600, bot="cautious", waiting=True)
    keys = invites(opened)
    assert refused(
        lambda: hosted.stub.StartTable(hpb.StartTableRequest(table_id=opened.table_id), metadata=cap(keys[0]))
    ) == ("PERMISSION_DENIED/CAPABILITY_INVALID")
    started = hosted.stub.StartTable(
        hpb.StartTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
    )
    assert started.status.state == PLAYING and started.status.turn_ends_unix_ms > 0
    view = owner_view(hosted, opened)
    assert presence_of(view, "joined") == [False, True, False]
    assert presence_of(view, "played_by_table") == [True, False, True]
    # Nobody came: the table plays both people's seats at a bot's pace, not after their 600 s turns.
    wait_for(lambda: owner_view(hosted, opened).update.seq >= 2)
    # A late joiner takes their seat back; the other stays played by the table.
    late = table_of(hosted.stub, opened, keys[2])
    assert presence_of(late, "played_by_table") == [True, False, False]
    assert presence_of(late, "joined") == [False, True, True]


def test_a_table_with_nobody_present_pauses_and_resumes_when_one_returns(hosted: Hosted) -> None:
    opened = open_table(hosted.stub, turn=1, follow=True)
    keys = invites(opened)
    ada, carla = watching(hosted, opened, keys[0]), watching(hosted, opened, keys[2])
    next(ada), next(carla)
    ada.cancel(), carla.cancel()
    # Past the grace, the next due turn pauses the table instead of playing it; then no timer fires.
    wait_for(lambda: owner_view(hosted, opened).status.state == PAUSED, seconds=30)
    paused = owner_view(hosted, opened)
    assert paused.status.turn_ends_unix_ms == 0 and paused.update.turn_ends_unix_ms == 0
    time.sleep(2.5)
    assert owner_view(hosted, opened).update.seq == paused.update.seq
    # One returns (a Watch): the table resumes with a whole turn, and plays on.
    back = watching(hosted, opened, keys[0])
    resumed = next(back)
    assert resumed.status.state == PLAYING and resumed.status.turn_ends_unix_ms > 0
    assert owner_view(hosted, opened).status.state == PLAYING
    back.cancel()


def test_a_person_away_past_the_grace_is_played_by_the_table_and_marked(hosted: Hosted) -> None:
    opened = open_table(hosted.stub, turn=600, bot="cautious", follow=True)
    keys = invites(opened)
    ada = watching(hosted, opened, keys[0])
    carla = watching(hosted, opened, keys[2])
    told = next(ada)
    assert presence_of(told, "played_by_table")[:2] == [False, False]
    next(carla)
    carla.cancel()
    # Carla's Watch ended: within the grace she is still there; past it the table plays her seat, and says so.
    marked = next(m for m in ada if m.presence and presence_of(m, "played_by_table")[2] and not m.presence[2].connected)
    assert presence_of(marked, "played_by_table") == [False, False, True]
    assert marked.status.state == PLAYING
    ada.cancel()


def test_quick_reactions_reach_every_watcher_and_leave_no_trace(hosted: Hosted) -> None:
    opened = open_table(hosted.stub, turn=600)
    keys = invites(opened)
    streams = [watching(hosted, opened, key) for key in (keys[0], keys[2], opened.spectators.capability)]
    for stream in streams:
        next(stream)
    seq = owner_view(hosted, opened).update.seq
    react = hosted.stub.React
    react(hpb.ReactRequest(table_id=opened.table_id, kind="bella"), metadata=cap(keys[2]), timeout=10)
    for stream in streams:
        got = next(m for m in stream if m.HasField("reaction"))
        assert (got.reaction.seat, got.reaction.kind) == (2, "bella")
        assert not got.HasField("update") and got.seq == 0
        stream.cancel()
    assert owner_view(hosted, opened).update.seq == seq  # no step
    record = hosted.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id, after_seq=-1), metadata=cap(opened.spectators.capability)
    )
    steps = [next(record) for _ in range(seq + 2)]  # presence, then the steps up to now
    record.cancel()
    assert not any(m.HasField("reaction") for m in steps)
    assert "bella" not in b"".join(m.SerializeToString() for m in steps).decode("latin-1")
    # Only a seat reacts, only with a reaction of the set, and not faster than the host passes them on.
    for capability, kind, refusal in (
        (opened.spectators.capability, "bella", "PERMISSION_DENIED/CAPABILITY_INVALID"),
        (keys[0], "anything you like", "INVALID_ARGUMENT/INVALID_REQUEST"),
    ):
        assert (
            refused(
                lambda c=capability, k=kind: react(hpb.ReactRequest(table_id=opened.table_id, kind=k), metadata=cap(c))
            )
            == refusal
        )
    answers = []
    for _ in range(5):
        try:
            react(hpb.ReactRequest(table_id=opened.table_id, kind="wow"), metadata=cap(keys[0]), timeout=10)
            answers.append("sent")
        except grpc.RpcError as exc:
            answers.append(exc.code().name)
    assert answers[:3] == ["sent"] * 3 and "RESOURCE_EXHAUSTED" in answers[3:]


def test_a_table_opened_without_the_options_plays_on_its_clock_as_before(hosted: Hosted) -> None:
    opened = open_table(hosted.stub, turn=1)
    assert opened.update.turn_ends_unix_ms > 0
    view = owner_view(hosted, opened)
    assert view.status.state == PLAYING and presence_of(view, "played_by_table") == [False, False, False]
    wait_for(lambda: owner_view(hosted, opened).update.seq > view.update.seq)  # nobody there, and it plays


# -- the store ----------------------------------------------------------------------------------------------------


async def test_both_stores_count_presence_for_every_replica_and_set_the_state_at_a_seq(backend: Backend) -> None:
    first, second = await backend.hosts(2)
    await first.create(table("t1"), step(0))
    assert await second.presence("t1") == {}
    await first.touch("t1", [0, 2], 1_000)
    await second.touch("t1", [2], 5_000)
    assert await first.presence("t1") == {0: 1_000, 2: 5_000}
    await first.touch("gone", [0], 1_000)  # no table, no row
    assert await first.presence("gone") == {}
    assert await second.set_hosting("t1", 0, '{"paused": true}', 0)
    assert not await second.set_hosting("t1", 7, "", 123)  # not at that seq: nothing changes
    kept = await first.get("t1")
    assert kept is not None and kept.hosting == '{"paused": true}' and kept.due_ms == 0


def open_sette_e_mezzo(stub: Any, *, follow: bool = True, sit_out: bool | None = None) -> Any:
    """Sette e mezzo for Ada (the bank, for good), Bruno (a cautious bot) and Carla, with a long clock."""
    seats = [hpb.HostedSeat(name="Ada", chips=20), hpb.HostedSeat(name="Bruno", chips=20, bot="cautious")]
    seats.append(hpb.HostedSeat(name="Carla", chips=20))
    rules = sm.SetteEMezzoRules(first_bank=sm.SETTE_E_MEZZO_FIRST_BANK_SEAT, first_bank_seat=0)
    # Ada keeps the bank (SM-17, SM-23): a reale dealt to Bruno would otherwise pass it, and the tests' turns with it.
    rules.bank_passes_on_reale = False
    rules.bank_passes_when = sm.SETTE_E_MEZZO_BANK_PASSES_NEVER
    if sit_out is not None:
        rules.sit_out = sit_out
    request = hpb.OpenTableRequest(
        game="sette_e_mezzo",
        seats=seats,
        turn_seconds=600,
        follow_presence=follow,
        options=pb.Rules(sette_e_mezzo=rules),
    )
    return stub.OpenTable(request, timeout=10)


def sitting_out(hosted: Hosted, opened: Any) -> list[int]:
    return list(owner_view(hosted, opened).update.update.view.sette_e_mezzo.sitting_out)


def ada_plays(hosted: Hosted, opened: Any, kind: str) -> None:
    """Ada (the bank) sends ``kind`` once it is her turn."""
    keys = invites(opened)
    wait_for(lambda: list(owner_view(hosted, opened).update.to_act) == [0])  # Bruno and the table play first
    seq = owner_view(hosted, opened).update.seq
    action = pb.Action(seat=0, kind=kind)
    hosted.stub.Play(hpb.PlayRequest(table_id=opened.table_id, expected_seq=seq, action=action), metadata=cap(keys[0]))


def phase(hosted: Hosted, opened: Any) -> int:
    return int(owner_view(hosted, opened).update.update.view.sette_e_mezzo.phase)


def carla_leaves(hosted: Hosted, opened: Any) -> tuple[dict[int, str], Any]:
    """Ada and Carla open the table (one after the other: two people arriving at once may each count the other
    absent), then Carla leaves, until she is away past the grace: the invites, and Ada's Watch."""
    keys = invites(opened)
    ada = watching(hosted, opened, keys[0])
    next(ada)
    carla = watching(hosted, opened, keys[2])
    next(carla)
    carla.cancel()
    next(m for m in ada if m.presence and presence_of(m, "played_by_table")[2])
    return keys, ada


def test_a_person_away_past_the_grace_sits_out_at_the_hand_boundary_and_sits_in_on_return(hosted: Hosted) -> None:
    opened = open_sette_e_mezzo(hosted.stub)
    keys, ada = carla_leaves(hosted, opened)  # Carla is away past the grace
    # Between hands (Ada deals next): the next look at the table sits Carla out; the view says so.
    table_of(hosted.stub, opened, keys[0])
    wait_for(lambda: sitting_out(hosted, opened) == [2])
    ada_plays(hosted, opened, "DEAL")
    dealt = owner_view(hosted, opened).update.update.view.sette_e_mezzo
    assert not dealt.seats[2].cards and dealt.seats[2].status == sm.SETTE_E_MEZZO_STATUS_OUT
    assert dealt.seats[2].chips == 20
    # Carla comes back during the hand: she sits in at its end (at once if it is over), and is dealt in next.
    wait_for(lambda: list(owner_view(hosted, opened).update.to_act) == [0])  # Bruno played; the bank's turn
    during = phase(hosted, opened) == sm.SETTE_E_MEZZO_PHASE_BANK
    back = watching(hosted, opened, keys[2])
    next(back)
    if during:
        assert sitting_out(hosted, opened) == [2]
        ada_plays(hosted, opened, "STAND")
    wait_for(lambda: sitting_out(hosted, opened) == [])
    assert owner_view(hosted, opened).update.update.view.sette_e_mezzo.seats[2].chips == 20  # paid nothing
    ada_plays(hosted, opened, "DEAL")
    assert owner_view(hosted, opened).update.update.view.sette_e_mezzo.seats[2].cards
    ada.cancel(), back.cancel()


def test_a_person_sends_no_sitting_move_at_a_table_that_follows_presence(hosted: Hosted) -> None:
    opened = open_sette_e_mezzo(hosted.stub)
    keys = invites(opened)
    seq = owner_view(hosted, opened).update.seq
    action = pb.Action(seat=0, kind="SIT_OUT", target=2)
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=seq, action=action)
    assert refused(lambda: hosted.stub.Play(request, metadata=cap(keys[0]))) == "INVALID_ARGUMENT/INVALID_REQUEST"
    assert sitting_out(hosted, opened) == []


def test_where_the_game_does_not_allow_sitting_out_the_away_seat_is_still_played_cautiously(hosted: Hosted) -> None:
    opened = open_sette_e_mezzo(hosted.stub, sit_out=False)  # the opener turned the option off
    keys, ada = carla_leaves(hosted, opened)
    table_of(hosted.stub, opened, keys[0])
    ada_plays(hosted, opened, "DEAL")
    assert sitting_out(hosted, opened) == []
    wait_for(lambda: list(owner_view(hosted, opened).update.to_act) == [0])  # Carla's turn was played for her
    assert owner_view(hosted, opened).update.update.view.sette_e_mezzo.seats[2].cards
    ada.cancel()


def test_a_look_at_the_table_asks_the_engine_nothing_while_nobody_is_away(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A present person's look is served from the readers' snapshot: the sitting moves ask the engine only when
    someone is away or back."""
    opened = open_sette_e_mezzo(hosted.stub)
    keys = invites(opened)
    ada = watching(hosted, opened, keys[0])
    next(ada)  # one after the other: two people arriving at once may each count the other absent
    carla = watching(hosted, opened, keys[2])
    next(carla)
    table_of(hosted.stub, opened, keys[0])  # Ada's first look: the snapshot of her seat, made once for the step
    tables = hosted.host.sitter.tables
    asked: list[Any] = []
    real = tables.get_view

    async def counted(*args: Any, **kwargs: Any) -> Any:
        asked.append(args)
        return await real(*args, **kwargs)

    monkeypatch.setattr(tables, "get_view", counted)
    for _ in range(3):
        assert table_of(hosted.stub, opened, keys[0]).seat == 0
    assert asked == []
    ada.cancel(), carla.cancel()
