"""Trentuno with the widow (RULES.md §3): exchange with the widow towards 31, stop, and show down.

>>> from mazziere import engine
>>> state = engine.new_table("trentuno", [engine.Seat(n, 50) for n in "abc"], seed=b"demo").state
>>> state = engine.apply(state, engine.Action(state.dealer, "DEAL")).state
>>> sorted({entry.kind for entry in engine.legal_actions(state, engine.to_act(state)[0])})
['EXCHANGE', 'STOP', 'TAKE_ALL']
"""

from mazziere.engine.games.trentuno.game import Trentuno

GAME: Trentuno = Trentuno()

__all__ = ["GAME", "Trentuno"]
