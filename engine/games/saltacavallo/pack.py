"""The Italian pack as Saltacavallo reads it (SC-1): the ranks that decide a hand, and each card face up."""

from __future__ import annotations

from mazziere.engine.cards import ITALIAN_40, Card
from mazziere.engine.visibility import PUBLIC, TableCard

FANTE = 8
CAVALLO = 9
"""SC-6: safe when dealt; SC-8: a wall the swap jumps over; SC-10 Cucù: drawn, the dealer draws again."""
RE = 10
"""SC-6: safe when dealt; SC-9: a wall that stops the swap; SC-10 Cucù: drawn, the dealer keeps his card."""

FACE_UP: dict[Card, TableCard] = {c: TableCard(c, PUBLIC) for c in ITALIAN_40}
"""Every card of the pack face up, made once (the hot path turns many cards up)."""
