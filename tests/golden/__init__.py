"""Golden playthroughs, as OpenSpiel keeps them: seeded games played by a fixed policy, recorded as text.

Each :class:`Case` (a game, a preset, a seat count) is played from a fixed seed by :func:`policy`, a
deterministic choice among the legal actions, and written by :func:`render` as readable text: every action,
what each seat and the spectator saw of its events (redacted), the settlement, the chips and who acts next,
and the views at the start, after every hand and at the end. ``tests/golden/test_golden.py`` replays every
case and diffs it with its file; only ``make golden`` (``python -m tests.golden --update``) rewrites them.

A file pins what players see, never the state's bytes: the state's encoding may change freely, the game may not.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mazziere import engine
from mazziere.engine import codec
from mazziere.engine.table import Action, Event, Outcome, Seat
from mazziere.engine.visibility import redact

HERE = Path(__file__).parent
MAX_LINES = 400
"""A golden file stays readable: a case that needs more lines plays fewer actions."""


@dataclass(frozen=True)
class Case:
    game: str
    preset: str
    seats: int
    chips: int = 100
    max_actions: int = 60
    options: tuple[tuple[str, Any], ...] = ()
    """Options over the preset, as (name, value) pairs; a case with options names them with ``label``."""
    label: str = ""

    @property
    def name(self) -> str:
        return f"{self.game}-{self.preset.lower()}{f'-{self.label}' if self.label else ''}-{self.seats}"

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.txt"

    @property
    def seed(self) -> bytes:
        return f"golden/{self.name}".encode()


CASES: tuple[Case, ...] = (
    Case("sette_e_mezzo", "CLASSICO", 2, chips=12, max_actions=80),
    Case("sette_e_mezzo", "CLASSICO", 4),
    Case("sette_e_mezzo", "NAPOLETANO", 3),
    Case("sette_e_mezzo", "NAPOLETANO", 5, max_actions=40),
    Case("sette_e_mezzo", "DELLARTI", 3),
    Case("sette_e_mezzo", "DELLARTI", 5, max_actions=40),
    Case("sette_e_mezzo", "CASINO", 2),
    Case("sette_e_mezzo", "CASINO", 4),
    Case("saltacavallo", "NAPOLETANO", 3, chips=3, max_actions=80),
    Case("saltacavallo", "NAPOLETANO", 5, chips=5, max_actions=50),
    Case("saltacavallo", "CUCU", 3, chips=3, max_actions=80),
    Case("saltacavallo", "CUCU", 4, chips=4, max_actions=60),
    Case("trentuno", "CLASSICO", 3, chips=3, max_actions=80),
    Case("trentuno", "CLASSICO", 5, max_actions=50),
    Case("trentuno", "VITE", 3, chips=10, max_actions=80),
    Case("trentuno", "VITE", 4, chips=10, max_actions=60),
    Case("trentuno", "LETTERALE", 3, max_actions=60),
    Case("sette_e_mezzo", "CLASSICO", 4, chips=20, max_actions=60, options=(("sit_out", True),), label="sit-out"),
    Case("saltacavallo", "NAPOLETANO", 4, chips=3, max_actions=60, options=(("sit_out", True),), label="sit-out"),
)


def policy(case: Case, step: int, state: engine.TableState) -> Action:
    """The fixed policy: SHA-256 of the case and the step picks the seat, the legal entry and the amount."""
    h = int.from_bytes(hashlib.sha256(f"{case.name}/{step}".encode()).digest()[:12], "big")
    seats = engine.to_act(state)
    seat = seats[h % len(seats)]
    entries = engine.legal_actions(state, seat)
    entry = entries[(h >> 16) % len(entries)]
    amount = entry.min_amount + (h >> 48) % (entry.max_amount - entry.min_amount + 1)
    return Action(seat, entry.kind, amount, entry.target, entry.cards)


def play(case: Case) -> tuple[Outcome, list[tuple[Action, Outcome]]]:
    """The case's table and every (action, outcome) of its playthrough."""
    people = [Seat(f"p{i}", case.chips) for i in range(case.seats)]
    first = engine.new_table(
        case.game, people, seed=case.seed, preset=case.preset, options=dict(case.options), table_id=case.name
    )
    state = first.state
    steps: list[tuple[Action, Outcome]] = []
    while not engine.is_over(state) and len(steps) < case.max_actions:
        action = policy(case, len(steps), state)
        outcome = engine.apply(state, action)
        steps.append((action, outcome))
        state = outcome.state
    return first, steps


# -- the text ------------------------------------------------------------------------------------------------


def _who(viewer: int | None) -> str:
    return "*" if viewer is None else str(viewer)


def _grouped(state: engine.TableState, text: Any) -> list[str]:
    """``viewer: text`` lines, viewers that see the same text sharing one line (``0 2 *: ...``)."""
    groups: dict[str, list[str]] = {}
    for viewer in [*range(state.seat_count), None]:
        groups.setdefault(text(viewer), []).append(_who(viewer))
    return [f"  {' '.join(viewers)}: {seen}" for seen, viewers in groups.items()]


def event_text(event: Event) -> str:
    parts = [event.kind]
    if event.seat is not None:
        parts.append(f"s{event.seat}")
    if event.target is not None:
        parts.append(f">s{event.target}")
    if event.cards:
        parts.append("[" + " ".join("?" if tc.card is None else str(tc.card) for tc in event.cards) + "]")
    if event.amount:
        parts.append(f"amount={event.amount}")
    if event.points:
        parts.append(f"points={event.points}")
    return " ".join(parts)


def events_text(events: Sequence[Event], viewer: int | None) -> str:
    return "; ".join(event_text(e) for e in redact(tuple(events), viewer)) or "-"


def action_text(action: Action) -> str:
    parts = [f"s{action.seat}", action.kind]
    if action.amount:
        parts.append(str(action.amount))
    if action.target is not None:
        parts.append(f">s{action.target}")
    if action.cards:
        parts.append("[" + " ".join(map(str, action.cards)) + "]")
    return " ".join(parts)


def view_text(state: engine.TableState, viewer: int | None) -> str:
    return json.dumps(codec.to_data(engine.view(state, viewer)), separators=(",", ":"), ensure_ascii=False)


def _trailer(outcome: Outcome) -> str:
    state = outcome.state
    parts = []
    if outcome.settlement:
        pays = ", ".join(
            f"{'pot' if t.payer < 0 else f's{t.payer}'}>{'pot' if t.payee < 0 else f's{t.payee}'} {t.amount} {t.reason}"
            for t in outcome.settlement
        )
        parts.append(f"pay {pays}")
    parts.append(f"chips {' '.join(map(str, state.chips))} pot {state.pot}")
    acting = engine.to_act(state)
    parts.append(f"to act {' '.join(map(str, acting))}" if acting else "over")
    return "  = " + " | ".join(parts)


def render(case: Case) -> str:
    first, steps = play(case)
    state = first.state
    lines = [
        f"# Golden playthrough: {case.game}, preset {case.preset}, {case.seats} seats of {case.chips} chips, "
        f"seed {case.seed.decode()!r}, at most {case.max_actions} actions.",
        *([f"# Options: {json.dumps(dict(case.options), separators=(',', ':'))}."] if case.options else []),
        "# Written by `make golden` (python -m tests.golden --update); tests/golden/test_golden.py replays and diffs.",
        "# '#N sS KIND' is an action; 'a b *: ...' what seats a, b and the spectator (*) saw of its events;",
        "# '= ...' the settlement, the chips and who acts next; 'view a b *: ...' the views (engine.codec.to_data).",
        "start",
        *_grouped(state, lambda v: events_text(first.events, v)),
        _trailer(first),
        *(f"view{line[1:]}" for line in _grouped(state, lambda v: view_text(state, v))),
    ]
    for i, (action, outcome) in enumerate(steps, 1):
        state = outcome.state
        lines.append(f"#{i} {action_text(action)}")
        lines.extend(_grouped(state, lambda v, o=outcome: events_text(o.events, v)))
        lines.append(_trailer(outcome))
        ended = any(e.kind in ("HAND_OVER", "GAME_OVER") for e in outcome.events)
        if ended or i == len(steps):
            lines.extend(f"view{line[1:]}" for line in _grouped(state, lambda v, s=state: view_text(s, v)))
    lines.append("end: game over" if engine.is_over(state) else f"end: stopped after {len(steps)} actions")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> int:
    if list(argv) != ["--update"]:
        print("usage: python -m tests.golden --update   (rewrites every golden file; review the diff)")
        return 2
    for case in CASES:
        text = render(case)
        case.path.write_text(text)
        print(f"{case.path.relative_to(HERE.parent.parent)}: {text.count(chr(10))} lines")
    known = {case.path for case in CASES}
    for stale in sorted(set(HERE.glob("*.txt")) - known):
        stale.unlink()
        print(f"{stale.relative_to(HERE.parent.parent)}: removed (no such case)")
    return 0
