// The table screen, drawn from a Session and the page's own passing state (a move in flight, a message, the
// advice, amounts typed, cards picked, invites just made). Every control has a `data-key` that stays the same from
// one drawing to the next, so focus survives the redraws live updates bring.
//
// Laid out for a phone in one hand: the others' seats, the middle of the table, your seat (your cards in one
// row), then a bar that sticks to the bottom of the screen with whose turn it is, the clock and your moves; below
// it the advice, the last hand's settlement, the log, and the owner's panel once its invites are sent.

import * as api from "./api";
import { cardButton, cardElement, cardName } from "./cards";
import { button, el } from "./dom";
import { t } from "./i18n";
import { invitesPanel } from "./invites";
import type { Session } from "./session";
import { picture, type Pile, type SeatPicture } from "./table";
import { fairnessBadge } from "./badge";
import { gameTitle, moveName, policyName, seatName } from "./words";

export interface Ui {
  busy: boolean;
  message: string;
  /** The message says the connection was lost (it goes when the page is live again). */
  lostConnection: boolean;
  advice: { seq: bigint; answer: api.AdviseResponse } | null;
  /** Amounts typed, by move kind: kept when a move is refused. */
  drafts: Map<string, string>;
  /** Trentuno's exchange: the card of the hand and the card of the widow picked so far. */
  picked: { hand?: string; widow?: string };
  /** Invites made by this page as the owner: shown until the page leaves the table, never stored. */
  invites: Map<string, api.Invite>;
  /** The invites copied or shared, and those whose QR code is shown. */
  sent: Set<string>;
  qr: Set<string>;
  /** The owner's panel is open; `invitesDone`: its links were sent (it folds, and moves below the log). */
  ownerOpen: boolean;
  invitesDone: boolean;
  confirmClose: boolean;
  fairnessOpen: boolean;
}

export function freshUi(): Ui {
  return {
    busy: false,
    message: "",
    lostConnection: false,
    advice: null,
    drafts: new Map(),
    picked: {},
    invites: new Map(),
    sent: new Set(),
    qr: new Set(),
    ownerOpen: false,
    invitesDone: true,
    confirmClose: false,
    fairnessOpen: false,
  };
}

export interface Handlers {
  play(legal: api.LegalAction, amount?: bigint, cards?: string[]): void;
  advise(): void;
  pick(where: "hand" | "widow", card: string): void;
  reissue(seat: number | undefined): void;
  close(): void;
  newTable(): void;
  toggleAlert(): void;
  redraw(): void;
  /** The owner ends the waiting room. */
  start(): void;
  /** This seat's quick reaction, to everyone at the table. */
  react(kind: string): void;
}

/** A move in words: its kind, its target and its cards (a legal action's, or an advised action's). */
export function actionLabel(legal: Pick<api.LegalAction, "kind" | "target" | "cards">, names: string[]): string {
  const target = seatName(names, legal.target);
  let label = moveName(legal.kind);
  if (legal.kind === "SWAP" && target) label = t.move.swapWith(target);
  else if (legal.kind === "REVIVE" && target) label = t.move.reviveFrom(target);
  else if (target) label += ` → ${target}`;
  if (legal.kind === "EXCHANGE" && legal.cards.length === 2) {
    label = t.move.exchange(cardName(legal.cards[0]), cardName(legal.cards[1]));
  } else if (legal.cards.length) {
    label += `: ${legal.cards.map(cardName).join(", ")}`;
  }
  return label;
}

export function timeLeft(endsMs: number): string {
  const seconds = Math.max(0, Math.ceil((endsMs - Date.now()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** Moves wait while one is in flight, and while the page is not live (its view may be behind the table's). */
function held(s: Session, ui: Ui): boolean {
  return ui.busy || s.connection !== "live";
}

const SITTING = new Set(["SIT_OUT", "SIT_IN"]);

/** The moves offered to the viewer: the legal actions of their turn, but sitting a seat out or in, which the table
 * does by who is there (docs/host.md), never a person. */
function legalOf(s: Session): api.LegalAction[] {
  return s.myTurn ? (s.update?.legalActions ?? []).filter((l) => !SITTING.has(l.kind)) : [];
}


/** The cards of the exchanges the rules allow now: the hand's and the widow's. */
function exchangeable(legal: api.LegalAction[]): { hand: Set<string>; widow: Set<string> } {
  const moves = legal.filter((l) => l.kind === "EXCHANGE" && l.cards.length === 2);
  return { hand: new Set(moves.map((m) => m.cards[0])), widow: new Set(moves.map((m) => m.cards[1])) };
}

function cardsRow(cards: api.TableCard[], seat?: number, count?: number): HTMLElement {
  const row = el("div", { class: "cards" });
  for (const c of cards) row.append(cardElement(c.card || undefined, seat));
  if (count) row.append(cardElement(undefined));
  if (count !== undefined) row.append(el("span", { class: "count" }, `${count}`));
  return row;
}

/** Cards that can be picked for an exchange; the others drawn as usual. */
function pickRow(
  cards: api.TableCard[],
  where: "hand" | "widow",
  allowed: Set<string>,
  ui: Ui,
  h: Handlers,
  off: boolean,
  seat?: number,
): HTMLElement {
  const row = el("div", { class: "cards" });
  const verb = where === "hand" ? t.move.give : t.move.take;
  for (const c of cards) {
    if (!c.card || !allowed.has(c.card)) {
      row.append(cardElement(c.card || undefined, seat));
      continue;
    }
    const code = c.card;
    const pick = cardButton(code, verb, ui.picked[where] === code);
    pick.dataset.key = `pick-${where}-${code}`;
    pick.dataset.pick = where;
    pick.dataset.move = "EXCHANGE";
    if (seat !== undefined) pick.dataset.seat = String(seat);
    pick.disabled = off;
    pick.addEventListener("click", () => h.pick(where, code));
    row.append(pick);
  }
  return row;
}

/** How long the chips moving take to float into place (ms), as style.css animates them. */
const MOVING_MS = 1200;

/** The seat's chips, and the chips the last step moved to or from it ("+3", "−1"), until the next step. */
function chipsLine(s: Session, seat: number, chips: bigint): HTMLElement {
  const count = el("strong", { class: "chip-count" }, String(chips));
  const line = el("p", { class: "chips" }, `${t.table.chips}: `, count);
  const moved = s.moved;
  const delta = moved?.bySeat.get(seat);
  const elapsed = moved ? Math.min(Date.now() - moved.at, MOVING_MS) : MOVING_MS;
  if (delta) {
    const badge = el("span", { class: `chip-delta ${delta > 0n ? "up" : "down"}`, "aria-hidden": "true" });
    badge.textContent = delta > 0n ? `+${delta}` : `−${-delta}`;
    // A redraw keeps the animation where it was (CSSOM, which the page's CSP allows).
    badge.style.animationDelay = `-${elapsed}ms`;
    count.classList.add("changed");
    count.style.animationDelay = `-${elapsed}ms`;
    line.append(badge);
  }
  return line;
}

function seatPanel(s: Session, ui: Ui, h: Handlers, seat: SeatPicture, i: number): HTMLElement {
  const legal = legalOf(s);
  const picks = exchangeable(legal);
  const presence = s.presence.find((p) => p.seat === i);
  const bot = presence?.bot ?? "";
  const mine = i === s.seat;
  const who = mine ? t.table.you : bot ? policyName(bot) : t.table.person;
  const connected = presence?.connected ?? false;
  const toAct = s.toAct.includes(i) && !s.isOver && !s.closed;
  const classes = ["seat", mine ? "me" : "", toAct ? "to-act" : "", seat.out ? "out" : ""];
  const status = bot
    ? el("span", { class: "presence bot" })
    : el("span", { class: `presence ${connected ? "on" : "off"}` }, connected ? t.table.present : t.table.away);
  if (!bot && s.playedByTable(i) && !seat.sittingOut) status.append(" · ", el("span", { class: "played-by-table" }, t.hosting.playedByTable));
  const reacted = s.reactions.get(i);
  const bubble =
    reacted && reacted.until > Date.now()
      ? el("span", { class: "reaction", "data-reaction": reacted.kind }, t.hosting.reactions[reacted.kind] ?? "")
      : "";
  const cards = mine && picks.hand.size ? pickRow(seat.cards, "hand", picks.hand, ui, h, held(s, ui), i) : cardsRow(seat.cards, i);
  return el(
    "section",
    {
      class: classes.filter(Boolean).join(" "),
      "data-seat": String(i),
      "data-chips": String(seat.chips),
      "data-connected": String(bot ? true : connected),
      "aria-label": `${seat.name} (${who})`,
    },
    el("h3", {}, seat.name, el("small", {}, ` ${who}`), " ", status, " ", bubble),
    chipsLine(s, i, seat.chips),
    cards,
    el("p", { class: "notes" }, seat.notes.join(" · ")),
  );
}

function pileRow(pile: Pile, picks: Set<string>, ui: Ui, h: Handlers, off: boolean): HTMLElement {
  const cards = pile.id === "widow" && picks.size ? pickRow(pile.cards, "widow", picks, ui, h, off) : cardsRow(pile.cards, undefined, pile.count);
  return el("div", { class: "pile", "data-pile": pile.id }, el("span", { class: "pile-label" }, pile.label), cards);
}

function middlePanel(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const pic = picture(s.update?.view);
  const picks = exchangeable(legalOf(s)).widow;
  const middle = el("section", { class: "middle", "aria-label": t.table.theTable });
  if (pic.pot !== null) {
    middle.append(el("p", { class: "pot", "data-pot": String(pic.pot) }, `${t.view.pot}: `, el("strong", {}, String(pic.pot))));
  }
  for (const pile of pic.piles) middle.append(pileRow(pile, picks, ui, h, held(s, ui)));
  middle.append(el("p", { class: "info" }, pic.info.join(" · ")));
  return middle;
}

/** What the frame colours mean. */
function legend(): HTMLElement {
  return el(
    "p",
    { class: "legend", "aria-label": t.table.legend },
    el("span", { class: "swatch you", "aria-hidden": "true" }),
    t.table.legendYou,
    el("span", { class: "swatch to-act", "aria-hidden": "true" }),
    t.table.legendToAct,
  );
}

/** Whose turn it is, and the time left to a person's turn (the page's clock ticks it down; see `tick`). */
function turnLine(s: Session): HTMLElement {
  const line = el("p", { class: "turn" });
  if (s.closed || s.isOver || !s.toAct.length) return line;
  const people = s.toAct.filter((seat) => !s.isBot(seat));
  const others = s.toAct.filter((seat) => seat !== s.seat).map((seat) => seatName(s.names, seat));
  line.append(el("strong", {}, s.myTurn ? t.table.yourTurn : t.table.turnOf(others.join(", "))));
  if (people.length && s.turnEndsMs > 0) {
    line.append(` · ${t.table.timeLeft} `, el("span", { class: "timer", "data-ends": String(s.turnEndsMs) }, timeLeft(s.turnEndsMs)));
  } else if (!people.length) {
    line.append(` · ${t.table.botThinking}`);
  }
  return line;
}

function amountControl(legal: api.LegalAction, names: string[], ui: Ui, h: Handlers, index: number, off: boolean): HTMLElement {
  const label = actionLabel(legal, names);
  const min = legal.minAmount;
  const max = legal.maxAmount;
  const id = `amount-${legal.kind}-${index}`;
  const amount = el("input", { type: "number", id, min: String(min), max: String(max), step: "1", inputmode: "numeric" }) as HTMLInputElement;
  amount.value = ui.drafts.get(legal.kind) ?? String(min);
  amount.dataset.key = id;
  amount.dataset.move = legal.kind;
  amount.addEventListener("input", () => ui.drafts.set(legal.kind, amount.value));
  const send = () => {
    ui.drafts.set(legal.kind, amount.value);
    const typed = amount.value.trim();
    if (!/^\d+$/.test(typed) || BigInt(typed) < min || BigInt(typed) > max) {
      ui.message = t.table.amountRange(String(min), String(max));
      h.redraw();
      return;
    }
    h.play(legal, BigInt(typed));
  };
  const play = button({ "data-kind": legal.kind, "data-move": legal.kind, "data-key": `move-${legal.kind}-${index}` }, label, send);
  play.disabled = off;
  amount.addEventListener("keydown", (event) => {
    if (event.key === "Enter") send();
  });
  return el("div", { class: "amount" }, el("label", { for: id }, t.table.amount(String(min), String(max))), amount, play);
}

/** Your moves (or what you wait for), in the bar. */
function movesRow(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const row = el("div", { class: "actions" });
  const waiting = (text: string) => {
    row.append(el("p", { class: "waiting" }, text));
    return row;
  };
  if (s.closed) return waiting(t.table.closed);
  if (s.isOver) return waiting(t.table.over);
  if (s.seat === undefined) return waiting(t.table.watching);
  const legal = legalOf(s);
  if (!legal.length) return waiting(t.table.wait);
  const names = s.names;
  const picks = exchangeable(legal);
  if (picks.hand.size) {
    const chosen = ui.picked.hand ?? ui.picked.widow;
    let help = t.table.exchangeHelp;
    if (ui.picked.hand) help = t.table.pickedHand(cardName(ui.picked.hand));
    else if (chosen) help = t.table.pickedWidow(cardName(chosen));
    row.append(el("p", { class: "exchange-help", id: "exchange-help" }, help));
    if (chosen) row.append(button({ class: "clear", "data-key": "pick-clear" }, t.table.clearPick, () => h.pick("hand", "")));
  }
  legal.forEach((move, i) => {
    if (move.kind === "EXCHANGE") return;
    if (move.maxAmount > 0n) {
      row.append(amountControl(move, names, ui, h, i, held(s, ui)));
      return;
    }
    const play = button({ "data-kind": move.kind, "data-move": move.kind, "data-key": `move-${move.kind}-${i}` }, actionLabel(move, names), () =>
      h.play(move),
    );
    play.disabled = held(s, ui);
    if (move.kind === "DEAL") play.classList.add("primary", "next-hand");
    row.append(play);
  });
  if (worthAdvice(legal) && ui.advice?.seq !== s.seq) {
    const ask = button({ id: "advise", class: "advise", "data-key": "advise" }, t.advice.ask, () => h.advise());
    ask.disabled = held(s, ui);
    row.append(ask);
  }
  return row;
}

/** The bar at the bottom of the screen: whose turn, the clock, a refusal if any, your moves. */
function actionBar(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const bar = el("section", { class: "bar", "aria-label": t.table.moves }, turnLine(s));
  if (ui.message) bar.append(el("p", { class: "message" }, ui.message));
  bar.append(movesRow(s, ui, h));
  return bar;
}

const percent = (p: number) => `${Math.round(p * 100)}%`;

/** Worth asking for advice: a choice to make (not a forced move, such as the deal). */
function worthAdvice(legal: api.LegalAction[]): boolean {
  const choices = legal.filter((l) => l.kind !== "DEAL");
  return choices.length > 1 || choices.some((l) => l.maxAmount > l.minAmount);
}

/** How the figures were found: over sampled deals, or counted over every way the unseen cards may lie; exact
 * only where every action's basis says exact (the bank's advice may be an approximation). */
function methodText(advice: api.AdviseResponse): string {
  if (advice.method === api.AdviceMethod.SAMPLED) return t.advice.sampled(String(advice.samples));
  const exact = advice.actions.every((a) => a.basis === api.AdviceBasis.EXACT);
  return exact ? t.advice.exact : t.advice.approximate;
}

/** The margin of one action's expected chips: a standard error where sampled, a bound where approximate. */
function margin(a: api.ActionAdvice): string {
  if (a.basis === api.AdviceBasis.SAMPLED) return ` ± ${a.standardError.toFixed(2)}`;
  if (a.basis === api.AdviceBasis.APPROXIMATE) return ` ± ${a.errorBound.toFixed(2)} (${t.advice.about})`;
  return "";
}

function advicePanel(s: Session, ui: Ui): HTMLElement | null {
  const shown = ui.advice?.seq === s.seq && s.myTurn ? ui.advice.answer : null;
  if (!shown) return null;
  const busts = s.game === "sette_e_mezzo";
  const best = Math.max(...shown.actions.map((a) => a.expectedValue));
  const names = s.names;
  const items = shown.actions.map((a) => {
    const move = a.action ? actionLabel(a.action, names) : "";
    const amount = a.action && a.action.amount ? ` ${a.action.amount}` : "";
    const ev = a.expectedValue;
    const figures: [string, string][] = [
      [t.advice.expected, `${ev > 0 ? "+" : ""}${ev.toFixed(2)}${margin(a)}`],
      [t.advice.win, percent(a.win)],
      [t.advice.push, percent(a.push)],
      [t.advice.lose, percent(a.lose)],
    ];
    if (busts) figures.push([t.advice.bust, percent(a.bust)]);
    const isBest = ev === best;
    const item = el(
      "li",
      isBest ? { class: "best" } : {},
      el("strong", {}, move + amount),
      isBest ? el("span", { class: "badge" }, ` ${t.advice.best}`) : "",
      el("dl", {}, ...figures.map(([term, value]) => el("div", {}, el("dt", {}, term), el("dd", {}, value)))),
    );
    if (a.action) item.dataset.kind = a.action.kind;
    return item;
  });
  return el(
    "section",
    { class: "advice", "aria-label": t.advice.title },
    el("h3", {}, `${t.advice.title} · ${methodText(shown)}`),
    el("ul", { class: "advice-list" }, ...items),
  );
}

function settlementPanel(s: Session): HTMLElement | null {
  const hand = s.settlement();
  if (!hand) return null;
  const list = (lines: string[], kind: string) => el("ul", { class: kind }, ...lines.map((line) => el("li", {}, line)));
  return el(
    "section",
    { class: "settlement", "aria-labelledby": "settlement-title" },
    el("h3", { id: "settlement-title" }, t.result.title),
    list(hand.results, "results"),
    hand.payments.length ? el("h4", {}, t.result.payments) : "",
    hand.payments.length ? list(hand.payments, "payments") : "",
  );
}

function logPanel(s: Session, lines: string[]): HTMLElement[] {
  const items = lines.slice(-300).map((line) => el("li", {}, line));
  if (s.history === "loading") items.unshift(el("li", { class: "log-note" }, t.log.loading));
  else if (s.history === "partial") items.unshift(el("li", { class: "log-note" }, t.log.partial));
  return [el("h3", { id: "log-title" }, t.log.title), el("ol", { class: "log", "aria-labelledby": "log-title", tabindex: "0" }, ...items)];
}

const BELL_PATH =
  '<path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6z" fill="none" stroke="currentColor" stroke-width="2"/>' +
  '<path d="M10 19a2 2 0 0 0 4 0" fill="none" stroke="currentColor" stroke-width="2"/>';
const BELL = `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${BELL_PATH}</svg>`;
const BELL_OFF =
  `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${BELL_PATH}` +
  '<path d="M4 4l16 16" stroke="currentColor" stroke-width="2"/></svg>';

export function tableScreen(s: Session, ui: Ui, h: Handlers, alertIsOn: boolean): HTMLElement {
  // A bell, named by its state: "alert on my turn: off". Its picture is markup of this file, not text.
  const alert = button(
    { id: "alert-toggle", class: "alert-toggle", "data-key": "alert-toggle", "aria-pressed": String(alertIsOn), title: t.table.alertHint },
    "",
    () => h.toggleAlert(),
  );
  alert.innerHTML = alertIsOn ? BELL : BELL_OFF;
  alert.setAttribute("aria-label", alertIsOn ? t.table.alertOn : t.table.alertOff);
  const newTable = button({ id: "new-table", "data-key": "new-table" }, t.table.newTable, () => h.newTable());
  const screen = el(
    "main",
    {
      id: "table",
      "data-game": s.game,
      "data-seq": String(s.seq),
      "data-hands": String(s.hands),
      "data-seat": s.seat === undefined ? "" : String(s.seat),
      "data-connection": s.connection,
      "data-busy": String(ui.busy),
      "data-closed": String(s.closed),
      "data-my-turn": String(s.myTurn),
      "data-history": s.history,
      "data-state": s.waiting ? "waiting" : s.paused ? "paused" : "playing",
    },
    el(
      "header",
      {},
      el("h2", {}, gameTitle(s.game)),
      el("span", { class: `connection ${s.connection}` }, t.connection[s.connection]),
      alert,
      newTable,
    ),
  );
  if (!s.known) {
    screen.append(el("p", { class: "waiting" }, t.table.connecting), el("p", { class: "message" }, ui.message));
    return screen;
  }
  const owner = invitesPanel(s, ui, h);
  if (owner && !ui.invitesDone) screen.append(owner);
  const pic = picture(s.update?.view);
  const others = el("div", { class: "seats" });
  let mine: HTMLElement | null = null;
  pic.seats.forEach((seat, i) => {
    const panel = seatPanel(s, ui, h, seat, i);
    if (i === s.seat) mine = el("div", { class: "seats mine" }, panel);
    else others.append(panel);
  });
  const names = s.names;
  const role = s.seat !== undefined ? t.table.role(seatName(names, s.seat)) : t.table.spectator;
  const { log, fairness } = s.chronicle();
  // The play (the table, your seat, the bar) and its story (the advice, the last hand, the log) side by side on a
  // wide screen, one after the other on a phone.
  const play = el("div", { class: "play" }, el("p", { class: "role" }, role), legend());
  const held = hostingNote(s, h);
  if (held) play.append(held);
  play.append(others, middlePanel(s, ui, h));
  if (mine) play.append(mine);
  play.append(fairnessBadge(s, ui, fairness), actionBar(s, ui, h));
  if (s.seat !== undefined && !s.closed) play.append(reactionsRow(h));
  const story = el("div", { class: "story" });
  for (const panel of [advicePanel(s, ui), settlementPanel(s)]) if (panel) story.append(panel);
  story.append(...logPanel(s, log));
  if (owner && ui.invitesDone) story.append(owner);
  screen.append(el("div", { class: "layout" }, play, story));
  return screen;
}

/** The waiting room (how many have come; the owner's "Si comincia") or the pause, above the seats. */
function hostingNote(s: Session, h: Handlers): HTMLElement | null {
  if (s.paused) return el("p", { class: "hosting", role: "status", "data-state": "paused" }, t.hosting.paused);
  if (!s.waiting) return null;
  const people = s.presence.filter((p) => !p.bot);
  const note = el(
    "div",
    { class: "hosting", role: "status", "data-state": "waiting" },
    el("p", {}, t.hosting.waiting(people.filter((p) => p.joined).length, people.length)),
  );
  if (s.owner) {
    note.append(el("p", {}, t.hosting.waitingOwner));
    note.append(button({ class: "start", "data-key": "start", "data-move": "START" }, t.hosting.start, () => h.start()));
  }
  return note;
}

/** The quick reactions a seat may send: a fixed set, each a button. */
function reactionsRow(h: Handlers): HTMLElement {
  const row = el("div", { class: "reactions", role: "group", "aria-label": t.hosting.reactionsLabel });
  for (const [kind, shown] of Object.entries(t.hosting.reactions)) {
    row.append(button({ class: "react", "data-key": `react-${kind}`, "data-reaction": kind }, shown, () => h.react(kind)));
  }
  return row;
}

/** Ticks the turn timers down (the page's own clock; the host keeps the real one and plays when it runs out). */
export function tick(root: HTMLElement): void {
  for (const timer of root.querySelectorAll<HTMLElement>(".timer[data-ends]")) timer.textContent = timeLeft(Number(timer.dataset.ends));
}
