// One picture of a table for every game, read from the viewer's TableView only: seats with their cards and public
// notes, the cards in the middle (stock, widow, discards), the pot, where the game is, and the last hand's results
// (who won and lost, busts and points), all in the page's words.

import type { TableCard, TableView } from "./api";
import type { SaltacavalloView } from "./gen/mazziere/v1/saltacavallo_pb";
import { SaltacavalloPhase } from "./gen/mazziere/v1/saltacavallo_pb";
import type { SetteEMezzoView } from "./gen/mazziere/v1/sette_e_mezzo_pb";
import { SetteEMezzoPhase, SetteEMezzoResult, SetteEMezzoStatus } from "./gen/mazziere/v1/sette_e_mezzo_pb";
import type { TrentunoView } from "./gen/mazziere/v1/trentuno_pb";
import { TrentunoEnding, TrentunoHandKind, TrentunoPhase, TrentunoScoring } from "./gen/mazziere/v1/trentuno_pb";
import { t } from "./i18n";
import { chipsWord, halves } from "./words";

export interface SeatPicture {
  name: string;
  chips: bigint;
  cards: TableCard[];
  notes: string[];
  out: boolean;
  /** Not dealt into the next hands until it sits in again (a person away, sat out by the table). */
  sittingOut: boolean;
}

export interface Pile {
  id: "stock" | "widow" | "discards";
  label: string;
  cards: TableCard[];
  /** Cards counted but not shown (the stock); absent for a pile of cards shown. */
  count?: number;
}

export interface TablePicture {
  seats: SeatPicture[];
  pot: bigint | null;
  piles: Pile[];
  /** Where the game is, in words. */
  info: string[];
  /** The last hand's results, while the view still holds them (until the next deal): who won or lost, busts
   * (the bank's too) and points. */
  results: string[];
}

/** An enum value's name in the generated code ("STOOD"), to look its words up in the catalogue. */
const nameOf = (values: object, value: number): string => (values as Record<number, string>)[value] ?? "";


function setteEMezzo(v: SetteEMezzoView, bankOfHand: number | undefined): TablePicture {
  const seats = v.seats.map((s, i) => {
    const notes: string[] = [];
    if (i === v.bank) notes.push(t.view.bank);
    if (s.stake > 0n) notes.push(t.view.stake(String(s.stake)));
    const status = t.view.smStatus[nameOf(SetteEMezzoStatus, s.status)];
    if (status) notes.push(status);
    if (s.points !== undefined) notes.push(t.view.points(halves(s.points)));
    const sittingOut = v.sittingOut.includes(i);
    if (sittingOut) notes.push(t.view.sittingOut);
    const cards = [...s.cards, ...s.burned];
    return { name: s.name, chips: s.chips, cards, notes, out: sittingOut || s.status === SetteEMezzoStatus.OUT, sittingOut };
  });
  const results = v.results.map((r) => {
    const who = v.seats[r.seat]?.name ?? "";
    const amount = chipsWord(r.amount < 0n ? -r.amount : r.amount);
    let line: string;
    if (r.result === SetteEMezzoResult.WON) line = t.result.wins(who, amount);
    else if (r.result === SetteEMezzoResult.BUST) line = t.result.busts(who, amount);
    else if (r.result === SetteEMezzoResult.LOST) line = t.result.loses(who, amount);
    else line = t.result.push(who);
    if (r.points !== undefined) line = t.result.withPoints(line, halves(r.points));
    return r.reale ? `${line} · ${t.result.reale}` : line;
  });
  if (results.length) {
    const bank = v.seats[bankOfHand ?? v.bank]?.name ?? t.view.bank;
    // Past 7½ (15 half points) the bank has gone bust; no points shown: every player busted and it never played (SM-12).
    if (v.bankPoints === undefined) results.unshift(t.result.bankIdle(bank));
    else results.unshift(v.bankPoints > 15 ? t.result.bankBusts(bank, halves(v.bankPoints)) : t.result.bank(bank, halves(v.bankPoints)));
  }
  const dealt = v.handNumber > 0;
  return {
    seats,
    pot: null,
    piles: dealt ? [{ id: "stock", label: t.view.stock, cards: [], count: v.stockSize }] : [],
    info: [
      dealt ? t.view.hand(String(v.handNumber)) : "",
      t.view.smPhase[nameOf(SetteEMezzoPhase, v.phase)] ?? "",
      dealt ? t.view.discards(String(v.discardSize)) : "",
    ],
    results,
  };
}

function listed(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")}${t.result.and}${names[names.length - 1]}` : (names[0] ?? "");
}

function saltacavallo(v: SaltacavalloView): TablePicture {
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push(t.view.dealer);
    notes.push(t.view.lives(String(v.lives[i] ?? 0)));
    if (!v.alive[i]) notes.push(t.view.out);
    const sittingOut = v.sittingOut.includes(i);
    if (sittingOut) notes.push(t.view.sittingOut);
    const card = v.cards[i]?.value;
    return { name, chips: v.chips[i] ?? 0n, cards: card ? [card] : [], notes, out: sittingOut || !v.alive[i], sittingOut };
  });
  const names = (seats: number[]) => listed(seats.map((s) => v.names[s] ?? ""));
  const results: string[] = [];
  if (v.losers.length) results.push(t.result.loseLife(names(v.losers)));
  if (v.revived.length) results.push(t.result.backIn(names(v.revived)));
  if (v.winners.length) results.push(t.result.winner(names(v.winners)));
  const dealt = v.hands > 0;
  return {
    seats,
    pot: v.pot,
    piles: dealt
      ? [
          { id: "stock", label: t.view.stock, cards: [], count: v.stockSize },
          { id: "discards", label: t.view.discardsPile, cards: v.discards },
        ]
      : [],
    info: [dealt ? t.view.hands(String(v.hands)) : "", t.view.scPhase[nameOf(SaltacavalloPhase, v.phase)] ?? ""],
    results,
  };
}

function trentuno(v: TrentunoView): TablePicture {
  const lives = v.scoring === TrentunoScoring.LIVES;
  const r = v.result;
  const kindWords = (i: number) => t.view.trKind[nameOf(TrentunoHandKind, r?.kinds[i] ?? 0)] ?? "";
  const shown = (i: number) => r?.kinds[i] !== undefined && r.kinds[i] !== TrentunoHandKind.NONE && r.points[i] !== undefined;
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push(t.view.dealer);
    if (lives) notes.push(t.view.lives(String(v.lives[i] ?? 0)));
    if (i === v.stopper) notes.push(t.view.knocked);
    if (r && shown(i)) {
      const kind = kindWords(i);
      notes.push(`${t.view.points(halves(r.points[i]))}${kind ? ` · ${kind}` : ""}`);
    }
    const out = v.inDeal.length > 0 && !v.inDeal.includes(i);
    return { name, chips: v.chips[i] ?? 0n, cards: v.hands[i]?.values ?? [], notes, out, sittingOut: false };
  });
  const names = (seats: number[]) => listed(seats.map((s) => v.names[s] ?? ""));
  const results: string[] = [];
  if (r && r.ending !== TrentunoEnding.UNSPECIFIED) {
    const ending = t.result.trEnding[nameOf(TrentunoEnding, r.ending)];
    if (ending) results.push(ending);
    v.names.forEach((name, i) => {
      if (shown(i)) results.push(t.result.seatPoints(name, halves(r.points[i]), kindWords(i)));
    });
    if (r.winners.length) {
      const who = names(r.winners);
      if (r.share <= 0n) results.push(t.result.winner(who));
      else if (r.winners.length > 1) results.push(t.result.winShareEach(who, chipsWord(r.share)));
      else results.push(t.result.winShare(who, chipsWord(r.share)));
    }
    if (r.losers.length) results.push(t.result.loseLife(names(r.losers)));
    if (r.carried > 0n) results.push(t.result.carried(chipsWord(r.carried)));
  }
  const dealt = v.deals > 0;
  const piles: Pile[] = [];
  if (v.widow.length) piles.push({ id: "widow", label: t.view.widow, cards: v.widow });
  if (dealt) piles.push({ id: "stock", label: t.view.setAside, cards: [], count: v.stockSize });
  const info = [dealt ? t.view.deals(String(v.deals)) : "", t.view.trPhase[nameOf(TrentunoPhase, v.phase)] ?? ""];
  if (v.phase === TrentunoPhase.PLAYING) info.push(v.lastRound ? t.view.lastRound : t.view.rounds(String(v.rounds)));
  return { seats, pot: v.pot, piles, info, results };
}

/** The table in words; `bankOfHand` names the seat that held Sette e mezzo's bank in the hand that just ended. */
export function picture(view: TableView | undefined, bankOfHand?: number): TablePicture {
  const game = view?.game;
  let found: TablePicture = { seats: [], pot: null, piles: [], info: [], results: [] };
  if (game?.case === "setteEMezzo") found = setteEMezzo(game.value, bankOfHand);
  else if (game?.case === "saltacavallo") found = saltacavallo(game.value);
  else if (game?.case === "trentuno") found = trentuno(game.value);
  found.info = found.info.filter(Boolean);
  return found;
}

export function seatNames(view: TableView | undefined): string[] {
  return picture(view).seats.map((s) => s.name);
}
