// The page: the setup screen, or a table kept by the host. It opens tables (OpenTable), joins them from an invite
// link (`/play/#table=<id>&invite=<capability>`), draws them live from Watch, and plays with Play and AdviseSeat.
// It keeps only capabilities, by table (storage.ts): a reload reconnects to the host and redraws.

import * as alerts from "./alert";
import * as api from "./api";
import { verdictText } from "./badge";
import { button, el } from "./dom";
import { chosenLanguage, LANGUAGES, language, t, useLanguage } from "./i18n";
import { freshUi, type Handlers, tableScreen, tick, type Ui } from "./screen";
import { Session } from "./session";
import { type SetupChoice, setupScreen } from "./setup";
import * as storage from "./storage";
import { pastSteps, Watcher } from "./watch";

const root = document.getElementById("app") as HTMLElement;
const announce = document.getElementById("announce") as HTMLElement;
const alertRegion = document.getElementById("alert") as HTMLElement;
const toastRegion = document.getElementById("toast") as HTMLElement;
const languageSlot = document.getElementById("language") as HTMLElement;

let session: Session | null = null;
let ui: Ui = freshUi();
let watcher: Watcher | null = null;

/** The service's refusal in words for people, with its reason (e.g. STALE_SEQUENCE) for whoever reports it. */
function refusalText(r: api.Refusal): string {
  const words = t.refusals[r.reason];
  const said = words ?? (r.reason ? r.message : t.refusals.silent);
  const detail = words && r.message ? ` · ${r.message}` : "";
  return `${said}${detail}${r.reason ? ` (${r.reason})` : ""}`;
}

// -- drawing ----------------------------------------------------------------------------------------

function say(lines: string[]): void {
  if (lines.length) announce.textContent = lines.slice(-3).join(". ");
}

/** The table's message (a refusal, a lost connection) is read out once when it changes, not at every redraw. */
let alerted = "";

function render(): void {
  const s = session;
  if (!s) return;
  if (ui.message !== alerted) {
    alerted = ui.message;
    alertRegion.textContent = ui.message;
  }
  const active = document.activeElement as HTMLElement | null;
  const key = active && root.contains(active) ? active.dataset.key : undefined;
  const hadMove = Boolean(active?.closest("[data-move], .actions"));
  const log = root.querySelector(".log");
  const followLog = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  root.replaceChildren(tableScreen(s, ui, handlers, alerts.alertOn()));
  const again = key ? root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`) : null;
  if (again && !(again as HTMLButtonElement).disabled) again.focus();
  else if (s.myTurn && !ui.busy && (hadMove || !active || active === document.body)) {
    // Keyboard play: focus goes to the first move the player can make.
    root.querySelector<HTMLElement>("[data-move]:not([disabled])")?.focus();
  }
  const newLog = root.querySelector(".log");
  if (newLog && followLog) newLog.scrollTop = newLog.scrollHeight;
}

function screenOf(id: string, ...children: (Node | string)[]): void {
  root.replaceChildren(el("main", { id }, ...children));
}

function newTableButton(): HTMLElement {
  return button({ id: "new-table", class: "primary" }, t.page.newTable, () => handlers.newTable());
}

/** The hand that just ended, in one short line for a few seconds (and read out). */
let toastShown = -1n;
let toastTimer = 0;

function toast(s: Session): void {
  const ended = s.ended;
  if (!ended || ended.seq === toastShown) return;
  toastShown = ended.seq;
  toastRegion.textContent = ended.toast;
  toastRegion.hidden = false;
  say([ended.toast]);
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (toastRegion.hidden = true), 5000);
}

/** The language switch, on every screen: each language named in its own words; the choice is remembered. */
function languageSwitch(): void {
  const select = el("select", { id: "language-choice" }) as HTMLSelectElement;
  for (const [code, catalogue] of Object.entries(LANGUAGES)) {
    select.append(el("option", { value: code, lang: code }, catalogue.languages[code]));
  }
  select.value = language;
  select.addEventListener("change", () => {
    useLanguage(select.value, true);
    languageSwitch();
    redrawScreen();
  });
  languageSlot.replaceChildren(el("label", { for: "language-choice" }, t.page.language), select);
}

/** The screen shown now, drawn again (in a new language): the table, or the screen the address leads to. */
function redrawScreen(): void {
  if (session) render();
  else route();
}

/** The host will not show this table to this page again: say why, plainly, and offer a new one. */
function lost(tableId: string, r: api.Refusal): void {
  leaveTable();
  storage.forget(tableId);
  gone = r;
  showGone(r);
}

let gone: api.Refusal | null = null;

function showGone(r: api.Refusal): void {
  const texts: Record<string, string> = { TABLE_NOT_FOUND: t.page.tableNotFound, CAPABILITY_REVOKED: t.page.inviteRevoked };
  const text = texts[r.reason] ?? t.page.inviteInvalid;
  screenOf("gone", el("h2", {}, t.page.gone), el("p", { role: "alert", "data-reason": r.reason }, text), newTableButton());
}

// -- the table --------------------------------------------------------------------------------------

const handlers: Handlers = {
  play(legal, amount, cards) {
    void play(legal, amount, cards);
  },
  advise() {
    void advise();
  },
  pick(where, card) {
    const s = session;
    if (!s || ui.busy) return;
    if (!card) ui.picked = {};
    else ui.picked = { ...ui.picked, [where]: ui.picked[where] === card ? undefined : card };
    const { hand, widow } = ui.picked;
    const move = s.update?.legalActions.find((l) => l.kind === "EXCHANGE" && l.cards[0] === hand && l.cards[1] === widow);
    if (move) void play(move);
    else render();
  },
  reissue(seat) {
    void reissue(seat);
  },
  close() {
    void closeTable();
  },
  toggleAlert() {
    alerts.setAlert(!alerts.alertOn());
    render();
  },
  newTable() {
    gone = null;
    leaveTable();
    storage.leave();
    history.pushState(null, "", location.pathname + location.search);
    void showSetup();
  },
  redraw: render,
  start() {
    const s = session;
    if (!s?.owner) return;
    api.host.startTable({ tableId: s.tableId }, api.as(s.owner)).then(
      (started) => {
        if (started.status) s.setStatus(started.status);
        render();
      },
      (error) => {
        ui.message = refusalText(api.refusal(error));
        render();
      },
    );
  },
  react(kind) {
    const s = session;
    if (!s || s.seat === undefined) return;
    api.host.react({ tableId: s.tableId, kind }, api.as(s.capability)).catch((error) => {
      ui.message = refusalText(api.refusal(error));
      render();
    });
  },
};

/** How long a reaction stays on its seat. */
const REACTION_MS = 4000;

async function play(legal: api.LegalAction, amount?: bigint, cards?: string[]): Promise<void> {
  const s = session;
  if (!s || ui.busy || s.seat === undefined) return;
  ui.busy = true;
  ui.message = "";
  // The owner plays: the invites are sent, and their panel folds away.
  ui.invitesDone = true;
  ui.ownerOpen = false;
  render();
  try {
    // This seat's random bytes for the next draw, on its first move after each commitment (docs/fairness.md).
    const gift = s.fairness.entropy();
    const action = {
      seat: s.seat,
      kind: legal.kind,
      amount: legal.maxAmount > 0n ? (amount ?? legal.minAmount) : 0n,
      target: legal.target,
      cards: cards ?? legal.cards,
      entropy: gift.entropy,
    };
    const request = { tableId: s.tableId, expectedSeq: s.seq, action };
    let answer: Awaited<ReturnType<typeof api.host.play>>;
    try {
      answer = await api.host.play(request, api.as(s.capability));
      if (action.entropy) s.fairness.gave(gift.draw, action.entropy, true);
    } catch (error) {
      // Given already for this draw (before a reload, say), or the seat is the house: the move goes again without it.
      if (!action.entropy || api.refusal(error).reason !== "INVALID_ENTROPY") throw error;
      s.fairness.gave(gift.draw);
      answer = await api.host.play({ ...request, action: { ...action, entropy: "" } }, api.as(s.capability));
    }
    ui.drafts.delete(legal.kind);
    ui.picked = {};
    if (answer.update) say(s.apply(answer.update));
    toast(s);
  } catch (error) {
    const r = api.refusal(error);
    if (api.isFinal(r)) return lost(s.tableId, r);
    if (r.reason === "TABLE_CLOSED") s.closed = true;
    ui.message = refusalText(r);
  } finally {
    ui.busy = false;
  }
  if (session === s) render();
}

async function advise(): Promise<void> {
  const s = session;
  if (!s || ui.busy) return;
  ui.busy = true;
  ui.message = "";
  render();
  try {
    const answer = await api.host.adviseSeat({ tableId: s.tableId, samples: 0 }, api.as(s.capability));
    if (answer.advice) ui.advice = { seq: answer.advice.seq, answer: answer.advice };
  } catch (error) {
    ui.message = refusalText(api.refusal(error));
  } finally {
    ui.busy = false;
  }
  if (session === s) render();
}

async function reissue(seat: number | undefined): Promise<void> {
  const s = session;
  if (!s?.owner) return;
  try {
    const answer = await api.host.reissueInvite({ tableId: s.tableId, seat }, api.as(s.owner));
    if (answer.invite) ui.invites.set(seat === undefined ? "spectators" : `seat-${seat}`, answer.invite);
    ui.message = "";
  } catch (error) {
    ui.message = refusalText(api.refusal(error));
  }
  if (session === s) render();
}

async function closeTable(): Promise<void> {
  const s = session;
  if (!s?.owner) return;
  ui.confirmClose = false;
  try {
    await api.host.closeTable({ tableId: s.tableId }, api.as(s.owner));
    s.closed = true; // the watchers, this page's too, receive the last update, marked closed
  } catch (error) {
    ui.message = refusalText(api.refusal(error));
  }
  if (session === s) render();
}

function leaveTable(): void {
  watcher?.stop();
  watcher = null;
  session = null;
  ui = freshUi();
}

/** The steps a page that began late lacks, fetched once: the fairness record checks every pack with them
 * (docs/fairness.md), and the log and the last hand's settlement are read again from the opening. */
async function fetchHistory(s: Session, upTo: bigint): Promise<void> {
  const verdict = s.fairness.verdict;
  let steps: api.HostedUpdate[] | undefined;
  try {
    steps = await pastSteps(s.tableId, s.capability, upTo);
  } catch {
    // The record stays partial: the packs committed before the page joined stay "not verifiable here".
  }
  s.fairness.history(steps ?? [], upTo, s.seat);
  s.past(steps, upTo);
  if (session !== s) return;
  if (s.fairness.verdict !== verdict && s.fairness.verdict) say([verdictText(s.fairness.verdict)]);
  render();
}

function openTable(
  tableId: string,
  kept: storage.Kept,
  invites: Map<string, api.Invite> = new Map(),
  opening?: api.HostedUpdate,
): void {
  leaveTable();
  const s = new Session(tableId, kept.capability, kept.owner);
  session = s;
  // The opening's public events (the first commitments), which no Watch repeats: the record starts with them.
  if (opening) s.opening(opening);
  ui.invites = invites;
  ui.ownerOpen = invites.size > 0;
  ui.invitesDone = invites.size === 0;
  watcher = new Watcher(tableId, kept.capability, {
    afterSeq: () => (s.known ? s.seq : 0n),
    update(u) {
      const wasMyTurn = s.myTurn;
      const seq = s.seq;
      const before = s.fairness.verdict;
      const lines = s.apply(u);
      if (s.seq !== seq) ui.picked = {};
      const verdict = s.fairness.verdict;
      if (verdict && verdict !== before) lines.push(verdictText(verdict));
      const turn = !wasMyTurn && s.myTurn;
      say(turn ? [...lines, t.page.yourTurn] : lines);
      if (turn) alerts.yourTurn();
      const gap = s.fairness.gap();
      if (gap !== undefined) void fetchHistory(s, gap);
      render();
      toast(s);
    },
    presence(presence) {
      s.setPresence(presence);
      render();
    },
    status(status) {
      s.setStatus(status);
      render();
    },
    reaction(reaction) {
      s.reactions.set(reaction.seat, { kind: reaction.kind, until: Date.now() + REACTION_MS });
      say([`${s.names[reaction.seat] ?? ""}: ${t.hosting.reactions[reaction.kind] ?? ""}`]);
      render();
      setTimeout(render, REACTION_MS + 50);
    },
    connection(state, refusal) {
      if (state !== s.connection) say([t.connection[state]]);
      s.connection = state;
      if (state === "live" && ui.lostConnection) ui.message = "";
      ui.lostConnection = state === "reconnecting";
      if (state === "reconnecting") ui.message = `${t.page.connectionLost}${refusal?.reason ? ` (${refusal.reason})` : ""}`;
      render();
    },
    lost(refusal) {
      lost(tableId, refusal);
    },
  });
  watcher.start();
  render();
}

// -- opening a table --------------------------------------------------------------------------------

async function start(choice: SetupChoice): Promise<void> {
  const submit = root.querySelector<HTMLButtonElement>("#start");
  if (submit) submit.disabled = true;
  try {
    const opened = await api.host.openTable(choice.request);
    const mine = opened.invites.find((i) => i.seat === choice.mySeat);
    const owner = opened.owner?.capability;
    if (!mine || !owner) throw new Error(t.page.noSeatInvite);
    storage.keep(opened.tableId, mine.capability, owner);
    // The others' invites are shown once, here; the page keeps none of them.
    const invites = new Map<string, api.Invite>();
    for (const invite of opened.invites) if (invite.seat !== choice.mySeat) invites.set(`seat-${invite.seat}`, invite);
    if (invites.size && opened.spectators) invites.set("spectators", opened.spectators);
    history.pushState(null, "", `${location.pathname}${location.search}#table=${encodeURIComponent(opened.tableId)}`);
    openTable(opened.tableId, { capability: mine.capability, owner, at: Date.now() }, invites, opened.update);
  } catch (error) {
    setupMessage(refusalText(api.refusal(error)));
    if (submit) submit.disabled = false;
  }
}

function setupMessage(text: string): void {
  const message = root.querySelector("#setup-screen .message");
  if (message) message.textContent = text;
}

async function showSetup(): Promise<void> {
  screenOf("setup-screen", el("p", { class: "waiting" }, t.page.loadingGames));
  try {
    const { games } = await api.tables.listGames({});
    if (session) return;
    screenOf("setup-screen", setupScreen(games, (c) => void start(c), setupMessage), el("p", { class: "message", role: "alert" }));
  } catch (error) {
    screenOf("setup-screen", el("p", { role: "alert" }, refusalText(api.refusal(error))), newTableButton());
  }
}

/** Where the address points: an invite (kept, then taken out of the address bar), a table kept here, or setup. */
function route(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const tableId = fragment.get("table");
  const invite = fragment.get("invite");
  if (tableId && invite) {
    storage.keep(tableId, invite);
    // The capability leaves the address bar, so the link is not shared (or bookmarked) by accident.
    history.replaceState(null, "", `${location.pathname}${location.search}#table=${encodeURIComponent(tableId)}`);
  }
  if (gone) return showGone(gone);
  const id = tableId ?? storage.last();
  const kept = id ? storage.kept(id) : undefined;
  if (id && kept) {
    storage.keep(id, kept.capability);
    return openTable(id, kept);
  }
  leaveTable();
  if (tableId) {
    screenOf(
      "gone",
      el("h2", {}, t.page.noInvite),
      el("p", { role: "alert", "data-reason": "NO_INVITE" }, t.page.noInviteText),
      newTableButton(),
    );
    return;
  }
  void showSetup();
}

useLanguage(chosenLanguage());
languageSwitch();
alerts.wakeOnGesture();
window.addEventListener("hashchange", () => {
  gone = null;
  route();
});
setInterval(() => tick(root), 1000);
route();
