// One picture of a table for every game: seats with their cards and public notes, the cards in the middle
// (stock, widow, discards), the pot, and the last hand's results, read from the viewer's TableView only.

import type { GameEvent, SaltacavalloView, SetteEMezzoView, TableCard, TableView, Transfer, TrentunoView } from "./api";
import { cardName, HIDDEN_NAME } from "./cards";

export interface SeatPicture {
  name: string;
  chips: string;
  cards: TableCard[];
  notes: string[];
  out: boolean;
}

export interface TablePicture {
  seats: SeatPicture[];
  pot: string | null;
  piles: { label: string; cards: TableCard[]; count?: number }[];
  info: string[];
  results: string[];
}

const short = (value: string | undefined, prefix: string) => (value ?? "").replace(prefix, "").toLowerCase().replace(/_/g, " ");

/** Sette e mezzo and Trentuno count points in halves (7½ is 15). */
export function halves(points: number | string): string {
  const n = Number(points);
  return `${Math.floor(n / 2)}${n % 2 ? "½" : ""}`;
}

function setteEMezzo(v: SetteEMezzoView): TablePicture {
  const seats = v.seats.map((s, i) => {
    const notes: string[] = [];
    if (i === v.bank) notes.push("banco (bank)");
    if (Number(s.stake) > 0) notes.push(`posta (stake) ${s.stake}`);
    if (s.status && !s.status.endsWith("_OUT")) notes.push(short(s.status, "SETTE_E_MEZZO_STATUS_"));
    if (s.points !== undefined) notes.push(`punti (points) ${halves(s.points)}`);
    const cards = [...s.cards, ...s.burned];
    return { name: s.name, chips: s.chips, cards, notes, out: s.status === "SETTE_E_MEZZO_STATUS_OUT" };
  });
  const results = v.results.map((r) => {
    const points = r.points !== undefined ? `, punti (points) ${halves(r.points)}` : "";
    return `${v.seats[r.seat]?.name}: ${short(r.result, "SETTE_E_MEZZO_RESULT_")} ${signed(r.amount)}${points}${r.reale ? ", reale" : ""}`;
  });
  if (v.bankPoints !== undefined && results.length) results.push(`banco (bank): punti (points) ${halves(v.bankPoints)}`);
  return {
    seats,
    pot: null,
    piles: [{ label: "mazzo (stock)", cards: [], count: v.stockSize }],
    info: [`mano (hand) ${v.handNumber}`, short(v.phase, "SETTE_E_MEZZO_PHASE_"), `scarti (discards) ${v.discardSize}`],
    results,
  };
}

function saltacavallo(v: SaltacavalloView): TablePicture {
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push("mazziere (dealer)");
    notes.push(`vite (lives) ${v.lives[i] ?? 0}`);
    if (!v.alive[i]) notes.push("morto (out)");
    const card = v.cards[i]?.value;
    return { name, chips: v.chips[i] ?? "0", cards: card ? [card] : [], notes, out: !v.alive[i] };
  });
  const results: string[] = [];
  if (v.losers.length) results.push(`perde una vita (loses a life): ${v.losers.map((s) => v.names[s]).join(", ")}`);
  if (v.revived.length) results.push(`rientra (revived): ${v.revived.map((s) => v.names[s]).join(", ")}`);
  if (v.winners.length) results.push(`vince (wins): ${v.winners.map((s) => v.names[s]).join(", ")}`);
  return {
    seats,
    pot: v.pot,
    piles: [
      { label: "mazzo (stock)", cards: [], count: v.stockSize },
      { label: "scarti (discards)", cards: v.discards },
    ],
    info: [`mani (hands) ${v.hands}`, short(v.phase, "SALTACAVALLO_PHASE_")],
    results,
  };
}

function trentuno(v: TrentunoView): TablePicture {
  const lives = v.scoring === "TRENTUNO_SCORING_LIVES";
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push("mazziere (dealer)");
    if (lives) notes.push(`vite (lives) ${v.lives[i] ?? 0}`);
    if (i === v.stopper) notes.push("ha bussato (stopped)");
    const points = v.result?.points?.[i];
    if (v.result?.kinds?.length && points !== undefined) notes.push(`punti (points) ${halves(points)}`);
    const out = v.inDeal.length > 0 && !v.inDeal.includes(i);
    return { name, chips: v.chips[i] ?? "0", cards: v.hands[i]?.values ?? [], notes, out };
  });
  const results: string[] = [];
  const r = v.result;
  if (r?.ending) {
    results.push(`fine (ending): ${short(r.ending, "TRENTUNO_ENDING_")}`);
    if (r.winners.length) results.push(`vince (wins): ${r.winners.map((s) => v.names[s]).join(", ")} (${r.share} each)`);
    if (r.losers.length) results.push(`perde (loses): ${r.losers.map((s) => v.names[s]).join(", ")}`);
    if (Number(r.carried)) results.push(`riportato (carried over): ${r.carried}`);
  }
  return {
    seats,
    pot: v.pot,
    piles: [
      { label: "monte (widow)", cards: v.widow },
      { label: "mazzo (stock)", cards: [], count: v.stockSize },
    ],
    info: [`smazzate (deals) ${v.deals}`, `giri (rounds) ${v.rounds}`, short(v.phase, "TRENTUNO_PHASE_")],
    results,
  };
}

export function picture(view: TableView | undefined): TablePicture {
  if (view?.setteEMezzo) return setteEMezzo(view.setteEMezzo);
  if (view?.saltacavallo) return saltacavallo(view.saltacavallo);
  if (view?.trentuno) return trentuno(view.trentuno);
  return { seats: [], pot: null, piles: [], info: [], results: [] };
}

function signed(amount: string): string {
  return Number(amount) > 0 ? `+${amount}` : amount;
}

const HALF_POINT_GAMES = new Set(["sette_e_mezzo", "trentuno"]);

/** One line of the log: who, what, which cards (named in Italian and English), how much; `isMove`: the event is
 * the move itself (marked when the service chose it for a bot). */
export function eventText(e: GameEvent, names: string[], game: string, isMove = false): string {
  const who = e.seat !== undefined ? `${names[e.seat] ?? `seat ${e.seat}`}: ` : "";
  const parts = [e.kind.toLowerCase().replace(/_/g, " ")];
  if (e.target !== undefined) parts.push(`→ ${names[e.target] ?? `seat ${e.target}`}`);
  if (e.cards.length) parts.push(e.cards.map((c) => (c.card ? cardName(c.card) : HIDDEN_NAME)).join(", "));
  if (Number(e.amount)) parts.push(e.kind === "SHUFFLED" ? `${e.amount} carte (cards)` : `${e.amount} fiches (chips)`);
  if (Number(e.points)) parts.push(`punti (points) ${HALF_POINT_GAMES.has(game) ? halves(e.points) : e.points}`);
  return who + parts.join(" · ") + (e.auto && isMove ? " [auto]" : "");
}

export function transferText(t: Transfer, names: string[]): string {
  const party = (seat: number) => (seat < 0 ? "piatto (pot)" : (names[seat] ?? `seat ${seat}`));
  return `${party(t.payer)} → ${party(t.payee)}: ${t.amount} (${t.reason})`;
}

export function seatNames(view: TableView | undefined): string[] {
  return picture(view).seats.map((s) => s.name);
}
