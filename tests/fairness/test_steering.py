"""No one who knows the seed can steer a draw (docs/security.md, "Fair dealing: what the proof shows").

For a draw that people have given entropy to, a seat the server plays (CASINO's house bank, a bot, a person's turn
played by the timer: every auto-play policy) makes the move that draws it: every order it can reach with all its
choices (each legal move that draws, any bytes it sends) is the one order the seed and the people's bytes make.
A server that drops a person's bytes, or tells its own as theirs, is caught by that person's verifier.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest

from mazziere import engine
from mazziere.engine import bots, chance
from mazziere.engine.dealing import contributions
from mazziere.engine.events import EventKind
from mazziere.services.cli.verify import events_of, verify_record
from tests.fairness.test_records import event, offered, table, where

CASES = [(g.id, preset) for g in engine.all_games() for preset in g.presets]


def _order(before: Any, out: engine.Outcome) -> tuple[int, tuple[str, ...]]:
    """The draw ``out`` made and its pack's order, recomputed from its revealed seed and the entropy mixed in."""
    added = b"".join(
        chance.contribution(e.seat, bytes.fromhex(e.data)) for e in out.events if e.kind is EventKind.ENTROPY
    )
    mixed = before.entropy + added
    (revealed,) = [e for e in engine.gather(out.state).events if e.draw == before.draws]
    canonical = tuple(str(c.card) for c in revealed.cards)
    return before.draws, chance.order(canonical, bytes.fromhex(revealed.data), mixed)


def _draws(state: Any, action: engine.Action) -> bool:
    try:
        return bool(engine.apply(state, action).state.draws > state.draws)
    except engine.Rejected:
        return False


def _before_a_draw(game: str, preset: str) -> tuple[Any, int, list[engine.Action]]:
    """A state whose next draw people gave entropy to, the seat the server plays that makes it, and its moves that
    make it. Seats 1 and 2 are people, who give entropy on their first move after each commitment; seats 0 and 3
    are played by the server (and the house, in CASINO), and give none."""
    game_of = engine.get_game(game)
    for attempt in range(20):
        rng = random.Random(f"steering/{game}/{preset}/{attempt}")
        state = engine.new_table(game, [engine.Seat(n, 40) for n in "abcd"], seed=b"steer", preset=preset).state
        for _ in range(400):
            if engine.is_over(state):
                break
            seat = engine.to_act(state)[0]
            legal = engine.legal_actions(state, seat)
            moves = [engine.Action(seat, m.kind, m.min_amount, m.target, m.cards) for m in legal]
            drawing = [m for m in moves if _draws(state, m)]
            served = seat in (0, 3) or seat in game_of.house_seats(state)
            if state.entropy and drawing and served:
                return state, seat, drawing
            move = rng.choice([m for m in moves if m not in drawing] or moves)
            if not served and seat not in _people(state):
                move = msgspec.structs.replace(move, entropy=offered(game, seat, state.draws))
            state = engine.apply(state, move).state
    raise AssertionError(f"{game} {preset}: no draw by a seat the server plays after people gave entropy")


def _people(state: Any) -> list[int]:
    """The seats that gave entropy to the next draw."""
    return [seat for seat, _ in contributions(state.entropy)]


@pytest.mark.parametrize(("game", "preset"), CASES, ids=[f"{g}-{p}" for g, p in CASES])
def test_a_seat_the_server_plays_reaches_one_order(game: str, preset: str) -> None:
    state, seat, drawing = _before_a_draw(game, preset)
    assert _people(state) and seat not in _people(state)
    honest = {_order(state, engine.apply(state, move)) for move in drawing}
    assert len(honest) == 1  # every move that draws it deals the one pack: the moves choose nothing
    reached = set(honest)
    for policy in bots.POLICIES:  # a bot, or a person's turn played by the timer: auto-play
        chosen = bots.choose(policy, state, seat)
        assert chosen.entropy == b"", policy
        if _draws(state, chosen):
            reached.add(_order(state, engine.apply(state, chosen)))
    house = seat in engine.get_game(game).house_seats(state)
    assert house == (preset == "CASINO")
    if house:  # the house's own bytes: a grinder's tries, every one refused
        grinder = random.Random(f"grinder/{game}")
        for _ in range(10_000):
            tried = msgspec.structs.replace(drawing[0], entropy=grinder.randbytes(16))
            with pytest.raises(engine.Rejected) as refused:
                engine.apply(state, tried)
            assert refused.value.reason is engine.Reason.INVALID_ENTROPY
    assert reached == honest, f"{len(reached)} orders reachable"


def test_a_persons_bytes_do_change_the_order() -> None:
    """The contrast: a person's bytes (not the server's) reach other orders, which is why only people give them."""
    state, seat, drawing = _before_a_draw("trentuno", "CLASSICO")
    assert seat not in engine.get_game("trentuno").house_seats(state)
    tries = (msgspec.structs.replace(drawing[0], entropy=bytes([i])) for i in range(8))
    orders = {_order(state, engine.apply(state, tried)) for tried in tries}
    assert len(orders) == 8


def test_a_server_dropping_a_persons_entropy_is_caught_by_that_seat() -> None:
    """The server plays the table; seat 1 gives its bytes on every draw. Honest, seat 1's check passes; dropping
    or replacing its bytes for one draw makes a record that verifies for everyone else but not for seat 1."""
    lines, gave = table("trentuno", "CLASSICO", "abc", 20, 24)
    mine = dict(gave[1])

    def judge(record: list[dict[str, Any]], seat: int | None) -> str:
        result = verify_record(events_of(json.dumps(line) for line in record), seat=seat, gave=mine)
        return result.error

    assert judge(lines, 1) == ""
    for draw in [d for d, h in mine.items() if h]:
        for server in (b"", bytes(16)):

            def alter(s: int, d: int, b: bytes, draw: int = draw, server: bytes = server) -> bytes:
                return server if (s, d) == (1, draw) else b

            altered, _ = table("trentuno", "CLASSICO", "abc", 20, 24, alter)
            assert judge(altered, None) == ""  # a third party, without seat 1's bytes, sees nothing wrong
            error = judge(altered, 1)
            assert error.startswith(f"draw {draw}: ") and "seat 1" in error, error
    assert event(lines, where(lines, lambda e: e["kind"] == "ENTROPY" and e["seat"] == 1))
