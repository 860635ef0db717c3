"""Committed dealing, shown over random whole games of every game and preset (docs/fairness.md).

The verifier (services/cli/verify.py, which imports nothing of the engine) accepts the spectator's public record;
changing any one dealt card, commitment, seed or contributed entropy in it makes it fail, naming what changed.
"""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mazziere import engine
from mazziere.engine import chance
from mazziere.engine.dealing import contributions
from mazziere.engine.visibility import redact
from mazziere.services.cli import main
from mazziere.services.cli.verify import events_of, verify_record
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService
from mazziere.services.wire import jsondata as jsonwire
from tests.helpers import random_step

CASES = [(g.id, preset, n) for g in engine.all_games() for preset in g.presets for n in (3, 5)]
FAIRNESS = {"COMMITTED", "ENTROPY", "SEED"}


def play(
    game: str, preset: str, seats: int, seed: int, *, max_actions: int = 300, options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """A random game with random entropy on a third of the moves; the spectator's record as JSON events."""
    rng = random.Random(seed)
    people = [engine.Seat(f"p{i}", 60) for i in range(seats)]
    out = engine.new_table(game, people, seed=bytes([seed]), preset=preset, options=options)
    record = list(out.events)
    state = out.state
    given: set[int] = set()
    for _ in range(max_actions):
        if engine.is_over(state):
            break
        action = random_step(state, rng)
        house = engine.get_game(game).house_seats(state)  # CASINO's house gives none (docs/security.md)
        if rng.random() < 0.35 and action.seat not in given and action.seat not in house:
            action = msgspec.structs.replace(action, entropy=rng.randbytes(rng.randint(1, chance.MAX_ENTROPY)))
        out = engine.apply(state, action)
        if any(e.kind == "COMMITTED" for e in out.events):
            given = set()
        elif action.entropy:
            given.add(action.seat)
        record += out.events
        state = out.state
    record += engine.gather(state).events
    return _copy([jsonwire.write(e, pb.Event) for e in redact(tuple(record), None)])


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{p}-{n}" for g, p, n in CASES])
def record(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    game, preset, seats = request.param
    return play(game, preset, seats, seed=len(request.node.name))


def test_the_verifier_accepts_every_random_whole_game(record: list[dict[str, Any]]) -> None:
    result = verify_record(record)
    assert result.ok, result.error
    assert result.checked_draws and not result.unrevealed  # gathered at the end: every pack revealed


def _dealt_face_up(record: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(i, j) for i, e in enumerate(record) if e.get("at") for j, c in enumerate(e["cards"]) if "card" in c]


def test_changing_a_dealt_card_fails_naming_it(record: list[dict[str, Any]]) -> None:
    i, j = random.Random(1).choice(_dealt_face_up(record))
    bad = _copy(record)
    shown = bad[i]["cards"][j]["card"]
    bad[i]["cards"][j]["card"] = next(
        c["card"] for e in record if e["kind"] == "SEED" for c in e.get("cards", ()) if c["card"] != shown
    )
    result = verify_record(bad)
    assert not result.ok and f"draw {record[i]['draw']}, place {record[i]['at'][j]}: the record shows" in result.error


@pytest.mark.parametrize("kind", ["COMMITTED", "SEED"])
def test_changing_a_commitment_or_seed_fails_naming_it(record: list[dict[str, Any]], kind: str) -> None:
    i = random.Random(2).choice(
        [i for i, e in enumerate(record) if e["kind"] == kind and e["draw"] in _revealed(record)]
    )
    bad = _copy(record)
    bad[i]["data"] = ("0" if bad[i]["data"][0] != "0" else "1") + bad[i]["data"][1:]
    result = verify_record(bad)
    assert not result.ok and f"draw {record[i]['draw']}" in result.error and "commitment" in result.error


def test_changing_contributed_entropy_fails(record: list[dict[str, Any]]) -> None:
    given = [i for i, e in enumerate(record) if e["kind"] == "ENTROPY" and _face_up_after(record, e["draw"])]
    if not given:
        pytest.skip("no entropy went into a pack with a face-up card in this game")  # pragma: no cover
    i = given[0]
    bad = _copy(record)
    bad[i]["data"] = "ff" + bad[i]["data"][2:] if not bad[i]["data"].startswith("ff") else "00" + bad[i]["data"][2:]
    result = verify_record(bad)
    assert not result.ok  # a dealt card of that draw, or (if it happens to land the same) one shown later
    assert f"draw {record[i]['draw']}" in result.error or "no pack in play had dealt it" in result.error


def test_the_python_and_typescript_verifiers_agree_on_the_typescript_fixture() -> None:
    """The record clients/typescript/test checks verifyRecord with: accepted here too, and one change refused."""
    lines = Path("clients/typescript/test/fairness_record.ndjson").read_text().splitlines()
    tables: dict[str, list[str]] = {}
    for line in lines:
        tables.setdefault(json.loads(line)["table"], []).append(line)
    for table, rows in tables.items():
        events = events_of(rows)
        assert verify_record(events).ok, (table, verify_record(events).error)


def _copy(record: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record as a reader parses it: no object shared (the JSON writer shares each table card's object)."""
    return json.loads(json.dumps(record))  # type: ignore[no-any-return]


def _revealed(record: list[dict[str, Any]]) -> set[int]:
    return {e["draw"] for e in record if e["kind"] == "SEED"}


def _face_up_after(record: list[dict[str, Any]], draw: int) -> bool:
    return any(e.get("draw") == draw and e.get("at") and any("card" in c for c in e["cards"]) for e in record)


def test_a_card_shown_later_that_no_pack_dealt_fails() -> None:
    record = play("trentuno", "CLASSICO", 3, seed=4)
    shown = next(i for i, e in enumerate(record) if e["kind"] == "SHOW")
    pack = next(e for e in record if e["kind"] == "SEED" and e.get("cards"))
    dealt = {c["card"] for e in record[:shown] if e.get("at") for c in e["cards"] if "card" in c}
    dealt |= {c["card"] for c in record[shown]["cards"]}
    stranger = next(c["card"] for c in pack["cards"] if c["card"] not in dealt)
    record[shown]["cards"][0]["card"] = stranger
    assert not verify_record(record).ok


def test_a_seats_entropy_changes_the_deck() -> None:
    state = engine.new_table("sette_e_mezzo", [engine.Seat(n, 50) for n in "abc"], seed=b"same").state
    deal = engine.Action(state.bank, "DEAL")  # type: ignore[attr-defined]
    plain = engine.apply(state, deal).state.stock  # type: ignore[attr-defined]
    mixed = engine.apply(state, msgspec.structs.replace(deal, entropy=b"mine")).state.stock  # type: ignore[attr-defined]
    other = engine.apply(state, msgspec.structs.replace(deal, entropy=b"yours")).state.stock  # type: ignore[attr-defined]
    assert len({plain, mixed, other}) == 3


def test_entropy_is_bounded_and_given_once_a_draw() -> None:
    state = engine.new_table("trentuno", [engine.Seat(n, 50) for n in "abc"], seed=b"s").state
    with pytest.raises(engine.Rejected, match="at most 32 bytes") as too_long:
        engine.apply(state, engine.Action(state.dealer, "DEAL", entropy=bytes(33)))  # type: ignore[attr-defined]
    assert too_long.value.reason is engine.Reason.INVALID_ENTROPY
    dealt = engine.apply(state, engine.Action(state.dealer, "DEAL", entropy=b"dealer")).state  # type: ignore[attr-defined]
    rng = random.Random(3)
    for _ in range(40):  # a seat gives on its move, and again on a later move before the next draw: refused
        action = random_step(dealt, rng)
        given = [seat for seat, _ in contributions(dealt.entropy)]
        if action.seat in given:
            again = msgspec.structs.replace(action, entropy=b"again")
            with pytest.raises(engine.Rejected, match=f"seat {action.seat} has given its entropy") as twice:
                engine.apply(dealt, again)
            assert twice.value.reason is engine.Reason.INVALID_ENTROPY
            assert engine.apply(dealt, action).state.seq == dealt.seq + 1  # the same move without it is played
            return
        dealt = engine.apply(dealt, msgspec.structs.replace(action, entropy=bytes([action.seat + 1]))).state
    raise AssertionError("no seat moved twice between two draws")


def test_the_house_gives_no_entropy() -> None:
    """CASINO: the house bank plays for the operator, who knows the seeds; its bytes would let it choose the deck."""
    state = engine.new_table("sette_e_mezzo", [engine.Seat(n, 50) for n in "hab"], seed=b"s", preset="CASINO").state
    house = state.bank  # type: ignore[attr-defined]
    with pytest.raises(engine.Rejected, match=f"seat {house} is the house") as refused:
        engine.apply(state, engine.Action(house, "DEAL", entropy=b"grind"))
    assert refused.value.reason is engine.Reason.INVALID_ENTROPY
    out = engine.apply(state, engine.Action(house, "DEAL"))
    commits = [e for e in out.events if e.kind == "COMMITTED"]
    assert commits and all(e.amount == chance.ALGORITHM == 2 for e in commits)  # the algorithm told with each


def test_the_verifier_imports_nothing_of_the_engine() -> None:
    tree = ast.parse(Path("services/cli/verify.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    assert not {m for m in modules if m and m.startswith("mazziere")}


def test_mazziere_verify_exits_0_or_1_naming_the_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = play("saltacavallo", "NAPOLETANO", 4, seed=9)
    good = tmp_path / "good.ndjson"
    good.write_text("".join(json.dumps({"events": [e]}) + "\n" for e in record))
    assert main(["verify", str(good)]) == 0 and capsys.readouterr().out.startswith("verified:")
    late = tmp_path / "late.ndjson"  # a watcher that joined after the first commitments
    late.write_text("".join(json.dumps(e) + "\n" for e in record[len(record) // 2 :]))
    assert main(["verify", "--partial", str(late)]) == 0 and capsys.readouterr().out.startswith("verified:")
    seed = next(i for i, e in enumerate(record) if e["kind"] == "SEED")
    record[seed]["data"] = "00" * 32
    bad = tmp_path / "bad.ndjson"
    bad.write_text("\n".join(json.dumps(e) for e in record))
    assert main(["verify", str(bad)]) == 1 and "does not match the commitment" in capsys.readouterr().out


def test_every_update_carries_the_next_draw_and_its_commitment() -> None:
    """A page that joins late (GetView, the host's Watch snapshot) knows the commitment its entropy goes into."""
    core = TableService(Keyring([("k", bytes(32))]))
    seats = [pb.Seat(name=n, chips=50) for n in "abc"]
    table = core.create_table(svc.CreateTableRequest(game="trentuno", seats=seats), Call())
    keys = {k.seat: k.key for k in table.seat_keys}
    told = [e for u in table.updates[:1] for e in u.events if e.kind == "COMMITTED"][-1]
    assert all((u.next_draw, u.commitment) == (told.draw, told.data) for u in table.updates)
    dealer = table.to_act[0]
    act = svc.ActRequest(
        table_id=table.table_id,
        state=table.state,
        expected_seq=table.seq,
        seat_key=keys[dealer],
        include_spectator=True,
        action=pb.Action(seat=dealer, kind="DEAL", entropy="c0ffee"),
    )
    answer = core.act(act, Call())
    told = [e for e in answer.updates[0].events if e.kind == "COMMITTED"][-1]
    assert told.draw == 2 and all((u.next_draw, u.commitment) == (2, told.data) for u in answer.updates)
    view = core.get_view(svc.GetViewRequest(table_id=table.table_id, state=answer.state), Call())
    assert (view.update.next_draw, view.update.commitment) == (2, told.data)
    bad = svc.ActRequest()
    bad.CopyFrom(act)
    bad.action.entropy = "not hex"
    with pytest.raises(ServiceError, match="not hex") as refused:
        core.act(bad, Call())
    assert refused.value.reason == "INVALID_ENTROPY"


def _packs(record: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [e["cards"] for e in record if e["kind"] == "SEED" and e.get("cards")]


def _dealt_from_one_pack_across_hands(record: list[dict[str, Any]]) -> bool:
    hands_of: dict[int, set[int]] = {}
    hand = 0
    for e in record:
        hand += e["kind"] == "HAND_OVER"
        if e.get("at"):
            hands_of.setdefault(e["draw"], set()).add(hand)
    return any(len(hands) > 1 for hands in hands_of.values())


PATHS = {  # every way a pack is shuffled or a number drawn, and how the record shows it was taken
    "SM-18 refill from the discards": (
        "sette_e_mezzo", "CLASSICO", 9, {}, lambda r: any(len(p) < 40 for p in _packs(r))
    ),
    "SM-18 a fresh pack every hand": (
        "sette_e_mezzo", "CLASSICO", 4, {"reshuffle": "EVERY_HAND"}, lambda r: len(_packs(r)) > 3
    ),
    "SM-6 highest card": ("sette_e_mezzo", "NAPOLETANO", 4, {}, lambda r: any(e["kind"] == "DREW" for e in r)),
    "SM-6 random bank": (
        "sette_e_mezzo", "CLASSICO", 4, {}, lambda r: any(e["kind"] == "SEED" and "cards" not in e for e in r)
    ),
    "SC-5 the stock played down": (
        "saltacavallo", "NAPOLETANO", 4, {"reshuffle": "CONTINUE"}, _dealt_from_one_pack_across_hands
    ),
    "SC-4 dealing for the dealer": (
        "saltacavallo", "NAPOLETANO", 4, {"first_dealer": "RE_DI_DENARI"},
        lambda r: any(e["kind"] == "CHOOSE_CARD" and e.get("at") for e in r)
    ),
    "SC-4 random dealer": (
        "saltacavallo", "NAPOLETANO", 4, {"first_dealer": "RANDOM"}, lambda r: "cards" not in r[2]
    ),
    "TR-4 a pack every deal": ("trentuno", "CLASSICO", 4, {}, lambda r: len(_packs(r)) > 2),
}  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_every_way_of_shuffling_is_committed_and_verifies(path: str) -> None:
    """Each code path that shuffles or draws: taken in the game played, and its record verified; a changed seed of
    each revealed draw fails (the order was fixed by the commitment before its first card)."""
    game, preset, seats, options, taken = PATHS[path]
    record = play(game, preset, seats, seed=7, max_actions=1500, options=options)
    assert taken(record), f"the game did not take the path {path!r}"
    assert verify_record(record).ok, verify_record(record).error
    seeds = [i for i, e in enumerate(record) if e["kind"] == "SEED"]
    for i in seeds[:: max(1, len(seeds) // 4)]:  # the first and about four more, spread over the game
        bad = _copy(record)
        bad[i]["data"] = ("0" if bad[i]["data"][0] != "0" else "1") + bad[i]["data"][1:]
        assert not verify_record(bad).ok


def test_gathering_a_table_needs_every_seats_key() -> None:
    """Gather shows the stock's order: one seat's key, or the token alone, may not gather a table in play."""
    core = TableService(Keyring([("k", bytes(32))]))
    seats = [pb.Seat(name=n, chips=50) for n in "abc"]
    table = core.create_table(svc.CreateTableRequest(game="trentuno", seats=seats), Call())
    keys = [pb.SeatKey(seat=k.seat, key=k.key) for k in table.seat_keys]
    dealer = table.to_act[0]
    act = svc.ActRequest(
        table_id=table.table_id,
        state=table.state,
        expected_seq=table.seq,
        seat_key=keys[dealer].key,
        action=pb.Action(seat=dealer, kind="DEAL"),
    )
    dealt = core.act(act, Call()).state
    for given, reason in (
        (keys[:2], "SEAT_KEY_MISSING"),
        ([*keys[:2], pb.SeatKey(seat=2, key=keys[0].key)], "SEAT_KEY_INVALID"),
    ):
        with pytest.raises(ServiceError) as refused:
            core.gather(svc.GatherRequest(table_id=table.table_id, state=dealt, seat_keys=given), Call())
        assert refused.value.reason == reason
    gathered = core.gather(svc.GatherRequest(table_id=table.table_id, state=dealt, seat_keys=keys), Call())
    assert [e.kind for e in gathered.events] == ["SEED"] and gathered.events[0].draw == 1
