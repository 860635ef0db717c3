"""Records every verifier must judge alike (docs/fairness.md, "Checking a record"): whole ones it accepts, and ones
tampered with or made up that it refuses, naming what failed. ``tests/data/fairness_records.json`` holds them, with
the options each is checked with and the exact error expected; ``mazziere verify``, the Python client's
``verify_record`` (the same file) and the TypeScript client's ``verifyRecord`` (clients/typescript/test) read it.

The records are the spectator's updates (``{"seq", "update": {"events", "nextDraw", "commitment"}}``, and
``"closed": true`` for a closed table) of two tables the engine plays itself: Sette e mezzo CASINO to its GAME_OVER
(the house is seat 0: it gives no entropy), and Trentuno closed mid-game by ``engine.gather``. Every other seat
gives entropy on its first move after each commitment, as the web table does. Regenerate with
``python -m tests.fairness.test_records`` only when the record or the algorithm is meant to change, and say why in
the commit.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mazziere import engine
from mazziere.engine.events import redact_events
from mazziere.services.cli import main
from mazziere.services.cli.verify import events_of, verify_record
from mazziere.services.gen.mazziere.v1 import table_pb2
from mazziere.services.wire import jsondata

RECORDS = Path(__file__).parent.parent / "data" / "fairness_records.json"
Line = dict[str, Any]
Alter = Callable[[int, int, bytes], bytes]
"""What the server makes of a seat's entropy for a draw, ``(seat, draw, bytes) -> bytes`` (``b""``: dropped)."""


def honest(seat: int, draw: int, given: bytes) -> bytes:
    return given


def offered(game: str, seat: int, draw: int) -> bytes:
    """The bytes a seat offers a draw: derived, so that the file is reproducible."""
    return hashlib.sha256(f"{game}/{seat}/{draw}".encode()).digest()[:16]


def _update(events: tuple[engine.Event, ...], state: Any) -> dict[str, Any]:
    told = [jsondata.write(e, table_pb2.Event) for e in redact_events(events, None)]
    return {"events": told, "nextDraw": state.draws, "commitment": state.commitment.hex()}


def table(game: str, preset: str, names: str, chips: int, moves: int, alter: Alter = honest) -> tuple[list[Line], dict]:
    """A table played by the engine: the spectator's lines, and every seat's entropy as it offered it, by draw."""
    rng = random.Random(f"records/{game}/{preset}")
    out = engine.new_table(game, [engine.Seat(n, chips) for n in names], seed=f"records/{game}".encode(), preset=preset)
    state = out.state
    lines: list[Line] = [{"seq": state.seq, "update": _update(out.events, state)}]
    gave: dict[int, dict[int, str]] = {}
    for _ in range(moves):
        if engine.is_over(state):
            break
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        move = legal[rng.randrange(len(legal))]
        action = engine.Action(seat, move.kind, move.max_amount, move.target, move.cards)
        mine = gave.setdefault(seat, {})
        if state.draws not in mine:
            wanted = offered(game, seat, state.draws)
            try:
                out = engine.apply(state, msgspec.structs.replace(action, entropy=alter(seat, state.draws, wanted)))
                mine[state.draws] = wanted.hex()
            except engine.Rejected as refused:  # the house gives none: the move goes again without
                assert refused.reason is engine.Reason.INVALID_ENTROPY, refused
                mine[state.draws] = ""
                out = engine.apply(state, action)
        else:
            out = engine.apply(state, action)
        state = out.state
        lines.append({"seq": state.seq, "update": _update(out.events, state)})
    if not engine.is_over(state):
        closed = engine.gather(state)
        lines.append({"seq": state.seq, "update": _update(closed.events, state), "closed": True})
    return lines, gave


def short(text: str) -> str:
    return f"{text[:12]}…" if len(text) > 16 else text


def where(lines: list[Line], test: Callable[[dict[str, Any]], bool], last: bool = False) -> tuple[int, int]:
    """The line and the index in its events of the first (or last) event ``test`` accepts."""
    found = [(i, j) for i, line in enumerate(lines) for j, e in enumerate(line["update"]["events"]) if test(e)]
    assert found, "no such event"
    return found[-1] if last else found[0]


def event(lines: list[Line], at: tuple[int, int]) -> dict[str, Any]:
    return lines[at[0]]["update"]["events"][at[1]]  # type: ignore[no-any-return]


def render() -> dict[str, Any]:
    casino, casino_gave = table("sette_e_mezzo", "CASINO", "hab", 4, 80)
    closed, closed_gave = table("trentuno", "CLASSICO", "abc", 20, 24)
    assert [e["kind"] for e in casino[-1]["update"]["events"]].count("GAME_OVER") == 1, "the casino game must end"
    assert casino_gave[0] and not any(casino_gave[0].values()), "the house gave entropy"
    cases: list[dict[str, Any]] = []

    def case(name: str, lines: list[Line], error: str | None, **options: Any) -> None:
        cases.append({"name": name, "options": options, "error": error, "lines": lines})

    case("a whole game, to GAME_OVER", casino, None)
    case("a table closed mid-game", closed, None)
    case("each seat's own entropy found", closed, None, seat=1, gave={str(d): h for d, h in closed_gave[1].items()})

    old = copy.deepcopy(casino)  # a record written before the algorithm's number was told
    for line in old:
        for e in line["update"]["events"]:
            if e["kind"] == "COMMITTED":
                del e["amount"]
    case("algorithm 2 untold (a record of before)", old, None)

    cut = next(i for i in range(len(closed) // 2, len(closed) - 1) if "COMMITTED" in str(closed[i + 1]))
    draw = closed[cut]["update"]["nextDraw"]
    late = [{"seq": closed[cut]["seq"], "snapshot": True, "update": {**closed[cut]["update"], "events": []}}]
    late += copy.deepcopy(closed[cut + 1 :])
    case("a late page", late, None, partial=True)
    wrong = copy.deepcopy(late)
    shown = wrong[0]["update"]["commitment"] = _flip(wrong[0]["update"]["commitment"])
    seed = event(wrong, where(wrong, lambda e: e["kind"] == "SEED" and e["draw"] == draw))["data"]
    case(
        "a late page shown a commitment its seed does not match",
        wrong,
        f"draw {draw}: the seed {short(seed)} does not match the commitment an update showed {short(shown)}",
        partial=True,
    )

    bad = copy.deepcopy(casino)
    event(bad, (0, 0))["amount"] = "3"
    case("an algorithm not known", bad, "draw 0: committed by dealing algorithm 3, not one known here (2)")

    at = where(closed, lambda e: e["kind"] == "ENTROPY")
    given = event(closed, at)
    committed = where(closed, lambda e: e["kind"] == "COMMITTED" and e["draw"] == given["draw"])
    early = copy.deepcopy(closed)
    del early[at[0]]["update"]["events"][at[1]]
    early[committed[0]]["update"]["events"].insert(committed[1], given)
    case(
        "entropy before its draw's commitment",
        early,
        f"draw {given['draw']}: entropy from seat {given['seat']} appears before the draw's commitment",
    )

    twice = copy.deepcopy(closed)
    twice[at[0]]["update"]["events"].insert(at[1] + 1, {**given, "data": "ab" * 16})
    case(
        "one seat's entropy twice for one draw",
        twice,
        f"draw {given['draw']}: seat {given['seat']} gives entropy twice",
    )

    line = next(i for i, x in enumerate(closed) if i > 2 and "COMMITTED" not in str(x))
    told = copy.deepcopy(closed)
    fake = told[line]["update"]["commitment"] = _flip(told[line]["update"]["commitment"])
    real, next_draw = closed[line]["update"]["commitment"], closed[line]["update"]["nextDraw"]
    case(
        "an update's commitment not its draw's",
        told,
        f"draw {next_draw}: an update names the commitment {short(fake)}, the record committed {short(real)}",
    )
    ahead = copy.deepcopy(closed)
    ahead[line]["update"]["nextDraw"] = next_draw + 1
    case(
        "an update's next draw not the one committed",
        ahead,
        f"draw {next_draw + 1}: an update names its commitment, but no COMMITTED for it came before",
    )

    over = copy.deepcopy(casino)
    last = where(over, lambda e: e["kind"] == "SEED" and e.get("cards"), last=True)
    hidden = event(over, last)["draw"]
    del over[last[0]]["update"]["events"][last[1]]
    case(
        "a game over with a pack never revealed",
        over,
        f"draw {hidden}: the game is over, but the pack it dealt is never revealed",
    )
    unclosed = copy.deepcopy(closed)
    seeds = unclosed[-1]["update"]["events"]
    hidden = seeds[-1]["draw"]
    del seeds[-1]
    case(
        "a closed table with a pack never revealed",
        unclosed,
        f"draw {hidden}: the table is closed, but the pack it dealt is never revealed",
    )

    house = copy.deepcopy(casino)
    at = where(house, lambda e: e["kind"] == "ENTROPY")
    stolen = {**event(house, at), "seat": 0}
    house[at[0]]["update"]["events"].insert(at[1], stolen)
    case(
        "entropy from the house",
        house,
        f"draw {stolen['draw']}: entropy from seat 0, on a move the server chose",
        server_seats=[0],
    )
    auto = copy.deepcopy(closed)
    event(auto, where(auto, lambda e: e["kind"] == "ENTROPY"))["auto"] = True
    case(
        "entropy on a move the server chose",
        auto,
        f"draw {given['draw']}: entropy from seat {given['seat']}, on a move the server chose",
    )

    seat, draw = 1, next(d for d, h in closed_gave[1].items() if h and d > 1)
    mine = closed_gave[1][draw]
    dropped, _ = table("trentuno", "CLASSICO", "abc", 20, 24, lambda s, d, b: b"" if (s, d) == (seat, draw) else b)
    case(
        "a seat's entropy dropped by the server",
        dropped,
        f"draw {draw}: the entropy seat {seat} gave ({short(mine)}) is not in the record",
        seat=seat,
        gave={str(draw): mine},
    )
    ground = bytes(range(16))  # the server's own bytes, told as the seat's
    swapped, _ = table("trentuno", "CLASSICO", "abc", 20, 24, lambda s, d, b: ground if (s, d) == (seat, draw) else b)
    case(
        "a seat's entropy replaced by the server's",
        swapped,
        f"draw {draw}: the record tells entropy {short(ground.hex())} from seat {seat}, which gave {short(mine)}",
        seat=seat,
        gave={str(draw): mine},
    )
    return {
        "about": "docs/fairness.md, 'Checking a record': records (NDJSON lines, one a list item), the options each is "
        "checked with and the error every verifier names (null: accepted). Written by "
        "`python -m tests.fairness.test_records`.",
        "cases": cases,
    }


def _flip(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def check(case: dict[str, Any]) -> str | None:
    options = case["options"]
    gave = {int(d): h for d, h in options.get("gave", {}).items()}
    events = events_of(json.dumps(line) for line in case["lines"])
    result = verify_record(
        events,
        partial=options.get("partial", False),
        seat=options.get("seat"),
        gave=gave if "seat" in options else None,
        server_seats=options.get("server_seats", ()),
    )
    assert result.ok == (result.error == "")
    return result.error or None


CASES = json.loads(RECORDS.read_text())["cases"] if RECORDS.exists() else []


def test_the_records_are_as_pinned() -> None:
    assert json.loads(RECORDS.read_text()) == render(), "the records changed: python -m tests.fairness.test_records"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_verifier_judges_each_record_naming_what_failed(case: dict[str, Any]) -> None:
    assert check(case) == case["error"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_mazziere_verify_judges_each_record_alike(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.ndjson"
    record.write_text("".join(json.dumps(line) + "\n" for line in case["lines"]))
    options = case["options"]
    args = ["verify", str(record), *(["--partial"] if options.get("partial") else [])]
    args += [f"--server-seat={s}" for s in options.get("server_seats", ())]
    if "seat" in options:
        args += [f"--seat={options['seat']}", *(f"--gave={d}={h}" for d, h in options["gave"].items())]
    code = main(args)
    out = capsys.readouterr().out.strip()
    if case["error"] is None:
        assert code == 0 and out.startswith("verified:"), out
    else:
        assert (code, out) == (1, f"NOT VERIFIED: {case['error']}")


if __name__ == "__main__":
    RECORDS.write_text(json.dumps(render(), ensure_ascii=False, indent=None, separators=(",", ":")) + "\n")
    sys.exit(0)
