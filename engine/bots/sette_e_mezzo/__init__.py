"""Counted advice for Sette e mezzo: every card a seat cannot see is enumerated, never sampled (docs/bots.md,
"Sette e mezzo: the model"; tests/bots/brute.py follows the same model). One module per concern:

* :mod:`.counting`: the rules compiled for counting (card classes, hands, unseen cards as counts, totals);
* :mod:`.memo`: the one bounded table every value of the enumeration is memoised in;
* :mod:`.results`: values in chips, payments, mixing and choosing; :mod:`.ends`: a bank's end and the judge;
* :mod:`.bank_play`: the bank's play by the house's rule; :mod:`.later`: the players still to play, counted by
  the cards they draw; :mod:`.rest`: the rest of a hand as a player sees it (the bank's end once they have played);
* :mod:`.standing`, :mod:`.player`: a player's stand, and his decisions, burns and stakes;
* :mod:`.amounts`: the amounts of a range worth advising on;
* :mod:`.player_advice`, :mod:`.bank_advice` (with :mod:`.opponents`, :mod:`.bank_joint`, :mod:`.bank_approx`):
  the advice of a player and of a bank; :mod:`.advice`: by phase;
* :mod:`.rtp`: CASINO's exact return to player.
"""

from mazziere.engine.bots.sette_e_mezzo.advice import advise
from mazziere.engine.bots.sette_e_mezzo.amounts import amounts, corners
from mazziere.engine.bots.sette_e_mezzo.bank_approx import BANK_APPROX_ERROR
from mazziere.engine.bots.sette_e_mezzo.counting import POINTS_MAX, Profile, hand_points, profile_of
from mazziere.engine.bots.sette_e_mezzo.memo import MEMO, MEMO_MAX
from mazziere.engine.bots.sette_e_mezzo.player import Turn
from mazziere.engine.bots.sette_e_mezzo.rtp import EXACT_RTP, casino_rtp, rtp_profiles

__all__ = [
    "BANK_APPROX_ERROR", "EXACT_RTP", "MEMO", "MEMO_MAX", "POINTS_MAX", "Profile", "Turn", "advise", "amounts",
    "casino_rtp", "corners", "hand_points", "profile_of", "rtp_profiles",
]  # fmt: skip
