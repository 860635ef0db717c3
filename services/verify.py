"""Check a table's public record against committed dealing (docs/fairness.md), from the record alone.

This module needs only the standard library and imports nothing of the engine: it is the verifier a player
or a regulator runs (``mazziere verify RECORD.ndjson``), and the Python client ships the same file
(``mazziere_client.verify``). Events are the JSON form of ``mazziere.v1.Event`` (REST, ``StreamReplay`` and
``Watch`` give it).

>>> verify_record([{"kind": "COMMITTED", "draw": 0, "data": "00" * 32}]).ok
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
    """The events of an NDJSON record: every ``events`` array of each line, in order (a bare event counts)."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "kind" in value and isinstance(value.get("kind"), str):
                found.append(value)
                return
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for number_, line in enumerate(lines, 1):
        if line.strip():
            try:
                walk(json.loads(line))
            except json.JSONDecodeError as exc:
                raise Mismatch(f"line {number_} is not JSON ({exc.msg})") from None
    return found


def _hex(event: dict[str, Any], i: int) -> bytes:
    try:
        return bytes.fromhex(event.get("data", ""))
    except ValueError:
        raise Mismatch(f"event {i} ({event['kind']}): data is not hex") from None


def _face(card: dict[str, Any]) -> str | None:
    return card.get("card") or None


def verify_record(events: Iterable[dict[str, Any]]) -> Result:
    """Check a record's events (docs/fairness.md, "Checking a record"); never raises for a bad record."""
    try:
        return _verify(list(events))
    except Mismatch as exc:
        return Result(ok=False, error=str(exc))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return Result(ok=False, error=f"the record is malformed ({type(exc).__name__}: {exc})")


def _verify(events: list[dict[str, Any]]) -> Result:
    commitments: dict[int, bytes] = {}
    entropy: dict[int, bytes] = {}
    dealt: dict[int, list[tuple[int, str | None, int]]] = {}  # draw -> (place, face or None, event index)
    revealed: dict[int, int] = {}  # draw -> index of its SEED event
    shown_later: list[tuple[str, int]] = []
    result = Result(ok=True)
    for i, e in enumerate(events):
        kind, draw = e["kind"], e.get("draw")
        if kind == "COMMITTED":
            data = _hex(e, i)
            if commitments.setdefault(draw, data) != data:
                raise Mismatch(f"event {i}: draw {draw} has a second, different commitment")
        elif kind == "ENTROPY":
            if draw in dealt or draw in revealed:
                raise Mismatch(f"event {i}: entropy for draw {draw} comes after that draw")
            given = _hex(e, i)
            entropy[draw] = entropy.get(draw, b"") + bytes((e["seat"], len(given))) + given
        elif kind == "SEED":
            if draw not in commitments:
                raise Mismatch(f"event {i}: the seed of draw {draw} comes with no commitment before it")
            seed = _hex(e, i)
            if commitment(seed) != commitments[draw]:
                raise Mismatch(f"event {i}: the seed of draw {draw} does not match its commitment")
            revealed[draw] = i
            _check_draw(e, draw, seed, entropy.get(draw, b""), dealt.get(draw, []), result)
        elif e.get("at"):
            if draw not in commitments:
                raise Mismatch(f"event {i} ({kind}): a card of draw {draw} is dealt before its commitment")
            for place, card in zip(e["at"], e["cards"], strict=True):
                dealt.setdefault(draw, []).append((place, _face(card), i))
        else:
            shown_later += [(face, i) for face in map(_face, e.get("cards", ())) if face]
    _check_shown_later(shown_later, dealt, revealed, result)
    result.unrevealed = sorted(d for d in dealt if d not in revealed)
    return result


def _check_draw(
    e: dict[str, Any], draw: int, seed: bytes, mixed: bytes, dealt: list[tuple[int, str | None, int]], result: Result
) -> None:
    cards = [_face(c) for c in e.get("cards", ())]
    if not cards:  # a number draw
        n, value = int(e["amount"]), e.get("target")
        if number(n, seed, mixed) != value:
            raise Mismatch(f"draw {draw}: the number drawn below {n} is {number(n, seed, mixed)}, not {value}")
        result.checked_draws.append(draw)
        return
    if None in cards or len(set(cards)) != len(cards) or cards != sorted(cards):  # type: ignore[type-var]
        raise Mismatch(f"draw {draw}: the revealed pack is not distinct cards in canonical order")
    order = shuffle(cards, seed, mixed)  # type: ignore[arg-type]
    for place, face, i in dealt:
        if not 0 <= place < len(order):
            raise Mismatch(f"event {i}: draw {draw} has no place {place} (the pack holds {len(order)} cards)")
        if face is not None and face != order[place]:
            raise Mismatch(
                f"event {i}: draw {draw}, place {place}: the record shows {face}, the pack puts {order[place]} there"
            )
        result.checked_cards += 1
    result.checked_draws.append(draw)
    result.dealt[draw] = order


def _check_shown_later(
    shown: list[tuple[str, int]],
    dealt: dict[int, list[tuple[int, str | None, int]]],
    revealed: dict[int, int],
    result: Result,
) -> None:
    """A card turned up after its deal must be one a pack in play had dealt before (check 5)."""
    for face, i in shown:
        live = [
            d for d, places in dealt.items() if places and places[0][2] < i and revealed.get(d, len(shown) + i + 1) > i
        ]
        if any(d not in revealed for d in live):
            continue  # a pack in play is not revealed yet: this card cannot be placed
        known = {result.dealt[d][p] for d in live for p, _, j in dealt[d] if j < i}
        if live and face not in known:
            raise Mismatch(f"event {i}: {face} is shown, but no pack in play had dealt it")
