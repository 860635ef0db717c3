// The page: the setup screen, then the table; the bots' turns; refresh restores the table from localStorage.

import * as api from "./api";
import { cardElement, cardName } from "./cards";
import { el } from "./dom";
import { actionFor, autoPlay, mineOf, type Outcome, play } from "./play";
import { type SetupChoice, setupScreen } from "./setup";
import * as store from "./store";
import { eventText, picture, seatNames, transferText } from "./table";

const root = document.getElementById("app") as HTMLElement;
const params = new URLSearchParams(location.search);
/** Pause before each bot move (ms), so a person can follow; ?botDelay=0 plays them at once. */
const BOT_DELAY = Number(params.get("botDelay") ?? 500);
const LOG_LINES = 200;

let table: store.Saved | null = null;
let busy = false;
/** A bot's move is waiting for its timer: the page is not settled until it has been played. */
let botTimer: ReturnType<typeof setTimeout> | undefined;
let message = "";
/** A move was refused: the bots wait until the player goes on. */
let halted = false;
/** The service's advice for the player, for the state of sequence `seq` (asked with the player's key only). */
let advice: { seq: string; answer: api.AdviseResponse } | null = null;

const ACTION_NAMES: Record<string, string> = {
  DEAL: "Distribuisci (deal)",
  STAKE: "Punta (stake)",
  HIT: "Carta (hit)",
  HIT_HIDDEN: "Carta coperta (hit face down)",
  STAND: "Sto (stand)",
  BURN: "Brucia (burn)",
  KEEP: "Tengo (keep)",
  SWAP: "Scambio (swap)",
  DRAW: "Pesco (draw)",
  REVIVE: "Ridò una vita (revive)",
  EXCHANGE: "Scambio (exchange)",
  TAKE_ALL: "Prendo il monte (take the widow)",
  STOP: "Busso (stop)",
  PASS: "Passo (pass)",
};

/** A move in words: its kind, its target and its cards (a legal action's, or an advised action's). */
function actionLabel(legal: Pick<api.LegalAction, "kind" | "target" | "cards">, names: string[]): string {
  const parts = [ACTION_NAMES[legal.kind] ?? legal.kind.toLowerCase()];
  if (legal.target !== undefined) parts.push(`→ ${names[legal.target] ?? legal.target}`);
  if (legal.kind === "EXCHANGE" && legal.cards.length === 2) {
    parts.push(`${cardName(legal.cards[0])} ⇄ ${cardName(legal.cards[1])}`);
  } else if (legal.cards.length) {
    parts.push(legal.cards.map(cardName).join(", "));
  }
  return parts.join(": ");
}

// -- state changes ----------------------------------------------------------------------------------

function record(t: store.Saved, { answer, mine }: Outcome): void {
  const names = seatNames(mine.view);
  if (answer.action?.kind === "DEAL") {
    if (t.handOver) t.transfers = [];
    t.handOver = false;
    t.nextHand = true;
  }
  t.state = answer.state;
  t.seq = answer.seq;
  t.toAct = answer.toAct;
  t.isOver = answer.isOver;
  t.update = mine;
  t.transfers.push(...answer.settlement);
  // The first event of the acting seat is its move: marked [auto] when the service chose it.
  const moveEvent = mine.events.find((e) => e.seat === answer.action?.seat);
  for (const e of mine.events) {
    t.log.push(eventText(e, names, t.game, e === moveEvent));
    if (e.kind === "HAND_OVER" || e.kind === "GAME_OVER") {
      if (!t.handOver) t.hands += 1;
      t.handOver = true;
      t.nextHand = false;
    }
  }
  t.log = t.log.slice(-LOG_LINES);
  store.save(t);
}

/** What went wrong, for the player: the service's message and its reason (e.g. STALE_SEQUENCE). */
function errorText(error: unknown): string {
  if (error instanceof api.ServiceError) return `${error.message}${error.reason ? ` (${error.reason})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

/** The table redrawn from the player's GetView; the error's text if it could not be. */
async function refreshView(): Promise<string> {
  const t = table;
  if (!t) return "";
  try {
    const view = await api.getView(t.tableId, t.state, t.mySeat, t.keys[t.mySeat]);
    t.seq = view.seq;
    t.toAct = view.toAct;
    t.isOver = view.isOver;
    if (view.update) t.update = view.update;
    store.save(t);
    return "";
  } catch (error) {
    return errorText(error);
  }
}

/** After a refusal: the service's message, and the table redrawn from the player's GetView. */
async function refused(error: unknown): Promise<void> {
  message = errorText(error);
  const again = await refreshView();
  if (again) message += ` · ${again}`;
}

/** Plays the player's move, or (without one) the bots' turn; then the bots play on. */
async function move(action: api.Action | null, byPlayer = true): Promise<void> {
  const t = table;
  if (!t || busy) return;
  busy = true;
  if (byPlayer) {
    message = "";
    halted = false;
  }
  render();
  try {
    const bot = t.toAct.find((s) => t.policies[s]);
    if (action) record(t, await play(t, action));
    else if (bot !== undefined) record(t, await autoPlay(t, bot));
  } catch (error) {
    halted = true;
    await refused(error);
  }
  busy = false;
  botsTurn();
  render();
}

/** Between hands the bots wait for the player's "next hand"; otherwise the first bot to act plays. */
function waitsForNextHand(t: store.Saved): boolean {
  return !t.nextHand && !t.toAct.includes(t.mySeat);
}

/** Schedules the next bot's move, if a bot is to act; call it before `render`, which shows the page as busy
 * until that move has been played. */
function botsTurn(): void {
  const t = table;
  if (!t || busy || botTimer || halted || t.isOver || t.toAct.includes(t.mySeat) || waitsForNextHand(t)) return;
  if (!t.toAct.some((s) => t.policies[s])) return;
  botTimer = setTimeout(() => {
    botTimer = undefined;
    void move(null, false);
  }, BOT_DELAY);
}

async function start(choice: SetupChoice): Promise<void> {
  busy = true;
  message = "";
  try {
    const created = await api.createTable(choice.request);
    const keys = created.seatKeys.map((k) => k.key);
    const mySeat = 0;
    const mine = mineOf(created, mySeat);
    const names = seatNames(mine.view);
    table = {
      game: choice.request.game,
      title: choice.title,
      tableId: created.tableId,
      state: created.state,
      seq: created.seq,
      mySeat,
      keys,
      policies: choice.policies,
      update: mine,
      toAct: created.toAct,
      isOver: created.isOver,
      log: mine.events.map((e) => eventText(e, names, choice.request.game)),
      transfers: [...created.settlement],
      handOver: false,
      hands: 0,
      nextHand: false,
    };
    store.save(table);
  } catch (error) {
    message = errorText(error);
  }
  busy = false;
  botsTurn();
  render();
}

/** Asks the service what each of the player's moves is worth now. */
async function askAdvice(): Promise<void> {
  const t = table;
  if (!t || busy) return;
  busy = true;
  message = "";
  render();
  try {
    const answer = await api.advise(t.tableId, t.state, t.mySeat, t.keys[t.mySeat]);
    advice = { seq: t.seq, answer };
  } catch (error) {
    message = errorText(error);
  }
  busy = false;
  render();
}

// -- rendering --------------------------------------------------------------------------------------

function cardsRow(cards: api.TableCard[], seat?: number, count?: number): HTMLElement {
  const row = el("div", { class: "cards" });
  for (const c of cards) row.append(cardElement(c.card || undefined, seat));
  if (count) row.append(cardElement(undefined));
  if (count !== undefined) row.append(el("span", { class: "count" }, `${count}`));
  return row;
}

function actionsPanel(t: store.Saved, names: string[]): HTMLElement {
  const panel = el("section", { class: "actions", "aria-label": "Le tue mosse (your moves)" });
  const myTurn = t.toAct.includes(t.mySeat) && !t.isOver;
  if (!t.isOver && waitsForNextHand(t)) {
    const label = t.hands ? "Prossima mano (next hand)" : "Si comincia (start the hand)";
    const next = el("button", { type: "button", class: "primary next-hand", "data-kind": "NEXT_HAND" }, label);
    next.addEventListener("click", () => {
      t.nextHand = true;
      store.save(t);
      void move(null);
    });
    panel.append(next);
    return panel;
  }
  if (!myTurn && halted && !t.isOver) {
    const retry = el("button", { type: "button", class: "primary", "data-kind": "CONTINUE" }, "Continua (go on)");
    retry.addEventListener("click", () => void move(null));
    panel.append(retry);
    return panel;
  }
  if (!myTurn) {
    const who = t.toAct.map((s) => names[s]).join(", ");
    panel.append(el("p", { class: "waiting" }, t.isOver ? "Partita finita (game over)" : `Tocca a (to act): ${who}`));
    return panel;
  }
  for (const legal of t.update.legalActions) {
    const label = actionLabel(legal, names);
    const button = el("button", { type: "button", "data-kind": legal.kind, "aria-label": label }, label) as HTMLButtonElement;
    button.disabled = busy;
    if (legal.kind === "DEAL") button.classList.add("primary", "next-hand");
    if (Number(legal.maxAmount) > 0) {
      const min = Number(legal.minAmount);
      const max = Number(legal.maxAmount);
      const id = `amount-${legal.kind}`;
      const amount = el("input", { type: "number", id, min: String(min), max: String(max), step: "1", value: String(min) }) as HTMLInputElement;
      button.addEventListener("click", () => {
        const value = Math.round(Number(amount.value));
        if (!(value >= min && value <= max)) {
          message = `L'importo va da ${min} a ${max} (the amount must be ${min} to ${max})`;
          render();
          return;
        }
        void move(actionFor(t.mySeat, legal, value));
      });
      panel.append(el("div", { class: "amount" }, el("label", { for: id }, `Quanto (amount) ${min}–${max}`), amount, button));
    } else {
      button.addEventListener("click", () => void move(actionFor(t.mySeat, legal)));
      panel.append(button);
    }
  }
  return panel;
}

const percent = (p: number | string) => `${Math.round(Number(p) * 100)}%`;

/** The player's "what should I do?": a button, then a row per legal action (the best one marked). */
function advicePanel(t: store.Saved, names: string[]): HTMLElement | null {
  if (!t.toAct.includes(t.mySeat) || t.isOver || waitsForNextHand(t)) return null;
  const panel = el("section", { class: "advice", "aria-label": "Consiglio (advice)" });
  const shown = advice?.seq === t.seq ? advice.answer : null;
  if (!shown) {
    const ask = el("button", { type: "button", id: "advise" }, "Consiglio: che faccio? (what should I do?)") as HTMLButtonElement;
    ask.disabled = busy;
    ask.addEventListener("click", () => void askAdvice());
    panel.append(ask);
    return panel;
  }
  const sampled = shown.method === "ADVICE_METHOD_SAMPLED";
  const best = Math.max(...shown.actions.map((a) => Number(a.expectedValue)));
  const head = ["mossa (move)", "fiches attese (expected chips)", "vince (win)", "pari (push)", "perde (lose)", "sballa (bust)"];
  const rows = shown.actions.map((a) => {
    const move = a.action ? actionLabel(a.action, names) : "";
    const amount = a.action && Number(a.action.amount) ? ` ${a.action.amount}` : "";
    const ev = Number(a.expectedValue).toFixed(2) + (sampled ? ` ± ${Number(a.standardError).toFixed(2)}` : "");
    const cells = [move + amount, ev, percent(a.win), percent(a.push), percent(a.lose), percent(a.bust)];
    const row = el("tr", Number(a.expectedValue) === best ? { class: "best" } : {}, ...cells.map((c) => el("td", {}, c)));
    if (a.action) row.dataset.kind = a.action.kind;
    return row;
  });
  const how = sampled ? `${shown.samples} partite simulate (sampled deals)` : "calcolo esatto (exact)";
  panel.append(
    el("table", {}, el("caption", {}, `Consiglio (advice) · ${how}`), el("tr", {}, ...head.map((h) => el("th", { scope: "col" }, h))), ...rows),
  );
  return panel;
}

function settlementPanel(t: store.Saved, names: string[], results: string[]): HTMLElement | null {
  if (!t.handOver) return null;
  return el(
    "section",
    { class: "settlement", "aria-label": "Conti della mano (settlement)" },
    el("h3", {}, `Conti della mano (settlement) · ${t.hands}`),
    el("ul", {}, ...[...results, ...t.transfers.map((x) => transferText(x, names))].map((line) => el("li", {}, line))),
  );
}

function tableScreen(t: store.Saved): HTMLElement {
  const pic = picture(t.update.view);
  const names = pic.seats.map((s) => s.name);
  const seats = el("div", { class: "seats" });
  pic.seats.forEach((s, i) => {
    const who = i === t.mySeat ? "tu (you)" : `bot: ${t.policies[i]}`;
    const classes = ["seat", i === t.mySeat ? "me" : "", t.toAct.includes(i) ? "to-act" : "", s.out ? "out" : ""];
    seats.append(
      el(
        "section",
        { class: classes.join(" ").trim(), "data-seat": String(i), "data-chips": s.chips, "aria-label": `${s.name} (${who})` },
        el("h3", {}, s.name, el("small", {}, ` ${who}`)),
        el("p", { class: "chips" }, "fiches (chips): ", el("strong", { class: "chip-count" }, s.chips)),
        cardsRow(s.cards, i),
        el("p", { class: "notes" }, s.notes.join(" · ")),
      ),
    );
  });
  const middle = el("section", { class: "middle", "aria-label": "Il tavolo (the table)" });
  if (pic.pot !== null) middle.append(el("p", { class: "pot", "data-pot": pic.pot }, "piatto (pot): ", el("strong", {}, pic.pot)));
  for (const pile of pic.piles) {
    middle.append(el("div", { class: "pile" }, el("span", { class: "pile-label" }, pile.label), cardsRow(pile.cards, undefined, pile.count)));
  }
  middle.append(el("p", { class: "info" }, pic.info.join(" · ")));
  const log = el("ol", { class: "log", "aria-label": "Cronaca (log)" }, ...t.log.map((line) => el("li", {}, line)));
  const newTable = el("button", { type: "button", id: "new-table" }, "Nuovo tavolo (new table)");
  newTable.addEventListener("click", () => {
    store.forget();
    table = null;
    void showSetup();
  });
  const screen = el(
    "main",
    {
      id: "table",
      "data-game": t.game,
      "data-seq": t.seq,
      "data-hands": String(t.hands),
      "data-busy": String(busy || botTimer !== undefined),
    },
    el("header", {}, el("h2", {}, t.title), newTable),
    seats,
    middle,
    el("p", { class: "message", role: "alert" }, message),
    actionsPanel(t, names),
  );
  const advising = advicePanel(t, names);
  if (advising) screen.append(advising);
  const settlement = settlementPanel(t, names, pic.results);
  if (settlement) screen.append(settlement);
  screen.append(el("h3", {}, "Cronaca (log)"), log);
  return screen;
}

function render(): void {
  if (!table) return;
  const focused = document.activeElement as HTMLElement | null;
  const hadFocus = focused?.closest(".actions") !== null && focused !== document.body;
  root.replaceChildren(tableScreen(table));
  const log = root.querySelector(".log");
  log?.lastElementChild?.scrollIntoView({ block: "nearest" });
  // Keyboard play: focus moves to the first move the player can make.
  const first = root.querySelector<HTMLButtonElement>(".actions button:not([disabled])");
  if (first && (hadFocus || document.activeElement === document.body)) first.focus();
}

async function showSetup(): Promise<void> {
  try {
    const games = await api.listGames();
    root.replaceChildren(el("main", { id: "setup-screen" }, setupScreen(games, (c) => void start(c)), el("p", { class: "message", role: "alert" }, message)));
  } catch (error) {
    root.replaceChildren(el("p", { role: "alert" }, `The service did not answer: ${String(error)}`));
  }
}

async function restore(saved: store.Saved): Promise<void> {
  table = saved;
  message = await refreshView();
  botsTurn();
  render();
}

const saved = store.load();
if (saved) void restore(saved);
else void showSetup();
