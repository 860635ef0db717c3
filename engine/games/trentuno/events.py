"""Trentuno's kinds of event (:class:`~engine.events.EventKind`): the fields each carries, the rule it tells.

The kinds every game tells (``HAND_OVER``, ``GAME_OVER``, the dealing's) are :mod:`engine.events`'s.
"""

from __future__ import annotations

from mazziere.engine.events import EventKind

# -- the deal

DEALER = EventKind("DEALER", "seat")
"""TR-2, TR-13: the seat that deals next."""
DEAL = EventKind("DEAL", "seat amount")
"""TR-3, TR-4: the dealer deals, the pot holding ``amount``."""
HAND = EventKind("HAND", "seat cards")
"""TR-4: a seat's three cards."""
WIDOW = EventKind("WIDOW", "cards")
"""TR-4: the widow, face up."""
WIDOW_TRENTUNO = EventKind("WIDOW_TRENTUNO", "seat cards")
"""TR-6: the widow is a Trentuno; the dealer takes it."""

# -- the turns

EXCHANGE = EventKind("EXCHANGE", "seat cards")
"""TR-9: a card given to the widow and the one taken from it."""
TAKE_ALL = EventKind("TAKE_ALL", "seat cards")
"""TR-9: the whole widow taken; ``cards`` is the new widow."""
STOP = EventKind("STOP", "seat")
"""TR-11: a seat stops; the last round begins."""
PASS = EventKind("PASS", "seat")
"""TR-11: a seat passes in the last round."""
ROUND_LIMIT = EventKind("ROUND_LIMIT", "seat amount")
"""TR-14: ``amount`` rounds played; the dealer is deemed to have stopped."""

# -- the showdown

SHOW = EventKind("SHOW", "seat cards points")
"""TR-12: a hand shown at the end of the deal."""
WIN = EventKind("WIN", "seat amount points")
"""TR-12: a winner and his share of the pot."""
LIFE_LOST = EventKind("LIFE_LOST", "seat amount points")
"""TR-12 LIVES: a seat loses a life (``amount``: the lives it has left)."""
