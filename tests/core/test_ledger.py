import pytest

from mazziere.engine.ledger import POT, Transfer, settle, total


def test_transfers_move_chips_and_conserve_the_total():
    chips, pot = settle((10, 20, 30), 5, [Transfer(0, 1, 4), Transfer(2, POT, 6), Transfer(POT, 0, 11)])
    assert chips == (17, 24, 24)
    assert pot == 0
    assert total(chips, pot) == total((10, 20, 30), 5)


def test_a_bank_may_go_below_zero():
    chips, _ = settle((1, 0), 0, [Transfer(0, 1, 5)])
    assert chips == (-4, 5)


def test_negative_transfers_are_refused_and_empty_ones_change_nothing():
    with pytest.raises(ValueError, match=r"negative transfer Transfer\(payer=0, payee=1, amount=-1"):
        settle((1, 1), 0, [Transfer(0, 1, -1)])
    assert settle((1, 1), 2, [Transfer(0, 1, 0), Transfer(POT, 1, 0)]) == ((1, 1), 2)
