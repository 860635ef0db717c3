"""The web table (clients/web) in a real browser: Debian's Chromium driven by Playwright, against `mazziere serve`.

``make test`` builds the page (``make web``: npm ci, the OpenAPI document, openapi-typescript, esbuild) and
installs Chromium with apt when it is missing; without a browser the tests are skipped. Each game's hand is
played by clicking only, bots' turns by the page; one hand is played with the keyboard alone; and each game's
table is asked what the player should do at the player's first move. After every move
the test asks the service, with the bots' keys the page keeps, which cards each bot holds face down for the
player, and checks that none of them is drawn face up anywhere in the page. The page runs under the gateway's
Content-Security-Policy: anything it blocks is a page error. Screenshots go to the test's folder, and to
docs/web-<game>.png with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.conftest import wait_http
from tests.service.test_process import free_port, server_env

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "clients" / "web" / "dist"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The moves the test prefers, so each hand ends soon: the first of these the page offers is clicked.
PREFERRED = ("STAND", "KEEP", "STOP", "STAKE", "NEXT_HAND", "DEAL")
GAMES = ("sette_e_mezzo", "saltacavallo", "trentuno")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """`mazziere serve` with the REST gateway on a free port, serving the built page at /play."""
    if not (DIST / "index.html").is_file():
        pytest.fail("clients/web/dist is missing: run `make web` (make test does)", pytrace=False)
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    rest = free_port()
    env = server_env(free_port(), 0, rest_port=str(rest), rest_host="127.0.0.1", log_calls="false")
    proc = subprocess.Popen([exe, "serve"], env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{rest}"
    try:
        wait_http(f"{url}/readyz")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"no browser at {CHROMIUM}: `make test` installs Debian's chromium with apt when run as root")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def post(base_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base_url + path, json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.load(answer)
        return result


def saved(page: Any) -> dict[str, Any]:
    """The table as the page keeps it in localStorage."""
    table: dict[str, Any] = json.loads(page.evaluate("localStorage.getItem('mazziere.table')"))
    return table


def view_cards(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every card of a TableView, wherever it lies."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "seenBy" in value and ("card" in value or not set(value) - {"seenBy", "card"}):
                found.append(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(view)
    return found


def hidden_from_player(base_url: str, table: dict[str, Any]) -> set[str]:
    """The cards some bot sees that the player may not: asked of the service with the bots' own keys."""
    hidden = set()
    me = table["mySeat"]
    for seat, key in enumerate(table["keys"]):
        if seat == me:
            continue
        body = {"tableId": table["tableId"], "state": table["state"], "seat": seat, "seatKey": key}
        answer = post(base_url, "/v1/tables:view", body)
        for card in view_cards(answer["update"]["view"]):
            audience = card["seenBy"]
            if card.get("card") and not audience.get("everyone") and me not in audience.get("seats", []):
                hidden.add(card["card"])
    return hidden


def check_no_hidden_card(page: Any, base_url: str) -> None:
    """The page's saved table and its cards are read at once (the page draws each state as it saves it)."""
    text, faces = page.evaluate(
        """() => [localStorage.getItem('mazziere.table'),
                  [...document.querySelectorAll('.card')].map(c => [c.dataset.card, c.getAttribute('aria-label')])]"""
    )
    shown = {card for card, _ in faces if card}
    leaked = hidden_from_player(base_url, json.loads(text)) & shown
    assert not leaked, f"cards hidden from the player are drawn face up: {leaked}"
    assert all(label and "undefined" not in label for _, label in faces)


def spectator_chips(base_url: str, table: dict[str, Any]) -> list[str]:
    """Every seat's chips in the last state, from the public view."""
    answer = post(base_url, "/v1/tables:view", {"tableId": table["tableId"], "state": table["state"]})
    view = answer["update"]["view"]
    if "setteEMezzo" in view:
        return [seat.get("chips", "0") for seat in view["setteEMezzo"]["seats"]]
    game = next(iter(view.values()))
    return [str(chips) for chips in game["chips"]]


def table_text(page: Any) -> list[str]:
    return [page.get_attribute("#table", "data-seq"), *(page.inner_text(s) for s in (".seats", ".settlement", ".log"))]


def wait_idle(page: Any) -> None:
    page.wait_for_selector("#table[data-busy=false]")


def open_table(
    browser: Any,
    base_url: str,
    game: str,
    width: int = 900,
    options: dict[str, str] | None = None,
    policies: tuple[str, ...] = (),
) -> Any:
    """The page at a new table of ``game``: ``options`` chosen in the setup form, and the bots' ``policies``."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Chromium logs every load or script the page's Content-Security-Policy blocks.
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    page.errors = errors
    page.goto(f"{base_url}/play/?botDelay=0")
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector("#setup")
    page.select_option("#game", game)
    if options:
        page.click("#setup summary")
        for name, value in options.items():
            page.select_option(f"#opt-{name}", value)
    for row, policy in enumerate(policies, start=1):
        page.select_option(f".bot:nth-child({row}) .policy", policy)
    page.click("#start")
    page.wait_for_selector("#table")
    return page


def player_turns(page: Any, limit: int, check: Callable[[], None] = lambda: None) -> Iterator[list[str]]:
    """The kinds of the player's move buttons at each of its turns, until the first hand ends (``check`` runs
    whenever the page is idle); fails if it has not ended within ``limit`` looks."""
    for _ in range(limit):
        wait_idle(page)
        check()
        hands, kinds = page.evaluate(
            "() => [document.querySelector('#table').dataset.hands,"
            " [...document.querySelectorAll('.actions button')].map(b => b.dataset.kind)]"
        )
        if hands == "1":
            return
        if kinds:
            yield kinds
        else:
            page.wait_for_timeout(50)
    pytest.fail(f"the hand did not end within {limit} looks; the table showed {table_text(page)}")


def finish(page: Any, base_url: str, game: str, tmp_path: Path) -> None:
    """The settlement is shown, the chips on screen are the last state's, and a screenshot is kept."""
    wait_idle(page)
    if not page.is_visible(".settlement"):  # say what the page showed instead
        pytest.fail(f"no settlement after the hand: {table_text(page)}, saved hands {saved(page).get('hands')}")
    table = saved(page)
    assert page.get_attribute("#table", "data-seq") == table["seq"]
    on_screen = page.eval_on_selector_all("[data-seat] .chip-count", "els => els.map(e => e.textContent)")
    assert on_screen == spectator_chips(base_url, table)
    assert page.errors == []
    shot = tmp_path / f"web-{game}.png"
    page.screenshot(path=str(shot), full_page=True)
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, ROOT / "docs" / shot.name)


@pytest.mark.parametrize("game", GAMES)
def test_a_hand_of_each_game_by_clicking(browser: Any, base_url: str, game: str, tmp_path: Path) -> None:
    page = open_table(browser, base_url, game)
    for kinds in player_turns(page, 100, lambda: check_no_hidden_card(page, base_url)):
        kind = next((k for k in PREFERRED if k in kinds), kinds[0])
        page.click(f".actions button[data-kind={kind}]")
    finish(page, base_url, game, tmp_path)
    # A refresh finds the same table from localStorage: the same state, cards, settlement and log.
    before = table_text(page)
    page.reload()
    page.wait_for_selector("#table")
    wait_idle(page)
    after = table_text(page)
    assert after == before
    page.close()


@pytest.mark.parametrize("game", GAMES)
def test_what_should_i_do_at_the_players_first_move(browser: Any, base_url: str, game: str) -> None:
    """At the player's first move (a hand may pass without one: hands are started until it comes), asking "what
    should I do?" gives a row per legal move (a range of amounts: its two ends), the best marked; none leaks a card
    hidden from the player."""
    page = open_table(browser, base_url, game)
    for _ in range(100):
        wait_idle(page)
        kinds = page.eval_on_selector_all(".actions button", "bs => bs.map(b => b.dataset.kind)")
        if kinds and "NEXT_HAND" not in kinds:
            break
        if kinds:
            page.click(".actions button[data-kind=NEXT_HAND]")
        else:
            page.wait_for_timeout(50)
    else:
        pytest.fail(f"the player never had a move; the table showed {table_text(page)}")
    page.click("#advise")
    wait_idle(page)
    rows = page.eval_on_selector_all(".advice tr[data-kind]", "rows => rows.map(r => r.dataset.kind)")
    assert set(rows) == set(kinds), (rows, kinds)
    assert page.locator(".advice tr.best").count() >= 1
    assert "%" in page.inner_text(".advice") and page.errors == []
    check_no_hidden_card(page, base_url)
    page.close()


def test_a_hand_by_keyboard_at_phone_width(browser: Any, base_url: str, tmp_path: Path) -> None:
    """Focus goes to the first move; Tab moves between moves and Enter plays one. Every button and card is named."""
    page = open_table(browser, base_url, "sette_e_mezzo", 390, {"pack": "FRENCH"}, ("cautious", "best"))
    for kinds in player_turns(page, 60):
        want = next(k for k in PREFERRED if k in kinds)
        for _ in range(len(kinds) + 2):
            if page.evaluate("document.activeElement.dataset.kind") == want:
                break
            page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.kind") == want
        page.keyboard.press("Enter")
    names = page.eval_on_selector_all("button", "bs => bs.map(b => b.getAttribute('aria-label') || b.innerText)")
    assert names and all(names)
    labels = page.eval_on_selector_all(".card", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert labels and all(label for label in labels)
    faces = page.eval_on_selector_all(".card:not(.back)", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert faces and all(" di " in label and " of " in label for label in faces)
    # The option chosen in the form reached the table: French cards (upper-case suits), named as such.
    codes = page.eval_on_selector_all(".card:not(.back)", "cs => cs.map(c => c.dataset.card)")
    assert all(code[1].isupper() for code in codes), codes
    assert page.inner_text(".seats").count("bot: cautious") == 1 and "bot: best" in page.inner_text(".seats")
    finish(page, base_url, "sette_e_mezzo-phone", tmp_path)
    page.close()


def test_a_refused_move_shows_the_service_message_and_redraws(browser: Any, base_url: str) -> None:
    """A move sent with a stale sequence number: the service's ABORTED message is shown, and the page fetches
    the player's view again and can play on."""
    page = open_table(browser, base_url, "sette_e_mezzo")

    def stale(route: Any) -> None:
        body = json.loads(route.request.post_data)
        body["expectedSeq"] = str(int(body["expectedSeq"]) + 7)
        route.continue_(post_data=json.dumps(body))

    wait_idle(page)
    page.route("**/v1/tables:act", stale)
    seq = page.get_attribute("#table", "data-seq")
    page.click(".actions button")
    wait_idle(page)
    assert "STALE_SEQUENCE" in page.inner_text(".message")
    assert page.get_attribute("#table", "data-seq") == seq
    page.unroute("**/v1/tables:act")
    page.click(".actions button")
    wait_idle(page)
    assert page.inner_text(".message") == ""
    assert int(page.get_attribute("#table", "data-seq")) > int(seq)
    page.close()


def test_the_gateway_serves_the_page_at_play_beside_the_api(base_url: str) -> None:
    with urllib.request.urlopen(f"{base_url}/play", timeout=10) as answer:  # redirected to /play/
        assert answer.url.endswith("/play/")
        assert '<div id="app"' in answer.read().decode()
        policy = answer.headers["content-security-policy"]  # the pages' tests above see no violation of it
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
    with urllib.request.urlopen(f"{base_url}/play/app.js", timeout=10) as answer:
        assert answer.headers["content-type"].startswith("text/javascript")
    with urllib.request.urlopen(f"{base_url}/v1/games", timeout=10) as answer:
        assert {g["id"] for g in json.load(answer)["games"]} == set(GAMES)
