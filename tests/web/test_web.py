"""A person alone against bots: the page opens a hosted table with one person's seat and bot seats (the host plays
the bots), and plays it through the host like any table; it keeps only its capabilities.

Each game's hand is played by clicking; one by keyboard alone at phone width; each game's table is asked what the
player should do (never for a forced move, such as the deal); Trentuno's exchanges are made by picking cards; a
refused move shows the service's message and keeps the amount typed; after a service restart the page resumes,
and a reload redraws the table from the host; a table the host does not keep is said so plainly.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import (
    GAMES,
    PREFERRED,
    WAIT_MS,
    Person,
    Server,
    check_cards,
    check_no_secrets,
    person,
    save_screenshot,
)

# Options that make the player (seat 0) deal first, or (Sette e mezzo) hold the bank.
DEALS_FIRST = {
    "sette_e_mezzo": {"first_bank": "SEAT"},
    "saltacavallo": {"first_dealer": "SEAT"},
    "trentuno": {"first_dealer": "SEAT"},
}


def open_solo(
    browser: Any,
    server: Server,
    game: str,
    width: int = 900,
    options: dict[str, str] | None = None,
    policies: tuple[str, ...] = (),
    fields: dict[str, str] | None = None,
) -> Person:
    """A new table of ``game`` against two bots, opened in the setup form (``options`` chosen among the enum
    options, ``fields`` typed, the bots' ``policies``)."""
    me = person(browser, width)
    me.goto(f"{server.url}/play/")
    page = me.page
    page.wait_for_selector("#setup")
    assert page.is_checked("#mode-solo")
    page.select_option("#game", game)
    if options or fields:
        page.click("#setup summary")
        for name, value in (options or {}).items():
            page.select_option(f"#opt-{name}", value)
        for name, value in (fields or {}).items():
            page.fill(f"#opt-{name}", value)
    for row, policy in enumerate(policies, start=2):
        page.select_option(f".seat-row:nth-child({row}) .seat-kind", policy)
    page.click("#start")
    me.wait_live()
    return me


def mine(me: Person) -> tuple[str, str]:
    """The table and the capability the page keeps (its only secret: the invite of its seat)."""
    stored = json.loads(me.page.evaluate("localStorage.getItem('mazziere.tables')"))
    table_id = me.page.evaluate("localStorage.getItem('mazziere.last')")
    return table_id, stored[table_id]["capability"]


STABLE = """() => {
    const t = document.querySelector('#table');
    return t !== null && t.dataset.connection === 'live' && t.dataset.busy === 'false'
        && (t.dataset.myTurn === 'true' || t.dataset.closed === 'true' || (t.dataset.hands !== '0' && HANDS));
}"""


def wait_turn(me: Person, hand_ends: bool = True) -> None:
    """Until it is the player's turn (the bots wait for nobody, so the table is then still), or the hand is over."""
    me.wait(STABLE.replace("HANDS", "true" if hand_ends else "false"))


def my_turns(me: Person, check: Callable[[], None] = lambda: None, limit: int = 60) -> Iterator[list[str]]:
    """The kinds of the player's moves at each of its turns until the first hand ends (``check`` at each)."""
    for _ in range(limit):
        wait_turn(me)
        if me.page.get_attribute("#table", "data-hands") != "0":
            return
        check()
        yield me.moves()
    pytest.fail(f"the hand did not end within {limit} turns; the page shows {me.text('#table')}")


def click_move(me: Person, kinds: list[str]) -> None:
    kind = next((k for k in PREFERRED if k in kinds), kinds[0])
    me.page.click(f".actions button[data-move={kind}] >> nth=0")


def chips_now(server: Server, table_id: str, capability: str) -> tuple[str, list[str]]:
    update = server.call("GetHostedTable", {"tableId": table_id}, capability)["update"]
    game = next(iter(update["update"]["view"].values()))
    chips = [s.get("chips", "0") for s in game["seats"]] if "seats" in game else [str(c) for c in game["chips"]]
    return str(update.get("seq", "0")), chips


def finish(me: Person, server: Server, name: str, tmp_path: Path) -> None:
    """The settlement is shown; once the table is still again, the chips on screen are the host's."""
    me.page.wait_for_selector(".settlement", timeout=WAIT_MS)
    settlement = me.text(".settlement")
    assert settlement and "RESULT_" not in settlement and "_" not in settlement
    wait_turn(me, hand_ends=False)
    table_id, capability = mine(me)
    seq, chips = chips_now(server, table_id, capability)
    assert me.page.get_attribute("#table", "data-seq") == seq
    assert me.chips() == chips
    check_cards(me, server, table_id, capability)
    assert me.errors == [], me.errors
    save_screenshot(me, tmp_path, name)


def table_text(me: Person) -> list[str]:
    return [me.page.get_attribute("#table", "data-seq") or "", me.text(".seats"), me.text(".middle")]


@pytest.mark.parametrize("game", GAMES)
def test_a_hand_of_each_game_by_clicking(browser: Any, server: Server, game: str, tmp_path: Path) -> None:
    me = open_solo(browser, server, game)
    table_id, capability = mine(me)
    secrets: set[str] = set()

    def check() -> None:
        secrets.update(server.secrets(table_id))
        check_cards(me, server, table_id, capability)

    for kinds in my_turns(me, check):
        click_move(me, kinds)
    finish(me, server, game, tmp_path)
    text = me.text("#table")
    for raw in ("wait deal", "stood", "WAITING", "CLASSICO", "NAPOLETANO", "_"):
        assert raw not in text, f"{raw!r} shown raw"
    assert not re.search(r"(?<![0-9])0½", text), "half a point shown as 0½"
    # The chips moved read the same in the log and in the settlement: who pays, whom, how much.
    log = me.text(".log").splitlines()
    moved = [line for line in me.text(".settlement").splitlines() if re.search(r" (paga|mette|prende) \d+ fiche", line)]
    assert moved and all(line in log for line in moved), (moved, log[-12:])
    check_no_secrets(me, secrets | server.secrets(table_id))
    # A reload asks the host for the table again: the same step, seats and cards (the page keeps no view).
    before = table_text(me)
    me.page.reload()
    me.wait_live()
    assert table_text(me) == before
    assert me.errors == []
    me.close()


def test_the_page_shows_the_commitment_gives_entropy_and_verifies_the_deck(browser: Any, server: Server) -> None:
    """docs/fairness.md: the commitment to the next draw before the deal, the player's own bytes mixed into it, and
    the pack checked in the browser when the next deal reveals it, again after a reload (the past fetched once)."""
    me = open_solo(browser, server, "trentuno", options=DEALS_FIRST["trentuno"])
    wait_turn(me)
    committed = me.page.get_attribute(".fairness", "data-commitment") or ""
    assert re.fullmatch(r"[0-9a-f]{64}", committed), committed
    draw = int(me.page.get_attribute(".fairness", "data-draw") or "-1")
    me.page.click(".actions button[data-move=DEAL]")
    for kinds in my_turns(me):
        click_move(me, kinds)
    me.page.wait_for_selector('.fairness[data-verified="true"]', timeout=WAIT_MS)
    log = me.text(".log")
    assert f"aggiunge il suo caso all'estrazione {draw}" in log, log[-800:]  # the player's entropy, in that draw
    assert "Mazzo verificato (deck verified)" in me.text(".fairness")
    # A page that begins later (here: a reload) fetches the steps it lacks once, and checks the packs again.
    me.page.reload()
    me.wait_live()
    me.page.wait_for_selector('.fairness[data-verified="true"]', timeout=WAIT_MS)
    assert me.errors == []
    me.close()


@pytest.mark.parametrize("game", GAMES)
def test_what_should_i_do_at_the_players_first_choice(browser: Any, server: Server, game: str) -> None:
    """The player deals first: a forced move, with no advice offered (nor for any move the player must make). At
    the first choice, "what should I do?"
    gives one entry per legal move (a range of amounts: its ends), the best marked, and a bust chance only in
    Sette e mezzo, the one game with busts."""
    me = open_solo(browser, server, game, options=DEALS_FIRST[game])
    table_id, capability = mine(me)
    wait_turn(me)
    assert me.moves() == ["DEAL"]
    assert me.page.query_selector("#advise") is None, "advice offered for the deal"
    assert me.page.query_selector("[data-pile=stock]") is None, "a stock shown before the first deal"
    me.page.click(".actions button[data-move=DEAL]")
    me.page.wait_for_selector("[data-pile=stock] .count", timeout=WAIT_MS)
    assert int(me.text("[data-pile=stock] .count")) > 0
    for _ in range(40):
        wait_turn(me, hand_ends=False)
        kinds = me.moves()
        if len(kinds) > 1 or "STAKE" in kinds:
            break
        assert me.page.query_selector("#advise") is None, f"advice offered for a forced move: {kinds}"
        click_move(me, kinds)
    else:
        pytest.fail(f"the player never had a choice; the page shows {me.text('#table')}")
    me.page.click("#advise")
    me.page.wait_for_selector(".advice li[data-kind]", timeout=WAIT_MS)
    legal = server.call("GetHostedTable", {"tableId": table_id}, capability)["update"]["update"]["legalActions"]
    rows = me.page.eval_on_selector_all(".advice li[data-kind]", "rows => rows.map(r => r.dataset.kind)")
    assert set(rows) == {a["kind"] for a in legal}, (rows, legal)
    assert set(rows) == set(kinds)
    assert me.page.locator(".advice li.best").count() >= 1
    advice = me.text(".advice")
    assert "%" in advice and ("calcolo esatto" in advice or "simulate" in advice)
    assert ("sballa (bust)" in advice) == (game == "sette_e_mezzo")
    assert me.errors == []
    me.close()


def french(code: str) -> str:
    """A card of Trentuno's French pack as the page names it: "KH" is "re di cuori (king of hearts)"."""
    ranks = {
        "A": ("asso", "ace"),
        "J": ("fante", "jack"),
        "Q": ("donna", "queen"),
        "K": ("re", "king"),
        "T": ("10",) * 2,
    }
    suits = {"H": ("cuori", "hearts"), "D": ("quadri", "diamonds"), "C": ("fiori", "clubs"), "S": ("picche", "spades")}
    rank = ranks.get(code[0], (code[0], code[0]))
    suit = suits[code[1]]
    return f"{rank[0]} di {suit[0]} ({rank[1]} of {suit[1]})"


def test_trentuno_exchanges_by_picking_cards_with_mouse_and_keyboard(browser: Any, server: Server) -> None:
    """No button per exchange: the player picks one of their cards and one of the widow's, by clicking or by
    keyboard (Tab to a card, Enter), and the cards change places."""
    me = open_solo(browser, server, "trentuno")
    page = me.page
    done = {"mouse": False, "keyboard": False}
    for _ in range(40):
        wait_turn(me, hand_ends=False)
        kinds = me.moves()
        if "EXCHANGE" not in kinds:
            me.page.click(".actions button[data-move=DEAL]")
            continue
        assert page.locator(".actions button[data-kind=EXCHANGE]").count() == 0
        hand = page.eval_on_selector_all("[data-pick=hand]", "els => els.map(e => e.dataset.card)")
        widow = page.eval_on_selector_all("[data-pick=widow]", "els => els.map(e => e.dataset.card)")
        assert len(hand) == 3 and len(widow) == 3
        seq = me.seq()
        how = "mouse" if not done["mouse"] else "keyboard"
        if how == "mouse":
            page.click(f"[data-pick=hand][data-card='{hand[0]}']")
            assert page.get_attribute(f"[data-pick=hand][data-card='{hand[0]}']", "aria-pressed") == "true"
            page.click(f"[data-pick=widow][data-card='{widow[2]}']")
            given, taken = hand[0], widow[2]
        else:
            # Focus is on the first move: the hand's first card. Enter picks it; Tab goes on to the widow's.
            assert page.evaluate("document.activeElement.dataset.pick") == "hand"
            given = page.evaluate("document.activeElement.dataset.card")
            page.keyboard.press("Enter")
            page.wait_for_selector("[data-pick=hand][aria-pressed=true]")
            for _ in range(10):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.dataset.pick") == "widow":
                    break
            taken = page.evaluate("document.activeElement.dataset.card")
            page.keyboard.press("Enter")
        me.wait(f"() => Number(document.querySelector('#table').dataset.seq) > {seq}")
        done[how] = True
        # The log names the two cards as they changed places (the table may have moved on since).
        assert f"Anna dà {french(given)} e prende {french(taken)} dal monte" in me.text(".log")
        if all(done.values()):
            break
    assert all(done.values()), done
    assert me.errors == []
    me.close()


def test_a_hand_by_keyboard_at_phone_width(browser: Any, server: Server, tmp_path: Path) -> None:
    """Focus goes to the first move; Tab moves between moves and Enter plays one. Every button and card is named;
    the advice fits the phone's width. A bot holds the bank, so the person has a choice to stand in the first hand."""
    options = {"pack": "FRENCH", "first_bank": "SEAT"}
    me = open_solo(browser, server, "sette_e_mezzo", 390, options, ("cautious", "best"), {"first_bank_seat": "1"})
    page = me.page
    advised = False
    for kinds in my_turns(me):
        want = next(k for k in PREFERRED if k in kinds)
        if not advised and "STAND" in kinds:
            for _ in range(30):
                if page.evaluate("document.activeElement.id") == "advise":
                    break
                page.keyboard.press("Tab")
            page.keyboard.press("Enter")
            page.wait_for_selector(".advice li[data-kind]", timeout=WAIT_MS)
            advised = True
            wide = page.evaluate(
                "() => [document.documentElement.scrollWidth, innerWidth,"
                " ...[...document.querySelectorAll('.advice, .advice li')].map(e => e.scrollWidth - e.clientWidth)]"
            )
            assert wide[0] <= wide[1] and all(extra <= 0 for extra in wide[2:]), f"cut at phone width: {wide}"
            page.keyboard.press("Shift+Tab")  # back among the moves
        for _ in range(len(kinds) + 30):
            if page.evaluate("document.activeElement.dataset.move") == want:
                break
            page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.move") == want
        page.keyboard.press("Enter")
    assert advised
    names = page.eval_on_selector_all(
        "button", "bs => bs.map(b => b.getAttribute('aria-label') || b.textContent.trim())"
    )
    assert names and all(names)
    labels = page.eval_on_selector_all(".card", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert labels and all(labels)
    faces = page.eval_on_selector_all(".card:not(.back)", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert faces and all(" di " in label and " of " in label for label in faces)
    # The option chosen in the form reached the table: French cards (upper-case suits), named as such.
    codes = page.eval_on_selector_all(".card:not(.back)", "cs => cs.map(c => c.dataset.card)")
    assert all(code[1].isupper() for code in codes), codes
    seats = me.text(".seats")
    assert seats.count("bot prudente (cautious)") == 1 and "bot esperto (best)" in seats
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    finish(me, server, "sette_e_mezzo-phone", tmp_path)
    me.close()


def test_a_refused_stake_keeps_the_amount_and_shows_the_services_message(browser: Any, server: Server) -> None:
    """An amount out of range is refused by the page; a move sent at a stale sequence number by the service
    (ABORTED, STALE_SEQUENCE): each time the message is shown, the amount typed stays, and the player plays on."""
    me = open_solo(browser, server, "sette_e_mezzo", options={"first_bank": "SEAT"}, fields={"first_bank_seat": "1"})
    page = me.page
    for _ in range(40):
        wait_turn(me, hand_ends=False)
        if "STAKE" in me.moves():
            break
        click_move(me, me.moves())
    else:
        pytest.fail("the player never staked")
    seq = me.seq()
    stake = page.locator(".amount input[data-move=STAKE]")
    high = int(stake.get_attribute("max") or 0) + 5
    stake.fill(str(high))
    page.click(".actions button[data-move=STAKE]")
    assert "L'importo va da" in me.text(".message")
    assert stake.input_value() == str(high) and me.seq() == seq

    def stale(route: Any) -> None:
        body = json.loads(route.request.post_data)
        body["expectedSeq"] = str(int(body.get("expectedSeq", "0")) + 7)
        route.continue_(post_data=json.dumps(body))

    page.route("**/mazziere.v1.HostService/Play", stale)
    stake.fill("2")
    page.click(".actions button[data-move=STAKE]")
    me.wait("() => document.querySelector('.message').innerText.includes('STALE_SEQUENCE')")
    assert "andato avanti" in me.text(".message")
    assert stake.input_value() == "2" and me.seq() == seq
    page.unroute("**/mazziere.v1.HostService/Play")
    page.click(".actions button[data-move=STAKE]")
    me.wait(f"() => Number(document.querySelector('#table').dataset.seq) > {seq}")
    assert me.text(".message") == ""
    assert "punta 2 fiches" in me.text(".log")
    assert me.errors == []
    me.close()


def test_a_table_the_host_does_not_keep_is_said_so_plainly(browser: Any, server: Server) -> None:
    me = person(browser)
    me.goto(f"{server.url}/play/#table=t_000000000000000000000000&invite=not-an-invite")
    me.page.wait_for_selector("#gone [data-reason=TABLE_NOT_FOUND]", timeout=WAIT_MS)
    assert "non c'è più" in me.text("#gone")
    assert "invite" not in me.page.evaluate("location.hash")
    assert "t_000000000000000000000000" not in me.stored()
    me.page.click("#new-table")
    me.page.wait_for_selector("#setup")
    assert me.errors == []
    me.close()


def test_after_a_restart_the_page_resumes_and_a_reload_redraws_the_table(browser: Any, server: Server) -> None:
    """The host keeps the table. While the service is away the page says so and holds its moves; the other person
    (here through the API) plays as soon as it is back, and the page resumes from its last step with that move in
    its log. After another restart a reload redraws the same table, and it plays on."""
    opened = server.call(
        "OpenTable",
        {
            "game": "sette_e_mezzo",
            "seats": [{"name": "Anna", "chips": "20"}, {"name": "Bruno", "chips": "20"}],
            "turnSeconds": 600,
            "options": {"setteEMezzo": {"firstBank": "SETTE_E_MEZZO_FIRST_BANK_SEAT", "firstBankSeat": 0}},
        },
    )
    table_id = opened["tableId"]
    bruno = opened["invites"][1]["capability"]
    me = person(browser)
    me.goto(opened["invites"][0]["url"])
    me.wait_live()
    me.page.click(".actions button[data-move=DEAL]")  # Anna holds the bank; Bruno stakes next
    me.wait("() => document.querySelector('#table').dataset.myTurn === 'false'")
    seq = me.seq()
    server.stop()
    try:
        me.page.wait_for_selector("#table[data-connection=reconnecting]", timeout=WAIT_MS)
        assert "Collegamento perso" in me.text(".message")
    finally:
        server.start()
    stake = {"seat": 1, "kind": "STAKE", "amount": "1"}
    server.call("Play", {"tableId": table_id, "expectedSeq": str(seq), "action": stake}, bruno)
    me.wait_seq(seq + 1)
    assert "Bruno punta 1 fiche" in me.text(".log") and me.text(".message") == ""
    stand = {"seat": 1, "kind": "STAND"}
    server.call("Play", {"tableId": table_id, "expectedSeq": str(seq + 1), "action": stand}, bruno)
    wait_turn(me, hand_ends=False)  # the bank's turn: Anna's
    before = table_text(me)
    server.stop()
    try:
        me.page.wait_for_selector("#table[data-connection=reconnecting]", timeout=WAIT_MS)
        assert me.page.locator("[data-move]").count() > 0
        assert me.page.locator("[data-move]:not([disabled])").count() == 0, "moves offered while not live"
    finally:
        server.start()
    me.page.reload()
    me.wait_live()
    wait_turn(me, hand_ends=False)
    assert table_text(me) == before
    me.page.click(".actions button[data-move=STAND]")
    me.wait(f"() => Number(document.querySelector('#table').dataset.seq) > {seq + 2}")
    assert me.errors == []
    me.close()


def test_the_gateway_serves_the_page_at_play_beside_the_api(server: Server) -> None:
    with urllib.request.urlopen(f"{server.url}/play", timeout=10) as answer:  # redirected to /play/
        assert answer.url.endswith("/play/")
        assert '<div id="app"' in answer.read().decode()
        policy = answer.headers["content-security-policy"]  # the pages' tests above see no violation of it
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
        assert answer.headers["cross-origin-opener-policy"] == "same-origin"  # nor is there any of this one's
        assert "clipboard-write=(self)" in answer.headers["permissions-policy"]  # "copy the invite link"
    with urllib.request.urlopen(f"{server.url}/play/app.js", timeout=10) as answer:
        assert answer.headers["content-type"].startswith("text/javascript")
    with urllib.request.urlopen(f"{server.url}/v1/games", timeout=10) as answer:
        assert {g["id"] for g in json.load(answer)["games"]} == set(GAMES)
