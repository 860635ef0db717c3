// The table screen, drawn from a Session and the page's own passing state (a move in flight, a message, the
// advice, amounts typed, cards picked, invites just made). Every control has a `data-key` that stays the same from
// one drawing to the next, so focus survives the redraws live updates bring.

import * as api from "./api";
import { cardButton, cardElement, cardName } from "./cards";
import { button, el } from "./dom";
import type { Session } from "./session";
import { picture, type Pile } from "./table";
import { ACTION_NAMES, gameTitle, policyName, shortHex } from "./words";

export interface Ui {
  busy: boolean;
  message: string;
  advice: { seq: bigint; answer: api.AdviseResponse } | null;
  /** Amounts typed, by move kind: kept when a move is refused. */
  drafts: Map<string, string>;
  /** Trentuno's exchange: the card of the hand and the card of the widow picked so far. */
  picked: { hand?: string; widow?: string };
  /** Invites made by this page as the owner: shown until the page leaves the table, never stored. */
  invites: Map<string, api.Invite>;
  ownerOpen: boolean;
  confirmClose: boolean;
}

export function freshUi(): Ui {
  return { busy: false, message: "", advice: null, drafts: new Map(), picked: {}, invites: new Map(), ownerOpen: false, confirmClose: false };
}

export interface Handlers {
  play(legal: api.LegalAction, amount?: bigint, cards?: string[]): void;
  advise(): void;
  pick(where: "hand" | "widow", card: string): void;
  reissue(seat: number | undefined): void;
  close(): void;
  newTable(): void;
  redraw(): void;
}

/** A move in words: its kind, its target and its cards (a legal action's, or an advised action's). */
export function actionLabel(legal: Pick<api.LegalAction, "kind" | "target" | "cards">, names: string[]): string {
  const target = legal.target !== undefined ? (names[legal.target] ?? `posto (seat) ${legal.target + 1}`) : "";
  let label = ACTION_NAMES[legal.kind] ?? legal.kind.toLowerCase().replace(/_/g, " ");
  if (legal.kind === "SWAP" && target) label = `Scambio con ${target} (swap with ${target})`;
  else if (legal.kind === "REVIVE" && target) label = `Rientro: una vita da ${target} (revive: a life from ${target})`;
  else if (target) label += ` → ${target}`;
  if (legal.kind === "EXCHANGE" && legal.cards.length === 2) {
    label = `Scambio (exchange): dai ${cardName(legal.cards[0])}, prendi ${cardName(legal.cards[1])}`;
  } else if (legal.cards.length) {
    label += `: ${legal.cards.map(cardName).join(", ")}`;
  }
  return label;
}

export function timeLeft(endsMs: number): string {
  const seconds = Math.max(0, Math.ceil((endsMs - Date.now()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export const CONNECTION: Record<Session["connection"], string> = {
  connecting: "collegamento… (connecting)",
  live: "in diretta (live)",
  reconnecting: "riconnessione… (reconnecting)",
};

/** Moves wait while one is in flight, and while the page is not live (its view may be behind the table's). */
function held(s: Session, ui: Ui): boolean {
  return ui.busy || s.connection !== "live";
}

function legalOf(s: Session): api.LegalAction[] {
  return s.myTurn ? (s.update?.legalActions ?? []) : [];
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
  const verb = where === "hand" ? "Dai (give)" : "Prendi (take)";
  for (const c of cards) {
    if (!c.card || !allowed.has(c.card)) {
      row.append(cardElement(c.card || undefined, seat));
      continue;
    }
    const code = c.card;
    const button = cardButton(code, verb, ui.picked[where] === code);
    button.dataset.key = `pick-${where}-${code}`;
    button.dataset.pick = where;
    button.dataset.move = "EXCHANGE";
    if (seat !== undefined) button.dataset.seat = String(seat);
    button.disabled = off;
    button.addEventListener("click", () => h.pick(where, code));
    row.append(button);
  }
  return row;
}

function seatsPanel(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const pic = picture(s.update?.view);
  const legal = legalOf(s);
  const picks = exchangeable(legal);
  const seats = el("div", { class: "seats" });
  pic.seats.forEach((seat, i) => {
    const presence = s.presence.find((p) => p.seat === i);
    const bot = presence?.bot ?? "";
    const mine = i === s.seat;
    const who = mine ? "tu (you)" : bot ? policyName(bot) : "persona (person)";
    const connected = presence?.connected ?? false;
    const classes = ["seat", mine ? "me" : "", s.toAct.includes(i) && !s.isOver ? "to-act" : "", seat.out ? "out" : ""];
    const status = bot
      ? el("span", { class: "presence bot" }, "")
      : el("span", { class: `presence ${connected ? "on" : "off"}` }, connected ? "collegato (connected)" : "assente (away)");
    const cards = mine && picks.hand.size ? pickRow(seat.cards, "hand", picks.hand, ui, h, held(s, ui), i) : cardsRow(seat.cards, i);
    seats.append(
      el(
        "section",
        {
          class: classes.join(" ").trim(),
          "data-seat": String(i),
          "data-chips": String(seat.chips),
          "data-connected": String(bot ? true : connected),
          "aria-label": `${seat.name} (${who})`,
        },
        el("h3", {}, seat.name, el("small", {}, ` ${who}`)),
        status,
        el("p", { class: "chips" }, "fiches (chips): ", el("strong", { class: "chip-count" }, String(seat.chips))),
        cards,
        el("p", { class: "notes" }, seat.notes.join(" · ")),
      ),
    );
  });
  return seats;
}

function pileRow(pile: Pile, picks: Set<string>, ui: Ui, h: Handlers, off: boolean): HTMLElement {
  const cards = pile.id === "widow" && picks.size ? pickRow(pile.cards, "widow", picks, ui, h, off) : cardsRow(pile.cards, undefined, pile.count);
  return el("div", { class: "pile", "data-pile": pile.id }, el("span", { class: "pile-label" }, pile.label), cards);
}

function middlePanel(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const pic = picture(s.update?.view);
  const picks = exchangeable(legalOf(s)).widow;
  const middle = el("section", { class: "middle", "aria-label": "Il tavolo (the table)" });
  if (pic.pot !== null) {
    middle.append(el("p", { class: "pot", "data-pot": String(pic.pot) }, "piatto (pot): ", el("strong", {}, String(pic.pot))));
  }
  for (const pile of pic.piles) middle.append(pileRow(pile, picks, ui, h, held(s, ui)));
  middle.append(el("p", { class: "info" }, pic.info.join(" · ")));
  return middle;
}

/** Committed dealing (docs/fairness.md): the commitment to the next draw, short, and the check of the last pack
 * revealed (over the events this page received). */
function fairnessLine(s: Session): HTMLElement {
  const { commitment, verdict } = s.fairness;
  const line = el("p", {
    class: "fairness",
    "data-draw": commitment ? String(commitment.draw) : "",
    "data-commitment": commitment?.data ?? "",
    "data-verified": verdict ? String(verdict.ok) : "",
  });
  if (commitment) {
    line.append(
      `Prossima estrazione (next draw) ${commitment.draw}, impegno (commitment) `,
      el("code", { title: commitment.data }, shortHex(commitment.data)),
    );
  }
  if (verdict) {
    if (commitment) line.append(" · ");
    const state = verdict.ok === true ? "ok" : verdict.ok === false ? "bad" : "unknown";
    // Not a live region: the screen is drawn again at every step; the verdict is read out once, as a log line.
    line.append(el("span", { class: `verdict ${state}` }, verdict.text));
  }
  return line;
}

/** Whose turn it is, and the time left to a person's turn (the page's clock ticks it down; see `tick`). */
function turnLine(s: Session): HTMLElement {
  const line = el("p", { class: "turn" });
  if (s.closed || s.isOver || !s.toAct.length) return line;
  const names = s.names;
  const people = s.toAct.filter((seat) => !s.isBot(seat));
  const who = s.toAct.map((seat) => (seat === s.seat ? "te (you)" : (names[seat] ?? ""))).join(", ");
  line.append(s.myTurn ? "Tocca a te (your turn)" : `Tocca a (to play): ${who}`);
  if (people.length && s.turnEndsMs > 0) {
    line.append(" · tempo (time left) ", el("span", { class: "timer", "data-ends": String(s.turnEndsMs) }, timeLeft(s.turnEndsMs)));
  } else if (!people.length) {
    line.append(" · il bot ci pensa… (the bot is thinking)");
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
      ui.message = `L'importo va da ${min} a ${max} (the amount must be ${min} to ${max})`;
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
  return el("div", { class: "amount" }, el("label", { for: id }, `Quanto (amount) ${min}–${max}`), amount, play);
}

function actionsPanel(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const panel = el("section", { class: "actions", "aria-label": "Le tue mosse (your moves)" });
  if (s.closed) {
    panel.append(el("p", { class: "waiting" }, "Il tavolo è chiuso (the table is closed)."));
    return panel;
  }
  if (s.isOver) {
    panel.append(el("p", { class: "waiting" }, "Partita finita (game over)."));
    return panel;
  }
  if (s.seat === undefined) {
    panel.append(el("p", { class: "waiting" }, "Guardi il tavolo da spettatore (you are watching)."));
    return panel;
  }
  const legal = legalOf(s);
  if (!legal.length) {
    panel.append(el("p", { class: "waiting" }, "Aspetta il tuo turno (wait for your turn)."));
    return panel;
  }
  const names = s.names;
  const picks = exchangeable(legal);
  if (picks.hand.size) {
    const chosen = ui.picked.hand ?? ui.picked.widow;
    panel.append(
      el(
        "p",
        { class: "exchange-help", id: "exchange-help" },
        chosen
          ? `Scelta (picked): ${cardName(chosen)}. Ora ` +
              (ui.picked.hand ? "una carta del monte (now a card of the widow)." : "una tua carta (now one of yours).")
          : "Scambio: scegli una tua carta e una del monte (exchange: pick one of your cards, then one of the widow's).",
      ),
    );
    if (chosen) {
      panel.append(button({ class: "clear", "data-key": "pick-clear" }, "Annulla la scelta (clear the pick)", () => h.pick("hand", "")));
    }
  }
  legal.forEach((move, i) => {
    if (move.kind === "EXCHANGE") return;
    if (move.maxAmount > 0n) {
      panel.append(amountControl(move, names, ui, h, i, held(s, ui)));
      return;
    }
    const label = actionLabel(move, names);
    const play = button({ "data-kind": move.kind, "data-move": move.kind, "data-key": `move-${move.kind}-${i}` }, label, () => h.play(move));
    play.disabled = held(s, ui);
    if (move.kind === "DEAL") play.classList.add("primary", "next-hand");
    panel.append(play);
  });
  return panel;
}

const percent = (p: number) => `${Math.round(p * 100)}%`;

/** Worth asking for advice: a choice to make (not a forced move, such as the deal). */
function worthAdvice(legal: api.LegalAction[]): boolean {
  const choices = legal.filter((l) => l.kind !== "DEAL");
  return choices.length > 1 || choices.some((l) => l.maxAmount > l.minAmount);
}

/** How the figures were found: over sampled deals, or counted over every way the unseen cards may lie; "esatto"
 * only where every action's basis says exact (the bank's advice may be an approximation). */
function methodText(advice: api.AdviseResponse): string {
  if (advice.method === api.AdviceMethod.SAMPLED) return `${advice.samples} partite simulate (sampled deals)`;
  const exact = advice.actions.every((a) => a.basis === api.AdviceBasis.EXACT);
  return exact ? "calcolo esatto (exact)" : "calcolo in parte approssimato (partly approximate)";
}

/** The margin of one action's expected chips: a standard error where sampled, a bound where approximate. */
function margin(a: api.ActionAdvice): string {
  if (a.basis === api.AdviceBasis.SAMPLED) return ` ± ${a.standardError.toFixed(2)}`;
  if (a.basis === api.AdviceBasis.APPROXIMATE) return ` ± ${a.errorBound.toFixed(2)} (circa, approximate)`;
  return "";
}

function advicePanel(s: Session, ui: Ui, h: Handlers): HTMLElement | null {
  const legal = legalOf(s);
  if (!worthAdvice(legal)) return null;
  const panel = el("section", { class: "advice", "aria-label": "Consiglio (advice)" });
  const shown = ui.advice?.seq === s.seq ? ui.advice.answer : null;
  if (!shown) {
    const ask = button({ id: "advise", "data-key": "advise" }, "Consiglio: che faccio? (what should I do?)", () => h.advise());
    ask.disabled = held(s, ui);
    panel.append(ask);
    return panel;
  }
  const busts = s.game === "sette_e_mezzo";
  const best = Math.max(...shown.actions.map((a) => a.expectedValue));
  const names = s.names;
  const items = shown.actions.map((a) => {
    const move = a.action ? actionLabel(a.action, names) : "";
    const amount = a.action && a.action.amount ? ` ${a.action.amount}` : "";
    const ev = a.expectedValue;
    const figures: [string, string][] = [
      ["fiches attese (expected chips)", `${ev > 0 ? "+" : ""}${ev.toFixed(2)}${margin(a)}`],
      ["vince (win)", percent(a.win)],
      ["pari (push)", percent(a.push)],
      ["perde (lose)", percent(a.lose)],
    ];
    if (busts) figures.push(["sballa (bust)", percent(a.bust)]);
    const isBest = ev === best;
    const item = el(
      "li",
      isBest ? { class: "best" } : {},
      el("strong", {}, move + amount),
      isBest ? el("span", { class: "badge" }, " la migliore (best)") : "",
      el("dl", {}, ...figures.map(([term, value]) => el("div", {}, el("dt", {}, term), el("dd", {}, value)))),
    );
    if (a.action) item.dataset.kind = a.action.kind;
    return item;
  });
  panel.append(el("h3", {}, `Consiglio (advice) · ${methodText(shown)}`), el("ul", { class: "advice-list" }, ...items));
  return panel;
}

function settlementPanel(s: Session): HTMLElement | null {
  if (!s.settlement) return null;
  return el(
    "section",
    { class: "settlement", "aria-label": "Conti dell'ultima mano (the last hand's settlement)" },
    el("h3", {}, "Conti dell'ultima mano (the last hand's settlement)"),
    el("ul", {}, ...s.settlement.map((line) => el("li", {}, line))),
  );
}

/** An invite link with its copy button (the link is text: opening it here would take this page to that seat). */
export function inviteRow(label: string, key: string, invite: api.Invite): HTMLElement {
  const id = `invite-${key}`;
  const input = el("input", { type: "text", id, readonly: "", class: "invite-url", "data-invite": key, "data-key": id }) as HTMLInputElement;
  input.value = invite.url;
  input.addEventListener("focus", () => input.select());
  const copy = button({ class: "copy", "data-key": `copy-${key}` }, "Copia (copy)", () => {
    navigator.clipboard.writeText(invite.url).then(
      () => (copy.textContent = "Copiato (copied)"),
      () => {
        input.focus();
        input.select();
        copy.textContent = "Selezionato: Ctrl+C per copiare (selected: press Ctrl+C)";
      },
    );
  });
  return el("div", { class: "invite" }, el("label", { for: id }, label), input, copy);
}

function ownerPanel(s: Session, ui: Ui, h: Handlers): HTMLElement | null {
  if (!s.owner || s.closed) return null;
  const names = s.names;
  const rows: HTMLElement[] = [];
  for (const p of s.presence) {
    if (p.bot || p.seat === s.seat) continue;
    const key = `seat-${p.seat}`;
    const name = names[p.seat] ?? p.name;
    const invite = ui.invites.get(key);
    const label = `Nuovo invito per ${name} (new invite; the old one stops working)`;
    const again = button({ class: "reissue", "data-key": `reissue-${key}` }, label, () => h.reissue(p.seat));
    rows.push(el("div", { class: "owner-seat" }, invite ? inviteRow(`Invito di ${name} (${name}'s invite)`, key, invite) : "", again));
  }
  const watchers = ui.invites.get("spectators");
  const label = "Nuovo link per gli spettatori (new spectators' link; the old one stops working)";
  const again = button({ class: "reissue", "data-key": "reissue-spectators" }, label, () => h.reissue(undefined));
  rows.push(el("div", { class: "owner-seat" }, watchers ? inviteRow("Spettatori (spectators)", "spectators", watchers) : "", again));
  const close = el("div", { class: "close-table" });
  if (ui.confirmClose) {
    const yes = button({ class: "danger", id: "close-yes", "data-key": "close-yes" }, "Sì, chiudi per tutti (yes, close it for everyone)", () =>
      h.close(),
    );
    const no = button({ "data-key": "close-no" }, "No", () => {
      ui.confirmClose = false;
      h.redraw();
    });
    close.append(el("span", {}, "Chiudere il tavolo? Nessuno potrà più giocarci. (Close the table? Nobody can play it any more.) "), yes, no);
  } else {
    close.append(
      button({ id: "close-table", "data-key": "close-table" }, "Chiudi il tavolo (close the table)", () => {
        ui.confirmClose = true;
        h.redraw();
      }),
    );
  }
  const fresh = ui.invites.size > 0;
  const details = el(
    "details",
    { class: "owner", id: "owner" },
    el("summary", {}, "Inviti e tavolo (invites and the table)"),
    fresh
      ? el(
          "p",
          { class: "hint" },
          "Ogni link si vede solo ora: copialo e mandalo a chi deve sedersi a quel posto. " +
            "(Each link is shown only now: copy it and send it to whoever sits there.)",
        )
      : "",
    ...rows,
    close,
  ) as HTMLDetailsElement;
  details.open = ui.ownerOpen;
  details.addEventListener("toggle", () => (ui.ownerOpen = details.open));
  return details;
}

export function tableScreen(s: Session, ui: Ui, h: Handlers): HTMLElement {
  const title = gameTitle(s.game);
  const newTable = button({ id: "new-table", "data-key": "new-table" }, "Nuovo tavolo (new table)", () => h.newTable());
  const names = s.names;
  const role =
    s.seat !== undefined
      ? `Giochi al posto di ${names[s.seat] ?? s.seat + 1} (you play this seat)`
      : "Guardi da spettatore: vedi solo le carte scoperte (you are watching: face-up cards only)";
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
    },
    el(
      "header",
      {},
      el("h2", {}, title),
      el("span", { class: `connection ${s.connection}` }, CONNECTION[s.connection]),
      newTable,
    ),
  );
  if (!s.known) {
    screen.append(el("p", { class: "waiting" }, "Mi collego al tavolo… (connecting to the table…)"), el("p", { class: "message" }, ui.message));
    return screen;
  }
  screen.append(
    el("p", { class: "role" }, role),
    seatsPanel(s, ui, h),
    middlePanel(s, ui, h),
    fairnessLine(s),
    turnLine(s),
    el("p", { class: "message" }, ui.message),
    actionsPanel(s, ui, h),
  );
  for (const panel of [advicePanel(s, ui, h), settlementPanel(s), ownerPanel(s, ui, h)]) if (panel) screen.append(panel);
  screen.append(el("h3", {}, "Cronaca (log)"), el("ol", { class: "log", "aria-label": "Cronaca (log)" }, ...s.log.map((line) => el("li", {}, line))));
  return screen;
}

/** Ticks the turn timers down (the page's own clock; the host keeps the real one and plays when it runs out). */
export function tick(root: HTMLElement): void {
  for (const timer of root.querySelectorAll<HTMLElement>(".timer[data-ends]")) timer.textContent = timeLeft(Number(timer.dataset.ends));
}
