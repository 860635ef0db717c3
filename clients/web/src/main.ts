// The page: the setup screen, or a table kept by the host. It opens tables (OpenTable), joins them from an invite
// link (`/play/#table=<id>&invite=<capability>`), draws them live from Watch, and plays with Play and AdviseSeat.
// It keeps only capabilities, by table (storage.ts): a reload reconnects to the host and redraws.

import * as api from "./api";
import { button, el } from "./dom";
import { Session } from "./session";
import { CONNECTION, freshUi, type Handlers, tableScreen, tick, type Ui } from "./screen";
import { type SetupChoice, setupScreen } from "./setup";
import * as storage from "./storage";
import { pastSteps, Watcher } from "./watch";
import { goneText, REFUSALS } from "./words";

const root = document.getElementById("app") as HTMLElement;
const announce = document.getElementById("announce") as HTMLElement;
const alertRegion = document.getElementById("alert") as HTMLElement;

let session: Session | null = null;
let ui: Ui = freshUi();
let watcher: Watcher | null = null;

/** The service's refusal in words for people, with its reason (e.g. STALE_SEQUENCE) for whoever reports it. */
function refusalText(r: api.Refusal): string {
  const words = REFUSALS;
  const said = words[r.reason] ?? (r.reason ? r.message : "Il servizio non risponde (the service does not answer)");
  const detail = words[r.reason] && r.message ? ` · ${r.message}` : "";
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
  root.replaceChildren(tableScreen(s, ui, handlers));
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
  return button({ id: "new-table", class: "primary" }, "Apri un nuovo tavolo (open a new table)", () => handlers.newTable());
}

/** The host will not show this table to this page again: say why, plainly, and offer a new one. */
function lost(tableId: string, r: api.Refusal): void {
  leaveTable();
  storage.forget(tableId);
  const text = goneText(r.reason);
  screenOf(
    "gone",
    el("h2", {}, "Tavolo non disponibile (table not available)"),
    el("p", { role: "alert", "data-reason": r.reason }, text),
    newTableButton(),
  );
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
  newTable() {
    leaveTable();
    storage.leave();
    history.pushState(null, "", location.pathname + location.search);
    void showSetup();
  },
  redraw: render,
};

async function play(legal: api.LegalAction, amount?: bigint, cards?: string[]): Promise<void> {
  const s = session;
  if (!s || ui.busy || s.seat === undefined) return;
  ui.busy = true;
  ui.message = "";
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
      if (action.entropy) s.fairness.gave(gift.draw);
    } catch (error) {
      // Given already for this draw (before a reload, say): the move goes again without it.
      if (!action.entropy || api.refusal(error).reason !== "INVALID_ENTROPY") throw error;
      s.fairness.gave(gift.draw);
      answer = await api.host.play({ ...request, action: { ...action, entropy: "" } }, api.as(s.capability));
    }
    ui.drafts.delete(legal.kind);
    ui.picked = {};
    if (answer.update) say(s.apply(answer.update));
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

/** The public record a page that joined late lacks, fetched once, so that it checks every pack (docs/fairness.md). */
async function fetchHistory(s: Session, upTo: bigint): Promise<void> {
  const verdict = s.fairness.verdict;
  let steps: api.HostedUpdate[] = [];
  try {
    steps = await pastSteps(s.tableId, s.capability, upTo);
  } catch {
    // The record stays partial: the packs committed before the page joined stay "not verifiable here".
  }
  s.fairness.history(steps, upTo, s.seat);
  if (session !== s) return;
  if (s.fairness.verdict !== verdict && s.fairness.verdict) say([s.fairness.verdict.text]);
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
  if (opening) s.fairness.step(opening.seq, opening.update?.events ?? [], undefined);
  ui.invites = invites;
  ui.ownerOpen = invites.size > 0;
  watcher = new Watcher(tableId, kept.capability, {
    afterSeq: () => (s.known ? s.seq : 0n),
    update(u) {
      const wasMyTurn = s.myTurn;
      const seq = s.seq;
      const lines = s.apply(u);
      if (s.seq !== seq) ui.picked = {};
      say(!wasMyTurn && s.myTurn ? [...lines, "Tocca a te (your turn)"] : lines);
      const gap = s.fairness.gap();
      if (gap !== undefined) void fetchHistory(s, gap);
      render();
    },
    presence(presence) {
      s.setPresence(presence);
      render();
    },
    connection(state, refusal) {
      if (state !== s.connection) say([CONNECTION[state]]);
      s.connection = state;
      if (state === "live" && ui.message.startsWith("Collegamento perso")) ui.message = "";
      if (state === "reconnecting") {
        ui.message = `Collegamento perso, riprovo… (connection lost, retrying)${refusal?.reason ? ` (${refusal.reason})` : ""}`;
      }
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
    if (!mine || !owner) throw new Error("the host's answer holds no invite for your seat");
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
  screenOf("setup-screen", el("p", { class: "waiting" }, "Carico i giochi… (loading the games…)"));
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
      el("h2", {}, "Manca l'invito (no invite)"),
      el(
        "p",
        { role: "alert", "data-reason": "NO_INVITE" },
        "Questo browser non ha un invito per questo tavolo: apri il link che ti hanno mandato. " +
          "(This browser holds no invite to this table: open the link you were sent.)",
      ),
      newTableButton(),
    );
    return;
  }
  void showSetup();
}

window.addEventListener("hashchange", route);
setInterval(() => tick(root), 1000);
route();
