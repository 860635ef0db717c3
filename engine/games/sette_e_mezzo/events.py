"""Sette e mezzo's kinds of event (:class:`~engine.events.EventKind`): the fields each carries, the rule it tells.

The kinds every game tells (``HAND_OVER``, ``GAME_OVER``, the dealing's) are :mod:`engine.events`'s.
"""

from __future__ import annotations

from mazziere.engine.events import EventKind

# -- the bank and the pack

FIRST_BANK = EventKind("FIRST_BANK", "seat")
"""SM-6: the first bank."""
DREW = EventKind("DREW", "seat cards")
"""SM-6 HIGHEST_CARD: a seat's card, face up, in the draw for the first bank."""
BANK_PASSED = EventKind("BANK_PASSED", "seat target")
"""SM-16, SM-17, SM-23: the bank passes from ``seat`` to ``target``."""
SHUFFLED = EventKind("SHUFFLED", "amount")
"""SM-7, SM-18: the stock is shuffled (``amount`` cards)."""
DEALT = EventKind("DEALT", "seat cards")
"""SM-7: a seat's first card."""

# -- the turns

STAKED = EventKind("STAKED", "seat amount")
"""SM-8: a player's stake."""
HIT = EventKind("HIT", "seat cards amount points")
"""SM-9, SM-12: a card face up (``amount``: a raise with it)."""
HIT_HIDDEN = EventKind("HIT_HIDDEN", "seat cards amount")
"""SM-9 option: a card face down, the hidden one turned up."""
STOOD = EventKind("STOOD", "seat amount points")
"""SM-9, SM-12: a player or the bank stands."""
BURNED = EventKind("BURNED", "seat cards")
"""SM-20: a card burned, face up."""
REPLACED = EventKind("REPLACED", "seat cards")
"""SM-20: the burned card's replacement."""
REVEALED = EventKind("REVEALED", "seat cards points")
"""SM-11, SM-12: a face-down card turned up."""
SETTE_E_MEZZO = EventKind("SETTE_E_MEZZO", "seat points")
"""SM-11, SM-22: 7½ (or a triplé) reached."""
BUST = EventKind("BUST", "seat target amount points")
"""SM-10: over 7½; a player pays the bank ``target`` his stake at once."""

# -- the showdown

PAID = EventKind("PAID", "seat target amount points")
"""SM-13..15: the bank ``target`` pays the player ``seat``."""
COLLECTED = EventKind("COLLECTED", "seat target amount points")
"""SM-13: the player ``seat`` pays the bank ``target``."""
PUSH = EventKind("PUSH", "seat target points")
"""SM-13: a tie; no money moves."""
