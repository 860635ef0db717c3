"""Bots for every game: advice from a seat's own view (:func:`advise`) and policies by name (:func:`choose`).

>>> from mazziere import engine
>>> from mazziere.engine.bots import POLICIES, advise, choose
>>> state = engine.new_table("sette_e_mezzo", [engine.Seat("Casa", 1000), engine.Seat("Ada", 100)],
...                          seed=b"doc", preset="CASINO").state
>>> POLICIES
('random', 'cautious', 'best')
>>> engine.apply(state, choose("best", state, 0)).state.phase.value
'STAKE'
"""

from mazziere.engine.bots.advise import advise
from mazziere.engine.bots.policies import POLICIES, choose
from mazziere.engine.bots.stop import Stopped
from mazziere.engine.bots.values import ActionAdvice, Advice

__all__ = ["POLICIES", "ActionAdvice", "Advice", "Stopped", "advise", "choose"]
