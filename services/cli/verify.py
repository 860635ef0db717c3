"""Check a table's public record against committed dealing (docs/fairness.md), from the record alone.

This module needs only the standard library and imports nothing of the engine: it is the verifier a player
or a regulator runs (``mazziere verify RECORD.ndjson``), and the Python client ships the same file
(``mazziere_client.verify``). Events are the JSON form of ``mazziere.v1.Event`` (REST, ``StreamReplay`` and
``Watch`` give it).

>>> verify_record([{"kind": "COMMITTED", "draw": 0, "data": "00" * 32, "amount": "2"}]).ok
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

COMMIT_DOMAIN = b"mazziere/commit/v2"
MIX_DOMAIN = b"mazziere/mix/v2"
DEAL_DOMAIN = b"mazziere/deal/v2"
SEED_DOMAIN = b"mazziere/seed/v2"
ALGORITHMS = frozenset({2})
"""The dealing algorithms this verifier knows, by the number a ``COMMITTED`` event names in ``amount`` (a record
written before the number was told names none: algorithm 2, the same bytes)."""
NEXT_DRAW = "NEXT_DRAW"
"""The kind :func:`events_of` gives an update's ``next_draw`` and ``commitment``: a claim checked like an event."""
CLOSED = "CLOSED"
"""The kind :func:`events_of` gives an update marked ``closed`` (the table was closed: every pack is gathered)."""


class Mismatch(Exception):
    """The record does not hold: the message names the first card, commitment or seed that does not match."""


@dataclass
class Result:
    """What a check found: ``ok``, or ``error`` naming the first mismatch."""

    ok: bool
    error: str = ""
    checked_draws: list[int] = field(default_factory=list)
    checked_cards: int = 0
    unrevealed: list[int] = field(default_factory=list)
    unverifiable: list[int] = field(default_factory=list)
    """With ``partial``: draws revealed whose commitment the record lacks, or knows only from an update (its seed is
    checked against that, but entropy given before the record began may be missing: the order is not recomputed)."""
    dealt: dict[int, list[str]] = field(default_factory=dict)
    """Every revealed pack's order (top card first), hidden cards included."""

    def summary(self) -> str:
        if not self.ok:
            return f"NOT VERIFIED: {self.error}"
        waiting = f"; not revealed yet: draws {', '.join(map(str, self.unrevealed))}" if self.unrevealed else ""
        return f"verified: {len(self.checked_draws)} draws, {self.checked_cards} cards{waiting}"


# -- the algorithm ---------------------------------------------------------------------------------------


def draw_seed(secret: bytes, draw: int) -> bytes:
    """A draw's seed from the table's secret (only the server knows the secret)."""
    return hmac.new(secret, SEED_DOMAIN + draw.to_bytes(8, "big"), hashlib.sha256).digest()


def commitment(seed: bytes) -> bytes:
    return hashlib.sha256(COMMIT_DOMAIN + seed).digest()


def _words(seed: bytes, entropy: bytes) -> Iterator[int]:
    source = DEAL_DOMAIN + hashlib.sha256(MIX_DOMAIN + seed + entropy).digest()
    size = 256
    offset = 0
    while True:
        stream = hashlib.shake_256(source).digest(size)
        while offset + 4 <= size:
            yield int.from_bytes(stream[offset : offset + 4], "big")
            offset += 4
        size *= 2


def _below(words: Iterator[int], n: int) -> int:
    limit = 2**32 - 2**32 % n
    while True:
        w = next(words)
        if w < limit:
            return w % n


def shuffle(cards: list[str], seed: bytes, entropy: bytes = b"") -> list[str]:
    """A pack (in canonical order) shuffled by a draw's seed and entropy: the top card first."""
    out, words = list(cards), _words(seed, entropy)
    for i in range(len(out) - 1, 0, -1):
        j = _below(words, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def number(n: int, seed: bytes, entropy: bytes = b"") -> int:
    return _below(_words(seed, entropy), n)


# -- the record --------------------------------------------------------------------------------------------


def events_of(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The events of an NDJSON record, one JSON object a line: every ``events`` array in a line (depth first,
    in order), or the line itself when it is an event (it has ``kind``). Blank lines are skipped. An object with
    ``next_draw`` (``nextDraw``) and ``commitment`` (an update) adds, after its own events, a ``NEXT_DRAW`` event
    naming them; one with ``closed`` true adds a ``CLOSED`` event."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key == "events" and isinstance(item, list):
                    found.extend(e for e in item if isinstance(e, dict))
                else:
                    walk(item)
            found.extend(claims(value))

    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Mismatch(f"line {i}: not JSON ({exc.msg})") from None
        if isinstance(value, dict) and isinstance(value.get("kind"), str):
            found.append(value)
        else:
            walk(value)
    return found


def claims(update: dict[str, Any]) -> list[dict[str, Any]]:
    """What an update (a JSON object) claims beside its events: its next draw's commitment, and the table's close."""
    found: list[dict[str, Any]] = []
    draw = update.get("nextDraw", update.get("next_draw"))
    if draw is not None and isinstance(update.get("commitment"), str) and update["commitment"]:
        found.append({"kind": NEXT_DRAW, "draw": draw, "data": update["commitment"]})
    if update.get("closed") is True:
        found.append({"kind": CLOSED})
    return found


def verify_record(
    events: Iterable[dict[str, Any]],
    *,
    partial: bool = False,
    seat: int | None = None,
    gave: dict[int, str] | None = None,
    server_seats: Iterable[int] = (),
) -> Result:
    """The checks of docs/fairness.md over one table's record, in the order the events were told; the first
    mismatch by its place in the record. ``partial``: the record may begin mid-table (a draw whose commitment
    it lacks is not a failure, nor a card shown that it never saw dealt). ``seat`` and ``gave``: the entropy
    this seat gave, by draw, in hex (``""``: it gave none to that draw), each checked against the record.
    ``server_seats``: seats the server plays (bots, the house), which may never give entropy. Never raises for a
    bad record."""
    own = (seat, {int(d): str(h).lower() for d, h in (gave or {}).items()}) if seat is not None else None
    try:
        return _Check(partial, own, frozenset(server_seats)).run(list(events))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return Result(ok=False, error=f"the record is malformed ({type(exc).__name__}: {exc})")


def _short(text: str) -> str:
    return f"{text[:12]}…" if len(text) > 16 else text or '""'


class _Check:
    """The checks of :func:`verify_record`, event by event (the same as ``verifyRecord`` in TypeScript)."""

    def __init__(self, partial: bool, own: tuple[int, dict[int, str]] | None, server_seats: frozenset[int]) -> None:
        self.partial = partial
        self.own = own
        self.server_seats = server_seats
        self.first: tuple[int, str] | None = None
        self.commitments: dict[int, str] = {}
        self.shown_by_update: set[int] = set()  # draws whose commitment the record knows only from an update
        self.entropy: dict[int, bytes] = {}
        self.given: dict[tuple[int, int], str] = {}  # (draw, seat) -> the entropy told, in hex
        self.ended: tuple[int, str] | None = None  # the first GAME_OVER or close: (event, kind)
        self.size = 0
        self.first_card: dict[int, int] = {}
        self.seeds: dict[int, str] = {}
        self.packs: dict[int, tuple[list[str] | None, int]] = {}  # draw -> (order or None for a number, revealed at)
        self.dealt: list[tuple[int, int, list[int], list[str | None]]] = []  # (event, draw, places, faces)
        self.shown: list[tuple[int, str, str]] = []  # (event, kind, face)
        self.result = Result(ok=True)

    def fail(self, at: int, text: str) -> None:
        if self.first is None or at < self.first[0]:
            self.first = (at, text)

    def run(self, events: list[dict[str, Any]]) -> Result:
        self.size = len(events)
        for t, event in enumerate(events):
            self.event(t, event)
        self.check_dealt()
        self.check_shown()
        self.check_gathered()
        self.check_own()
        r = self.result
        r.unrevealed = sorted({d for _, d, _, _ in self.dealt} - set(self.seeds))
        r.dealt = {d: order for d, (order, _) in self.packs.items() if order is not None}
        if self.first is not None:
            r.ok, r.error = False, self.first[1]
        return r

    def event(self, t: int, e: dict[str, Any]) -> None:
        kind = str(e.get("kind", ""))
        draw = e.get("draw")
        given = e.get("cards")
        cards: list[dict[str, Any]] = given if isinstance(given, list) else []
        if draw is not None and (type(draw) is not int or draw < 0):
            return self.fail(t, f"event {t} ({kind}): draw {draw} is not a draw number")
        if kind in ("GAME_OVER", CLOSED) and self.ended is None:
            self.ended = (t, kind)
        if kind in ("COMMITTED", "ENTROPY", "SEED", NEXT_DRAW):
            return self.fairness(t, e, kind, draw, cards)
        if cards and draw is not None:
            return self.dealt_from(t, e, kind, draw, cards)
        self.shown += [(t, kind, c["card"]) for c in cards if c.get("card")]
        return None

    def fairness(self, t: int, e: dict[str, Any], kind: str, draw: int | None, cards: list[dict[str, Any]]) -> None:
        """A COMMITTED, ENTROPY, SEED or an update's NEXT_DRAW: each names its draw."""
        if draw is None:
            return self.fail(t, f"event {t} ({kind}): no draw")
        if kind == "SEED":
            return self.seed(t, e, draw, cards)
        if kind == NEXT_DRAW:
            return self.claimed(t, e, draw)
        return self.committed(t, e, draw) if kind == "COMMITTED" else self.contributed(t, e, draw)

    def committed(self, t: int, e: dict[str, Any], draw: int) -> None:
        algorithm = int(e.get("amount") or 0) or 2
        if algorithm not in ALGORITHMS:  # 0. a record of an algorithm this verifier does not know
            known = ", ".join(map(str, sorted(ALGORITHMS)))
            return self.fail(
                t, f"draw {draw}: committed by dealing algorithm {algorithm}, not one known here ({known})"
            )
        data, before = str(e.get("data", "")).lower(), self.commitments.get(draw)
        if before is not None and before != data:  # 1. no draw has two different commitments
            if draw in self.shown_by_update:
                return self.fail(
                    t, f"draw {draw}: an update showed the commitment {_short(before)}, then {_short(data)}"
                )
            return self.fail(t, f"draw {draw}: two commitments, {_short(before)} and then {_short(data)}")
        self.commitments[draw] = data
        self.shown_by_update.discard(draw)
        return None

    def claimed(self, t: int, e: dict[str, Any], draw: int) -> None:
        """6. An update's next draw and commitment are its draw's COMMITTED; on a late page, the commitment it was
        shown stands for one (checked against the seed when it is revealed)."""
        data, before = str(e.get("data", "")).lower(), self.commitments.get(draw)
        if before is None:
            if not self.partial:
                return self.fail(t, f"draw {draw}: an update names its commitment, but no COMMITTED for it came before")
            self.commitments[draw] = data
            self.shown_by_update.add(draw)
            return None
        if before != data:
            return self.fail(
                t, f"draw {draw}: an update names the commitment {_short(data)}, the record committed {_short(before)}"
            )
        return None

    def contributed(self, t: int, e: dict[str, Any], draw: int) -> None:
        seat = int(e["seat"])
        if draw not in self.commitments:
            if self.partial:
                return None  # its draw began before the record
            return self.fail(t, f"draw {draw}: entropy from seat {seat} appears before the draw's commitment")  # 2.
        if draw in self.first_card or draw in self.seeds:  # 2. no entropy after a card of its draw
            return self.fail(
                t, f"draw {draw}: entropy from seat {seat} appears after the draw was dealt from or revealed"
            )
        if (draw, seat) in self.given:  # 2. once per seat and draw
            return self.fail(t, f"draw {draw}: seat {seat} gives entropy twice")
        if e.get("auto") is True or seat in self.server_seats:  # 7. never from a seat the server plays
            return self.fail(t, f"draw {draw}: entropy from seat {seat}, on a move the server chose")
        given = bytes.fromhex(str(e.get("data", "")))
        if not 1 <= len(given) <= 32:
            return self.fail(t, f"draw {draw}: entropy from seat {seat} of {len(given)} bytes, not 1 to 32")
        self.given[draw, seat] = given.hex()
        self.entropy[draw] = self.entropy.get(draw, b"") + bytes((seat, len(given))) + given
        return None

    def dealt_from(self, t: int, e: dict[str, Any], kind: str, draw: int, cards: list[dict[str, Any]]) -> None:
        places = [int(p) for p in e.get("at", ())]
        if len(places) != len(cards):
            return self.fail(t, f"event {t} ({kind}): {len(cards)} cards of draw {draw} but {len(places)} places")
        if draw not in self.commitments:
            if self.partial:
                return None  # dealt from a pack shuffled before the record began
            return self.fail(t, f"draw {draw}: a card of it appears before its commitment")  # 1.
        self.first_card.setdefault(draw, t)
        self.dealt.append((t, draw, places, [c.get("card") or None for c in cards]))
        return None

    def seed(self, t: int, e: dict[str, Any], draw: int, cards: list[dict[str, Any]]) -> None:
        data = str(e.get("data", "")).lower()
        if draw in self.seeds:
            if self.seeds[draw] != data:
                self.fail(t, f"draw {draw}: two seeds, {_short(self.seeds[draw])} and then {_short(data)}")
            return  # the same reveal told again
        self.seeds[draw] = data
        committed = self.commitments.get(draw)
        if committed is None:
            if not self.partial:  # 3. each SEED matches its commitment, which came first
                self.fail(t, f"draw {draw}: its seed is revealed, but no commitment to it came before")
            self.result.unverifiable.append(draw)
            return
        try:
            seed = bytes.fromhex(data)
        except ValueError:
            return self.fail(t, f"draw {draw}: the seed {_short(data)} is not hex")
        if commitment(seed).hex() != committed:
            shown = "the commitment an update showed" if draw in self.shown_by_update else "the commitment"
            return self.fail(t, f"draw {draw}: the seed {_short(data)} does not match {shown} {_short(committed)}")
        if draw in self.shown_by_update:  # its seed is the one committed; its entropy may have come before the record
            self.result.unverifiable.append(draw)
            return None
        self.result.checked_draws.append(draw)
        if cards:
            return self.pack(t, draw, seed, cards)
        return self.number(t, e, draw, seed)

    def pack(self, t: int, draw: int, seed: bytes, cards: list[dict[str, Any]]) -> None:
        """4. A revealed pack's cards are distinct and in canonical order; its order is recomputed."""
        contents = [c.get("card") or "" for c in cards]
        for i, card in enumerate(contents):
            if not card:
                return self.fail(t, f"draw {draw}: the revealed pack hides its card {i}")
            if i and contents[i - 1] >= card:
                what = f"holds {card} twice" if contents[i - 1] == card else "is not in canonical order"
                return self.fail(t, f"draw {draw}: the revealed pack {what} ({contents[i - 1]}, {card})")
        self.packs[draw] = (shuffle(contents, seed, self.entropy.get(draw, b"")), t)
        return None

    def number(self, t: int, e: dict[str, Any], draw: int, seed: bytes) -> None:
        """4. Every number drawn is recomputed."""
        self.packs[draw] = (None, t)
        self.first_card.setdefault(draw, t)
        n, value = int(e.get("amount", 0)), e.get("target")
        if not 1 <= n <= 2**32:
            return self.fail(t, f"draw {draw}: a number drawn below {e.get('amount', 'nothing')}")
        if value is None:
            return self.fail(t, f"draw {draw}: a number draw names no number")
        drawn = number(n, seed, self.entropy.get(draw, b""))
        if int(value) != drawn:
            self.fail(t, f"draw {draw}: the record draws {value} below {n}, the seed draws {drawn}")
        return None

    def check_dealt(self) -> None:
        """4. Every card dealt with its face in the record is the card at its place in its revealed pack."""
        for t, draw, places, faces in self.dealt:
            if draw not in self.packs:
                continue
            order = self.packs[draw][0]
            if order is None:
                self.fail(t, f"draw {draw}: cards dealt from a number draw")
                continue
            for place, face in zip(places, faces, strict=True):
                if not 0 <= place < len(order):
                    self.fail(t, f"draw {draw}, place {place}: the pack has {len(order)} places")
                    continue
                self.result.checked_cards += 1
                if face is not None and face != order[place]:
                    self.fail(
                        t, f"draw {draw}, place {place}: the record shows {face}, the pack puts {order[place]} there"
                    )

    def check_gathered(self) -> None:
        """8. Once the game is over (GAME_OVER) or the table closed, every pack that dealt a card is revealed."""
        if self.ended is None:
            return
        for draw in sorted({d for _, d, _, _ in self.dealt} - set(self.seeds)):
            t, kind = self.ended
            what = "the game is over" if kind == "GAME_OVER" else "the table is closed"
            self.fail(t, f"draw {draw}: {what}, but the pack it dealt is never revealed")

    def check_own(self) -> None:
        """9. The entropy this seat gave is in the record as it gave it, and none it did not give is told as its."""
        if self.own is None:
            return
        seat, gave = self.own
        end = self.size  # after every event: the whole record was read
        for draw, data in sorted(gave.items()):
            if self.partial and draw not in self.commitments:
                continue  # given before the record began: not in it
            told = self.given.get((draw, seat))
            if data and told is None:
                self.fail(end, f"draw {draw}: the entropy seat {seat} gave ({_short(data)}) is not in the record")
            elif told is not None and told != data:
                self.fail(end, f"draw {draw}: the record tells entropy {_short(told)} from seat {seat}, which gave "
                          f"{_short(data) if data else 'none'}")  # fmt: skip

    def check_shown(self) -> None:
        """5. Every card shown face up later was dealt before, by a pack still in play when it is shown."""
        for t, kind, face in self.shown:
            found, possible = self.dealt_in_play(t, face)
            if not found and not possible and not self.partial:
                self.fail(t, f"event {t} ({kind}): {face} is shown face up, but no pack in play had dealt it")

    def dealt_in_play(self, t: int, face: str) -> tuple[bool, bool]:
        """Whether a pack still in play at event ``t`` dealt ``face`` before it, and whether one may have (a card
        dealt face down from a pack not revealed yet)."""
        found = possible = False
        for at, draw, places, faces in self.dealt:
            if at >= t:
                break
            pack = self.packs.get(draw)
            if pack is not None and pack[1] < t:
                continue  # gathered before: no card of it is in play
            order = pack[0] if pack is not None else None
            for place, seen in zip(places, faces, strict=True):
                known = order[place] if order is not None and 0 <= place < len(order) else seen
                found = found or known == face
                possible = possible or known is None  # face down, and its pack not revealed yet
            if found:
                break
        return found, possible
