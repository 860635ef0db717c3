"""Saltacavallo's kinds of event (:class:`~engine.events.EventKind`): the fields each carries, the rule it tells.

The kinds every game tells (``HAND_OVER``, ``GAME_OVER``, the dealing's) are :mod:`engine.events`'s.
"""

from __future__ import annotations

from mazziere.engine.events import EventKind

# -- the dealer and the deal

CHOOSE_DEALER = EventKind("CHOOSE_DEALER", "seat")
"""SC-4: the seat that deals the pack face up to choose the first dealer."""
CHOOSE_CARD = EventKind("CHOOSE_CARD", "seat cards")
"""SC-4: a card dealt face up to a seat while choosing the first dealer."""
FIRST_DEALER = EventKind("FIRST_DEALER", "seat")
"""SC-4: the first dealer."""
SHUFFLE = EventKind("SHUFFLE", "seat")
"""SC-5: the dealer shuffles."""
CUT = EventKind("CUT", "seat target")
"""SC-5: ``seat`` cuts for the dealer ``target``."""
CARD_DEALT = EventKind("CARD_DEALT", "seat cards")
"""SC-6: a seat's card."""
NEXT_DEALER = EventKind("NEXT_DEALER", "seat")
"""SC-14: the deal passes on."""

# -- the turns

KEEP = EventKind("KEEP", "seat")
"""SC-7, SC-10: a seat keeps its card."""
SWAP = EventKind("SWAP", "seat target cards")
"""SC-7: two seats change cards, face down (each side sees both)."""
REVEAL = EventKind("REVEAL", "seat cards")
"""SC-10: a card turned face up."""
DRAW = EventKind("DRAW", "seat cards")
"""SC-10: the dealer draws from the stock."""
DRAW_AGAIN = EventKind("DRAW_AGAIN", "seat cards")
"""SC-10 Cucù: a drawn cavallo; the dealer draws again."""
DRAW_VOID = EventKind("DRAW_VOID", "seat cards")
"""SC-10 Cucù: a drawn re; the dealer keeps his own card."""

# -- lives and the pot

REPLAY = EventKind("REPLAY", "seat points")
"""SC-12 REPLAY: every living seat would die; the hand is played again."""
LIFE_LOST = EventKind("LIFE_LOST", "seat amount points")
"""SC-11: a seat loses a life, and its coin to the pot."""
DEAD = EventKind("DEAD", "seat")
"""SC-11: a seat has no life left."""
REVIVE = EventKind("REVIVE", "seat target amount")
"""SC-13: ``target`` gives a life to the dead ``seat``."""
POT_WON = EventKind("POT_WON", "seat amount")
"""SC-15: the last living seat takes the pot."""
POT_SHARE = EventKind("POT_SHARE", "seat amount")
"""SC-12 SPLIT_POT, SC-15: a seat's share of a split pot."""
