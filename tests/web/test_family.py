"""A table families love: one language at a time, a phone in one hand, the result at a glance, fairness in one
badge, invites that fold away, and a page that reads out every move.

Each screen is rendered in each language and holds no phrase of the other's catalogue; no user-visible literal
sits in the page's code outside the catalogues; the log and the last hand's settlement come back after a reload;
the owner's invites fold once sent, each with a QR code that reads back as its link and a share button where the
browser has a share sheet; axe-core finds no serious or critical violation at phone and desktop widths; the table
fits a 360 px phone without moving when the turn changes; and the screenshots of a turn, the result and the
fairness badge match the references kept in tests/web/visual at both sizes.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web import replay
from tests.web.conftest import ROOT, WAIT_MS, Person, Server, person
from tests.web.test_friends import open_with_friends
from tests.web.test_web import click_move, my_turns, open_solo, wait_turn

pytestmark = pytest.mark.long  # minutes of browsers: `make test` starts them first

WEB = ROOT / "clients" / "web"
NODE = shutil.which("node")
VISUAL = Path(__file__).parent / "visual"
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
PAGE_WORDS = """() => {
    // What a person may read or hear: the text of the page (not the screen reader's past announcements) and
    // the names and hints its elements carry.
    const copy = document.body.cloneNode(true);
    copy.querySelectorAll('#announce, #alert, script').forEach(e => e.remove());
    const named = [...document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')].flatMap(e =>
        ['aria-label', 'title', 'placeholder', 'alt'].map(a => e.getAttribute(a) || ''));
    return [copy.textContent, ...named].join('\\n');
}"""

needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed (make web needs it too)")


def node(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([NODE or "node", *args], cwd=WEB, capture_output=True, text=True, timeout=120)


@cache
def phrases() -> dict[str, list[str]]:
    done = node("tools/phrases.mjs")
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def _pattern(phrase: str) -> re.Pattern[str]:
    before = r"(?<!\w)" if phrase[0].isalnum() else ""
    after = r"(?!\w)" if phrase[-1].isalnum() else ""
    return re.compile(before + re.escape(phrase) + after)


@cache
def foreign_patterns(language: str) -> list[tuple[str, re.Pattern[str]]]:
    """The other catalogues' phrases that no phrase of ``language``'s own catalogue holds (names, "QR", "Cucù" are
    the same in both)."""
    own = phrases()[language]
    others = {p for code, found in phrases().items() if code != language for p in found}
    patterns = [(p, _pattern(p)) for p in sorted(others)]
    return [(p, pattern) for p, pattern in patterns if not any(pattern.search(mine) for mine in own)]


def check_language(someone: Person, language: str, screen: str) -> None:
    """The page is in ``language``: the document says so, and it shows no phrase of another catalogue."""
    assert someone.page.evaluate("document.documentElement.lang") == language
    text = someone.page.evaluate(PAGE_WORDS)
    found = [phrase for phrase, pattern in foreign_patterns(language) if pattern.search(text)]
    assert not found, f"{screen} in {language} shows phrases of another language: {found}"


# -- the catalogues -------------------------------------------------------------------------------------------


@needs_node
def test_no_user_visible_literal_outside_the_catalogues(tmp_path: Path) -> None:
    done = node("tools/lint-strings.mjs")
    assert done.returncode == 0, done.stdout + done.stderr
    # The lint finds what it must: text shown by el(), button(), textContent, an aria-label, or a sentence.
    (tmp_path / "shown.ts").write_text(
        'el("p", {}, "Tocca a te");\n'
        'button({}, ready ? "Sto" : t.x, go);\n'
        "node.textContent = `Ciao ${name}`;\n"
        'el("span", { "aria-label": "carta" });\n'
        'const said = "Il tavolo è chiuso";\n'
        'const fine = ["seat", "me"].join(" ") + " · " + "[data-move]:not([disabled])";\n'
    )
    done = node("tools/lint-strings.mjs", str(tmp_path))
    assert done.returncode == 1
    assert [line.split(":")[1] for line in done.stdout.splitlines()[:-1]] == ["1", "2", "3", "4", "5"], done.stdout


@needs_node
@pytest.mark.parametrize("locale", ["it-IT", "en-GB"])
def test_every_screen_speaks_one_language(browser: Any, server: Server, locale: str) -> None:
    language = locale[:2]
    # The setup form, with every game's options.
    me = person(browser, locale=locale)
    me.goto(f"{server.url}/play/")
    me.page.wait_for_selector("#setup")
    me.page.click("#setup summary")
    for game in ("sette_e_mezzo", "saltacavallo", "trentuno"):
        me.page.select_option("#game", game)
        check_language(me, language, f"the setup form ({game})")
    assert ("Trentuno with the widow" in me.text("#game")) == (language == "en")
    me.close()
    # The owner's invites, a QR code shown.
    owner = person(browser, locale=locale)
    open_with_friends(owner, server, "sette_e_mezzo", 2)
    owner.page.click("[data-key=qr-seat-1]")
    owner.page.wait_for_selector("[data-qr=seat-1] svg")
    check_language(owner, language, "the owner's invites")
    owner.close()
    # A table mid-hand with the advice, then the hand's end with the fairness badge open.
    me = person(browser, locale=locale)
    me.goto(f"{server.url}/play/")
    me.page.wait_for_selector("#setup")
    me.page.select_option("#game", "sette_e_mezzo")
    me.page.click("#start")
    me.wait_live()
    advised = False
    for kinds in my_turns(me):
        if not advised and len(kinds) > 1:
            me.page.click("#advise")
            me.page.wait_for_selector(".advice li[data-kind]", timeout=WAIT_MS)
            check_language(me, language, "a table mid-hand, with advice")
            advised = True
        click_move(me, kinds)
    me.page.wait_for_selector(".settlement", timeout=WAIT_MS)
    me.page.click(".fairness summary")
    check_language(me, language, "the result")
    me.close()
    # The recorded Trentuno hand as it ends (the toast), and the pages of a table gone or an invite missing.
    record = replay.load()
    me = person(browser, locale=locale)
    show_recorded(me, server, record, at=5, push=True)
    check_language(me, language, "the end of a Trentuno hand")
    me.close()
    missing = (("#table=t_000000000000000000000000&invite=x", "TABLE_NOT_FOUND"), ("#table=t_1", "NO_INVITE"))
    for address, reason in missing:
        me = person(browser, locale=locale)
        me.goto(f"{server.url}/play/{address}")
        me.page.wait_for_selector(f"#gone [data-reason={reason}]", timeout=WAIT_MS)
        check_language(me, language, f"the page of {reason}")
        assert me.errors == []
        me.close()


@needs_node
def test_the_language_switch_is_remembered(browser: Any, server: Server) -> None:
    me = person(browser, locale="it-IT")
    me.goto(f"{server.url}/play/")
    me.page.wait_for_selector("#setup")
    assert me.text("#setup h2") == "Nuovo tavolo"
    me.page.select_option("#language-choice", "en")
    me.page.wait_for_selector("#setup")
    assert me.text("#setup h2") == "New table"
    check_language(me, "en", "the setup form after the switch")
    me.page.reload()
    me.page.wait_for_selector("#setup")
    assert me.text("#setup h2") == "New table"
    assert me.page.evaluate("localStorage.getItem('mazziere.language')") == "en"
    # At a table the switch redraws everything, the log and the settlement included.
    record = replay.load()
    me.goto("about:blank")  # a new document, which the recorded table is served to
    show_recorded(me, server, record, at=7)
    check_language(me, "en", "a table in English")
    me.page.select_option("#language-choice", "it")
    check_language(me, "it", "a table switched to Italian")
    assert "Conti dell'ultima mano" in me.text(".settlement")
    assert me.errors == []
    me.close()


# -- the result, the log ----------------------------------------------------------------------------------------


def wait_for_log(someone: Person, log: list[str]) -> None:
    """The page's log becomes ``log`` (the history it fetched drawn: the page may draw what it kept first)."""
    items = "() => [...document.querySelectorAll('.log li')].map(i => i.textContent)"
    with contextlib.suppress(PlaywrightTimeout):  # the comparison below says what differs
        someone.page.wait_for_function(
            f"expected => JSON.stringify(({items})()) === expected", arg=json.dumps(log), timeout=WAIT_MS
        )
    assert someone.page.evaluate(items) == log


def test_the_log_and_the_settlement_are_read_again_after_a_reload(browser: Any, server: Server) -> None:
    """After a reload, and in another browser opening the same seat, the log starts at the table's opening and the
    last hand's settlement is the same, every payment in it; the hand's end was told in a toast."""
    me = open_solo(browser, server, "sette_e_mezzo")
    for kinds in my_turns(me):
        click_move(me, kinds)
    me.page.wait_for_selector(".settlement", timeout=WAIT_MS)
    toast = me.page.text_content("#toast") or ""
    assert re.search(r"(vince|Hai vinto) \d+ fiche|nessuno vince", toast), toast
    wait_turn(me, hand_ends=False)
    log = me.page.eval_on_selector_all(".log li", "items => items.map(i => i.textContent)")
    settlement = me.text(".settlement")
    assert log[0].startswith("Si mescola il mazzo") or "banco" in log[0], log[:3]
    assert re.search(r" paga \d+ fiche", settlement) and "Pagamenti" in settlement
    me.page.reload()
    me.page.wait_for_selector("#table[data-history=whole]", timeout=WAIT_MS)
    wait_for_log(me, log)
    assert me.text(".settlement") == settlement
    stored = me.stored()
    again = person(browser)
    again.context.add_init_script(f"for (const [k, v] of Object.entries({stored})) localStorage.setItem(k, v);")
    again.goto(f"{server.url}/play/")
    again.page.wait_for_selector("#table[data-history=whole]", timeout=WAIT_MS)
    wait_for_log(again, log)
    assert again.text(".settlement") == settlement
    assert me.errors == [] and again.errors == []
    me.close()
    again.close()


def test_the_sette_e_mezzo_settlement_names_the_bank_and_busts(browser: Any, server: Server) -> None:
    me = open_solo(browser, server, "sette_e_mezzo")
    for kinds in my_turns(me):
        click_move(me, kinds)
    me.page.wait_for_selector(".settlement", timeout=WAIT_MS)
    results = me.page.eval_on_selector_all(".settlement .results li", "items => items.map(i => i.textContent)")
    assert re.match(r"Il banco \(.+\) ((fa|sballa con) .+ punti|non gioca: hanno sballato tutti)", results[0]), results
    for line in results[1:]:
        assert re.search(r"(vince|perde|sballa e perde) \d+ fiche|pari, nessuno paga", line), line
    busts = me.page.eval_on_selector_all("section[data-seat]", "s => s.map(x => x.textContent)")
    if any("ha sballato" in seat for seat in busts):
        assert any("sballa" in line for line in results), (busts, results)
    me.close()


# -- invites --------------------------------------------------------------------------------------------------

SHARE = """(() => {
    // A browser with a share sheet: what the page shares is kept.
    window.__shared = [];
    Object.defineProperty(Navigator.prototype, 'share', {
        configurable: true,
        value: function (data) { window.__shared.push(data); return Promise.resolve(); },
    });
})();"""

PIXELS = """
    // The pixels of a PNG image (base64), as a canvas draws it.
    const pixels = async (png) => {
        const image = new Image();
        image.src = 'data:image/png;base64,' + png;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        return context.getImageData(0, 0, image.width, image.height);
    };"""

READ_QR = (
    """async ([png, jsqr]) => {
    // The QR code as the screen shows it, read back (jsQR, in a page of its own).
    eval(jsqr);"""
    + PIXELS
    + """
    const image = await pixels(png);
    return jsQR(image.data, image.width, image.height)?.data ?? null;
}"""
)


def read_qr(browser: Any, png: bytes) -> str | None:
    reader = browser.new_page()
    try:
        jsqr = (WEB / "node_modules" / "jsqr" / "dist" / "jsQR.js").read_text()
        found: str | None = reader.evaluate(READ_QR, [base64.b64encode(png).decode(), jsqr])
        return found
    finally:
        reader.close()


def test_the_invite_panel_folds_once_the_links_are_copied_and_shows_qr_codes(browser: Any, server: Server) -> None:
    owner = person(browser, permissions=["clipboard-write"])
    links = open_with_friends(owner, server, "sette_e_mezzo", 3)
    page = owner.page
    # Open at the top of the table, before the seats, right after the table opens.
    assert page.evaluate("document.querySelector('#owner').open")
    assert page.evaluate(
        "document.querySelector('#owner').compareDocumentPosition(document.querySelector('.seats')) & 4"
    )
    # No share sheet in this browser: no share button.
    if not page.evaluate("typeof navigator.share === 'function'"):
        assert page.locator("#owner .share").count() == 0
    # Each link as a QR code that reads back as the link.
    page.click("[data-key=qr-seat-1]")
    code = page.wait_for_selector("[data-qr=seat-1] svg")
    assert read_qr(owner.context.browser, code.screenshot()) == links["seat-1"]
    # Copied, every one: the panel folds, and moves below the log.
    for key in links:
        page.click(f"[data-key=copy-{key}]")
    page.wait_for_selector("#owner[data-folded=true]")
    assert not page.evaluate("document.querySelector('#owner').open")
    assert page.evaluate("document.querySelector('.log').compareDocumentPosition(document.querySelector('#owner')) & 4")
    assert owner.errors == []
    owner.close()


def test_the_invites_go_through_the_share_sheet_where_the_browser_has_one(browser: Any, server: Server) -> None:
    owner = person(browser)
    owner.context.add_init_script(SHARE)
    links = open_with_friends(owner, server, "trentuno", 3)
    page = owner.page
    assert page.locator("#owner .share").count() == len(links)
    for key in links:
        page.click(f"[data-key=share-{key}]")
    page.wait_for_selector("#owner[data-folded=true]")
    shared = page.evaluate("window.__shared")
    assert [item["url"] for item in shared] == list(links.values())
    assert all(item["text"] for item in shared)
    assert owner.errors == []
    owner.close()


# -- the recorded table: phone layout, accessibility, screenshots ------------------------------------------------


def show_recorded(someone: Person, server: Server, record: dict[str, Any], at: int, push: bool = False) -> None:
    """The page at the recorded table's step ``at`` (``push``: the next step arrives live), its clock stopped 42 s
    before the turn's time runs out; the log read from the table's history."""
    replay.serve(someone.context, server.url, record, at, push)
    ends = int(record["steps"][at].get("turnEndsUnixMs", 0))
    someone.page.clock.install(time=(ends - 43_000) / 1000)
    someone.page.clock.pause_at((ends - 42_000) / 1000)
    someone.goto(f"{server.url}/play/#table={record['tableId']}")
    someone.page.wait_for_selector("#table[data-connection=live][data-history=whole]", timeout=WAIT_MS)
    if push:
        someone.wait_seq(at + 1)


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return replay.load()


@pytest.mark.parametrize("width", [360, 390])
def test_a_phone_in_one_hand(browser: Any, server: Server, record: dict[str, Any], width: int) -> None:
    """Your turn at a phone's width: nothing wider than the screen, your cards in one row and large enough to tap,
    the bar at the bottom of the screen with whose turn, the clock and your moves close under it."""
    me = person(browser, width, 844)
    show_recorded(me, server, record, at=2)
    page = me.page
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    cards = page.eval_on_selector_all(
        ".seats.mine .card", "cs => cs.map(c => { const r = c.getBoundingClientRect(); return [r.top, r.width]; })"
    )
    assert len(cards) == 3 and len({round(top) for top, _ in cards}) == 1, cards
    assert all(w >= 44 for _, w in cards), cards
    bar = page.evaluate(
        """() => {
            const bar = document.querySelector('.bar').getBoundingClientRect();
            const turn = document.querySelector('.bar .turn').getBoundingClientRect();
            const first = document.querySelector('.bar .actions > *').getBoundingClientRect();
            const moves = [...document.querySelectorAll('.bar [data-move]')].map(m => m.getBoundingClientRect());
            return { bottom: bar.bottom, turnBottom: turn.bottom, firstTop: first.top,
                     moveBottom: Math.max(...moves.map(m => m.bottom)) };
        }"""
    )
    assert bar["bottom"] <= 844 and bar["moveBottom"] <= 844, bar
    assert bar["firstTop"] - bar["turnBottom"] < 16, f"a band between the turn and the moves: {bar}"
    assert "Tocca a te" in me.text(".bar .turn") and "0:42" in me.text(".bar .timer")
    assert me.errors == []
    me.close()


PARTS = """() => ['.seats', '.middle', '.seats.mine', '.fairness summary', '.bar'].map(selector => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return [selector, Math.round(r.top), Math.round(r.height)];
})"""


def test_nothing_moves_when_the_turn_changes(browser: Any, server: Server, record: dict[str, Any]) -> None:
    """The table's parts stand where they stood when the turn passes from a bot (step 4) to you (step 5): the
    seats, the middle, your seat, the badge, and the top of the bar (which only grows down with your moves)."""
    places = []
    for at in (4, 5):
        me = person(browser, 390, 844)
        show_recorded(me, server, record, at=at)
        places.append(me.page.evaluate(PARTS))
        me.close()
    assert [part[:2] for part in places[0]] == [part[:2] for part in places[1]]
    assert [part[2] for part in places[0][:-1]] == [part[2] for part in places[1][:-1]]


AXE = WEB / "node_modules" / "axe-core" / "axe.min.js"


def serious(someone: Person) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is, once its animations (chips moving in,
    faded until they land) have ended."""
    someone.page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    violations: list[dict[str, Any]] = someone.page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => ({ id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' ') + ' ' + n.failureSummary)"
        ".slice(0, 5) }))"
    )
    return violations


@pytest.mark.parametrize("size", SIZES)
def test_axe_finds_no_serious_violation(browser: Any, server: Server, record: dict[str, Any], size: str) -> None:
    width, height = SIZES[size]
    me = person(browser, width, height)
    me.context.add_init_script(path=str(AXE))
    me.goto(f"{server.url}/play/")
    me.page.wait_for_selector("#setup")
    me.page.click("#setup summary")
    assert serious(me) == [], "the setup form"
    me.close()
    for at, push, screen in ((2, False, "a table mid-hand"), (5, True, "the result")):
        me = person(browser, width, height)
        me.context.add_init_script(path=str(AXE))
        show_recorded(me, server, record, at=at, push=push)
        me.page.click(".fairness summary")
        me.page.clock.resume()  # axe-core waits on timers, which the stopped clock would hold
        assert serious(me) == [], screen
        me.close()


SCENES = {"turn": (2, False), "result": (5, True), "fairness": (7, False)}

DIFFERENCE = (
    """async ([shot, reference]) => {
    // The share of pixels that differ by more than a font's anti-aliasing does, between two PNG images."""
    + PIXELS
    + """
    const [a, b] = [await pixels(shot), await pixels(reference)];
    if (a.width !== b.width || a.height !== b.height) return 1;
    let differ = 0;
    for (let i = 0; i < a.data.length; i += 4) {
        const most = Math.max(...[0, 1, 2].map(c => Math.abs(a.data[i + c] - b.data[i + c])));
        if (most > 64) differ += 1;
    }
    return differ / (a.width * a.height);
}"""
)
TOLERANCE = 0.01
"""At most 1% of the pixels may differ much (text drawn by another version of a font moves a few pixels)."""


@cache
def emoji_font() -> bool:
    """Whether fontconfig, which Chromium draws its text with, has the colour emoji font the references were drawn
    with (without it the reactions' 👏 is a box, and their row wraps differently on a phone)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    found = subprocess.run([fc_list, ":family=Noto Color Emoji", "family"], capture_output=True, text=True, timeout=60)
    return bool(found.stdout.strip())


def scenes() -> Iterator[tuple[str, str]]:
    for size in SIZES:
        for scene in SCENES:
            yield size, scene


@pytest.mark.parametrize(("size", "scene"), list(scenes()))
def test_the_screenshots_match_the_references(
    browser: Any, server: Server, record: dict[str, Any], size: str, scene: str, tmp_path: Path
) -> None:
    """A turn, the result and the fairness badge, at a phone's size and a desktop's, as clients/web/README.md
    shows them (``UPDATE_SCREENSHOTS=1`` writes the references again)."""
    if not emoji_font():
        pytest.skip("no Noto Color Emoji (fonts-noto-color-emoji, which `make test` installs with apt as root)")
    width, height = SIZES[size]
    at, push = SCENES[scene]
    me = person(browser, width, height)
    show_recorded(me, server, record, at=at, push=push)
    if scene == "fairness":
        me.page.wait_for_selector('.fairness[data-verified="true"]', timeout=WAIT_MS)
        me.page.click(".fairness summary")
        me.page.eval_on_selector(".fairness", "badge => badge.scrollIntoView({ block: 'center' })")
    me.page.mouse.move(0, 0)
    shot = me.page.screenshot(animations="disabled", caret="hide")
    reference = VISUAL / f"{scene}-{size}.png"
    (tmp_path / reference.name).write_bytes(shot)
    if os.environ.get("UPDATE_SCREENSHOTS") == "1" or not reference.exists():
        reference.write_bytes(shot)
    compare = me.context.browser.new_page()
    try:
        images = [base64.b64encode(shot).decode(), base64.b64encode(reference.read_bytes()).decode()]
        share = compare.evaluate(DIFFERENCE, images)
    finally:
        compare.close()
    assert share <= TOLERANCE, f"{share:.2%} of the pixels differ from {reference} (this run's in {tmp_path})"
    assert me.errors == []
    me.close()
