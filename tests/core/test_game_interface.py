"""The engine's shared behaviour, on a toy game: checks before play, codec, rule profiles, registry."""

from collections import OrderedDict

import msgspec
import pytest

from mazziere import engine
from mazziere.engine import codec, registry, wire
from mazziere.engine import rules as rules_module
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.rules import describe, with_options
from mazziere.engine.table import Action, Seat
from mazziere.engine.values import field_names
from tests.core.toy import Pack, Toy, ToyRules, ToyState
from tests.helpers import stacked, with_rules_version


@pytest.fixture(autouse=True)
def toy_registered():
    registry.register(Toy())
    yield
    registry.GAMES.pop("toy")


def table(**kw):
    return engine.new_table("toy", [Seat("a", 10), Seat("b", 10), Seat("c", 3)], seed=b"toy", **kw).state


def rejected(state, action, reason):
    before = engine.state_to_bytes(state)
    with pytest.raises(Rejected) as err:
        engine.apply(state, action)
    assert err.value.reason is reason
    assert engine.state_to_bytes(state) == before
    return err.value.message


def test_apply_checks_turn_kind_seat_and_amount_before_play():
    state = table()
    assert "waiting for seat 0" in rejected(state, Action(1, "BET", 1), Reason.NOT_YOUR_TURN)
    assert "may: BET" in rejected(state, Action(0, "FOLD"), Reason.ILLEGAL_ACTION)
    assert "[1, 5]" in rejected(state, Action(0, "BET", 6), Reason.STAKE_OUT_OF_RANGE)
    rejected(state, Action(0, "BET", 0), Reason.STAKE_OUT_OF_RANGE)
    rejected(state, Action(3, "BET", 1), Reason.INVALID_SEAT)
    rejected(state, Action(-1, "BET", 1), Reason.INVALID_SEAT)
    rejected(state, Action(0, "BET", 1, target=2), Reason.ILLEGAL_ACTION)


def test_every_refusal_says_what_was_wrong():
    state = table()
    assert rejected(state, Action(1, "BET", 1), Reason.NOT_YOUR_TURN) == "seat 1 may not act now; waiting for seat 0"
    assert rejected(state, Action(0, "FOLD"), Reason.ILLEGAL_ACTION) == "'FOLD' is not allowed now; seat 0 may: BET"
    assert (
        rejected(state, Action(0, "BET", 1, target=2), Reason.ILLEGAL_ACTION)
        == "BET is not allowed with these cards or target seat"
    )
    assert rejected(state, Action(3, "BET", 1), Reason.INVALID_SEAT) == "seat 3 is not at this 3-seat table"
    assert rejected(state, Action(0, "BET", 6), Reason.STAKE_OUT_OF_RANGE) == "BET amount 6 is outside [1, 5]"
    with stacked("Ad Rd 2d"):
        state = table()
    for seat in range(3):
        state = engine.apply(state, Action(seat, "BET", 2 if seat < 2 else 3)).state
    assert rejected(state, Action(0, "BET", 1), Reason.GAME_OVER) == "the game is over; no action is possible"


def test_apply_counts_accepted_actions_and_ends_the_game():
    with stacked("Ad Rd 2d"):
        state = table()
    for seat in range(3):
        state = engine.apply(state, Action(seat, "BET", 2 if seat < 2 else 3)).state
    assert state.seq == 3
    assert state.chips == (8, 15, 0)
    assert engine.is_over(state) and engine.to_act(state) == ()
    rejected(state, Action(0, "BET", 1), Reason.GAME_OVER)


def test_a_game_over_is_told_before_a_seat_that_is_not_at_the_table():
    with stacked("Ad Rd 2d"):
        state = table()
    for seat in range(3):
        state = engine.apply(state, Action(seat, "BET", 2 if seat < 2 else 3)).state
    rejected(state, Action(7, "BET", 1), Reason.GAME_OVER)


def test_apply_checks_against_the_legal_actions_just_asked_for(monkeypatch):
    """Legal actions are worked out once a step: asked for, then the action applied on that very state."""
    state = table()
    asked = []
    real = Toy.legal_actions
    monkeypatch.setattr(Toy, "legal_actions", lambda self, st, seat: asked.append(seat) or real(self, st, seat))
    legal = engine.legal_actions(state, 0)
    after = engine.apply(state, Action(0, "BET", legal[0].min_amount)).state
    assert asked == [0]
    engine.legal_actions(after, 1)
    rejected(after, Action(1, "BET", 99), Reason.STAKE_OUT_OF_RANGE)  # that step's own answer
    assert asked == [0, 1]
    rejected(state, Action(1, "BET", 1), Reason.NOT_YOUR_TURN)  # another step: worked out again
    assert asked[2] == 1


def test_amount_bound_follows_the_seats_chips():
    state = table()
    state = engine.apply(state, Action(0, "BET", 1)).state
    state = engine.apply(state, Action(1, "BET", 1)).state
    assert engine.legal_actions(state, 2)[0].max_amount == 3


def test_views_are_redacted_by_the_engine():
    with stacked("Ad Rd 2d"):
        state = table()
    assert [h.card and str(h.card) for h in engine.view(state, 1).hands] == [None, "Rd", None]
    assert [h.card for h in engine.view(state, None).hands] == [None, None, None]


def test_state_bytes_round_trip_and_are_canonical():
    state = table(options={"lucky_card": "Rd", "banned_ranks": [3, 2]})
    raw = engine.state_to_bytes(state)
    assert engine.state_from_bytes(raw) == state
    assert engine.state_to_bytes(engine.state_from_bytes(raw)) == raw
    fmt, game, rules, _ = msgspec.msgpack.decode(raw)
    assert (fmt, game) == (3, "toy")
    assert rules == [1, "PLAIN", {"banned_ranks": [2, 3], "lucky_card": "Rd"}]  # the preset and the overrides


def test_a_json_state_of_the_first_format_is_refused_as_an_old_version():
    with pytest.raises(Rejected) as err:
        engine.state_from_bytes(b'{"game":"toy","table_id":"t"}')
    assert err.value.reason is Reason.RULES_VERSION_UNSUPPORTED
    assert "earlier version" in err.value.message


@pytest.mark.parametrize(
    "spoil",
    [
        lambda good: b"",
        lambda good: b"not a state",
        lambda good: msgspec.msgpack.encode([]),
        lambda good: msgspec.msgpack.encode([wire.FORMAT, "toy"]),
        lambda good: msgspec.msgpack.encode([wire.FORMAT, "nope", [1, "PLAIN", {}], []]),
        lambda good: good[:-3],
        lambda good: good.replace(b"PLAIN", b"PLAIX"),
        lambda good: good + b"\x00",
    ],
)
def test_unreadable_states_are_typed_rejections(spoil):
    with pytest.raises(Rejected) as err:
        engine.state_from_bytes(spoil(engine.state_to_bytes(table())))
    assert err.value.reason in (Reason.INVALID_STATE, Reason.UNKNOWN_GAME)


def test_a_state_of_the_byte_format_before_committed_dealing_is_refused_as_an_old_version():
    _, game, rules, body = msgspec.msgpack.decode(engine.state_to_bytes(table()))
    with pytest.raises(Rejected) as err:
        engine.state_from_bytes(msgspec.msgpack.encode([2, game, rules, body]))
    assert err.value.reason is Reason.RULES_VERSION_UNSUPPORTED
    assert "byte format 2" in err.value.message


def test_a_state_of_another_rules_version_is_refused():
    raw = with_rules_version(engine.state_to_bytes(table()), 0)
    with pytest.raises(Rejected) as err:
        engine.state_from_bytes(raw)
    assert err.value.reason is Reason.RULES_VERSION_UNSUPPORTED


def test_options_override_presets_with_typed_errors():
    rules = with_options(ToyRules(), {"pack": "FRENCH", "max_bet": 7, "lucky_card": "KD"})
    assert rules.pack is Pack.FRENCH and rules.max_bet == 7 and str(rules.lucky_card) == "KD"
    cases = [
        ({"nope": 1}, Reason.UNKNOWN_OPTION),
        ({"rules_version": 2}, Reason.UNKNOWN_OPTION),
        ({"max_bet": "7"}, Reason.INVALID_OPTION),
        ({"max_bet": True}, Reason.INVALID_OPTION),
        ({"max_bet": 0}, Reason.INVALID_OPTION),
        ({"pack": "SPANISH"}, Reason.INVALID_OPTION),
        ({"lucky_card": "Zz"}, Reason.INVALID_OPTION),
    ]
    for overrides, reason in cases:
        with pytest.raises(Rejected) as err:
            with_options(ToyRules(), overrides)
        assert err.value.reason is reason, overrides


def test_tables_of_the_same_rules_share_one_profile_which_the_codec_writes_from_memory(monkeypatch):
    """Every table built with equal options holds one profile object: the codec knows a profile's written form by
    identity, and a profile per table (once one per OpenTable) missed it past 256 tables, on every move."""
    monkeypatch.setattr(rules_module, "_INTERNED", OrderedDict())
    options = [{"max_bet": bet} for bet in range(1, rules_module.INTERNED_PROFILES + 2)]
    first = [with_options(ToyRules(), overrides) for overrides in options]
    again = [with_options(ToyRules(), overrides) for overrides in options[1:]]
    assert all(a is b for a, b in zip(again, first[1:], strict=True))
    assert with_options(ToyRules(), options[0]) is not first[0]  # the oldest was let go: the memory is bounded
    assert len(rules_module._INTERNED) <= rules_module.INTERNED_PROFILES
    seats, options = [Seat(n, 20) for n in "abc"], {"bank_passes_on_reale": False}
    state = engine.new_table("sette_e_mezzo", seats, seed=b"s", options=options).state
    assert engine.new_table("sette_e_mezzo", seats, seed=b"t", options=options).state.rules is state.rules
    monkeypatch.setattr(wire, "_WRITTEN", wire.OrderedDict())
    engine.state_to_bytes(state)
    assert list(wire._WRITTEN) == [id(state.rules)]


def test_describe_lists_every_option_for_a_settings_screen():
    info = {o.name: o for o in describe(ToyRules)}
    assert list(info) == ["max_bet", "pack", "lucky_card", "banned_ranks"]
    assert info["pack"].choices == ("ITALIAN", "FRENCH") and info["pack"].default == "ITALIAN"
    assert info["lucky_card"].type == "card | null" and info["banned_ranks"].type == "list[int]"
    assert all(o.doc for o in info.values())


def test_presets_unknown_games_and_bad_seats_are_typed_rejections():
    assert table(preset="BIG").rules.max_bet == 50
    for kwargs, reason in [
        ({"preset": "HUGE"}, Reason.UNKNOWN_PRESET),
        ({"seed": b""}, Reason.INVALID_SEED),
    ]:
        with pytest.raises(Rejected) as err:
            engine.new_table("toy", [Seat("a", 1), Seat("b", 1)], **{"seed": b"s", **kwargs})
        assert err.value.reason is reason
    with pytest.raises(Rejected) as err:
        engine.new_table("chess", [Seat("a", 1)], seed=b"s")
    assert err.value.reason is Reason.UNKNOWN_GAME
    with pytest.raises(Rejected) as err:
        engine.new_table("toy", [Seat("a", 1), Seat("b", -1)], seed=b"s")
    assert err.value.reason is Reason.INVALID_SEATS


def test_codec_reads_back_what_it_writes():
    rules = ToyRules(lucky_card=engine.Card.parse("7c"), banned_ranks=frozenset({4}))
    assert codec.from_data(ToyRules, codec.to_data(rules)) == rules
    with pytest.raises(Rejected):
        codec.from_data(ToyRules, {"max_bet": 1, "extra": 2})


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_conformance_harness_passes_on_the_toy_game(seats):
    from tests.conformance.harness import check_random_play

    actions = check_random_play("toy", seats, seed=seats)
    assert len(actions) == seats


def test_apply_numbers_a_copy_when_a_game_returns_the_state_it_was_given():
    class Idle(Toy):
        def play(self, state, action):
            return engine.Outcome(state)

    state = table()
    out = Idle().apply(state, Action(0, "BET", 1))
    assert (state.seq, out.state.seq) == (0, 1)
    assert out.state is not state


def test_amounts_and_names_are_bounded_so_nothing_downstream_overflows():
    for seats in ([Seat("a", engine.MAX_CHIPS + 1), Seat("b", 1)], [Seat("a" * (engine.MAX_NAME + 1), 1)] * 2):
        with pytest.raises(Rejected) as err:
            engine.new_table("toy", seats, seed=b"s")
        assert err.value.reason is Reason.INVALID_SEATS
    assert engine.new_table("toy", [Seat("a", engine.MAX_CHIPS), Seat("b", 0)], seed=b"s").state.chips[0] > 0
    with pytest.raises(Rejected) as err:
        with_options(ToyRules(), {"max_bet": 10**9 + 1})
    assert err.value.reason is Reason.INVALID_OPTION


def test_an_unreadable_state_names_the_path_to_the_bad_value():
    fmt, game, rules, body = msgspec.msgpack.decode(engine.state_to_bytes(table()))
    at = {name: i for i, name in enumerate(n for n in field_names(ToyState) if n not in ("game", "rules"))}

    def spoiled(**changes: object) -> list[object]:
        out = list(body)
        for name, value in changes.items():
            out[at[name]] = value
        return out

    cases = [
        (spoiled(hands=body[at["hands"]][:8] + (200 << 32).to_bytes(8, "big")), rules, "state.hands[1]: not a table"),
        (spoiled(hands=b"\x00" * 7), rules, "state.hands: not a list of table cards"),
        (spoiled(hands=[1, 2]), rules, "state.hands: Expected `bytes`, got `array`"),
        (spoiled(stock=bytes([3, 200])), rules, "state.stock[1]: not a card"),
        (spoiled(names=["a", 2, "c"]), rules, "state.names[1]: Expected `str`, got `int`"),
        (body[:-1], rules, "Expected `array` of length"),
        ([*body, 1], rules, "Expected `array` of length"),
        (body, [1, "PLAIN", {"pack": "SPANISH"}], "state.rules: pack: 'SPANISH' is not one of"),
        (body, [1, "PLAIN", {"nope": 1}], "state.rules: unknown option 'nope'"),
    ]
    for spoilt_body, spoilt_rules, message in cases:
        raw = msgspec.msgpack.encode([fmt, game, spoilt_rules, spoilt_body])
        with pytest.raises(Rejected) as err:
            engine.state_from_bytes(raw)
        assert err.value.reason is Reason.INVALID_STATE and message in err.value.message, err.value.message


def test_messages_name_every_seat_waited_for_and_every_move_allowed():
    from mazziere.engine.table import LegalAction
    from tests.helpers import replace

    game = engine.get_game("saltacavallo")
    assert {g.id for g in engine.all_games()} == {"sette_e_mezzo", "saltacavallo", "trentuno", "toy"}
    options = {"first_dealer": "SEAT", "first_dealer_seat": 3}
    state = engine.new_table(game.id, [Seat(f"p{i}", 3) for i in range(4)], seed=b"m", options=options).state
    state = replace(state, lives=(0, 3, 0, 3))  # two dead seats may ask for a life; the dealer may deal
    assert engine.to_act(state) == (0, 2, 3)
    assert rejected(state, Action(1, "KEEP"), Reason.NOT_YOUR_TURN).endswith("waiting for seat 0, 2, 3")
    sette = engine.new_table("sette_e_mezzo", [Seat("a", 9), Seat("b", 9)], seed=b"m", options={"first_bank": "SEAT"})
    state = engine.apply(engine.apply(sette.state, Action(0, "DEAL")).state, Action(1, "STAKE", 1)).state
    assert (
        rejected(state, Action(1, "DEAL"), Reason.ILLEGAL_ACTION) == "'DEAL' is not allowed now; seat 1 may: HIT, STAND"
    )
    assert LegalAction("SWAP", target=2).example(1) == Action(1, "SWAP", 0, 2)
    assert str(Rejected(Reason.GAME_OVER, "done")) == "GAME_OVER: done"
    with pytest.raises(Rejected) as err:
        engine.get_game("poker")
    assert err.value.message == "unknown game 'poker'; games are: saltacavallo, sette_e_mezzo, toy, trentuno"
