"""Trentuno's play-outs for sampled advice, on plain integers instead of engine states (docs/bots.md,
"Saltacavallo and Trentuno"). One module per concern:

* :mod:`.ranks`: every three-card hand's place in the order of hands, and where the cautious policy stops;
* :mod:`.playout`: a deal in play dealt from an ordering of the unseen cards, and each action played out by the
  ``cautious`` policy to the deal's end, with the chips and the outcome ``engine.apply`` would give.
"""

from mazziere.engine.bots.trentuno.playout import Deal, DealStart, start

__all__ = ["Deal", "DealStart", "start"]
