"""The host's sitting moves (services/host/sitting.py), without a server: which move it makes from the legal actions
of the seats to act, and the options a table that follows presence opens with."""

from __future__ import annotations

import pytest

from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import sette_e_mezzo_pb2 as sm
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.gen.mazziere.v1 import trentuno_pb2 as tr
from mazziere.services.host.settings import Settings
from mazziere.services.host.sitting import check_person_move, sit_move, with_sit_out

BETWEEN_HANDS = {
    0: [
        pb.LegalAction(kind="DEAL"),
        pb.LegalAction(kind="SIT_OUT", target=1),
        pb.LegalAction(kind="SIT_OUT", target=2),
        pb.LegalAction(kind="SIT_IN", target=3),
    ]
}


def test_a_seat_whose_person_is_back_sits_in_before_an_away_one_sits_out() -> None:
    assert sit_move(BETWEEN_HANDS, {2}) == pb.Action(seat=0, kind="SIT_IN", target=3)
    assert sit_move(BETWEEN_HANDS, {2, 3}) == pb.Action(seat=0, kind="SIT_OUT", target=2)
    assert sit_move(BETWEEN_HANDS, {3}) is None  # seat 3's person is still away; nobody else to sit out


def test_the_last_seat_dealt_in_beside_the_bank_never_sits_out() -> None:
    """A bank alone would have nobody to deal to: of two away seats, one sits out and the other is played."""
    assert sit_move(BETWEEN_HANDS, {1, 2, 3}) == pb.Action(seat=0, kind="SIT_OUT", target=1)
    last = {0: [pb.LegalAction(kind="DEAL"), pb.LegalAction(kind="SIT_OUT", target=2)]}
    assert sit_move(last, {2}) is None
    assert sit_move({0: [*last[0], pb.LegalAction(kind="SIT_IN", target=1)]}, {1, 2}) is None


def test_nothing_to_do_where_the_game_offers_no_sitting_move() -> None:
    only_deal = {0: [pb.LegalAction(kind="DEAL")]}
    assert sit_move(only_deal, {1, 2}) is None  # Trentuno, or sit_out off: the seat is played cautiously
    assert sit_move({0: BETWEEN_HANDS[0][:3]}, set()) is None  # nobody away, nobody sitting out
    assert sit_move({0: BETWEEN_HANDS[0][:3]}, {0}) is None  # the bank's own seat is never offered


@pytest.mark.parametrize("follow", [True, False])
def test_a_table_that_follows_presence_opens_with_sit_out_on_unless_the_opener_set_it(follow: bool) -> None:
    plain = hpb.OpenTableRequest(game="sette_e_mezzo", follow_presence=follow)
    assert with_sit_out(plain).sette_e_mezzo.sit_out is follow
    rules = pb.Rules(sette_e_mezzo=sm.SetteEMezzoRules(sit_out=False, min_stake=2))
    chosen = hpb.OpenTableRequest(game="sette_e_mezzo", follow_presence=follow, options=rules)
    assert with_sit_out(chosen) == rules  # the opener's choice stands
    trentuno = hpb.OpenTableRequest(
        game="trentuno", follow_presence=follow, options=pb.Rules(trentuno=tr.TrentunoRules())
    )
    assert with_sit_out(trentuno) == trentuno.options  # a game without the option is left as it is


def test_a_person_sends_no_sitting_move_at_a_table_that_follows_presence() -> None:
    following = Settings("sette_e_mezzo", ("a", "b"), ("", ""), 60, False, True)
    with pytest.raises(ServiceError):
        check_person_move(pb.Action(seat=0, kind="SIT_OUT", target=1), following)
    check_person_move(pb.Action(seat=0, kind="DEAL"), following)
    check_person_move(pb.Action(seat=0, kind="SIT_OUT", target=1), Settings("sette_e_mezzo", ("a", "b"), ("", ""), 60))
