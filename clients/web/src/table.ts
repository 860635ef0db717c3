// One picture of a table for every game, read from the viewer's TableView only: seats with their cards and public
// notes, the cards in the middle (stock, widow, discards), the pot, where the game is, and the last hand's results.

import type { TableCard, TableView } from "./api";
import type { SaltacavalloView } from "./gen/mazziere/v1/saltacavallo_pb";
import { SaltacavalloPhase } from "./gen/mazziere/v1/saltacavallo_pb";
import type { SetteEMezzoView } from "./gen/mazziere/v1/sette_e_mezzo_pb";
import { SetteEMezzoPhase, SetteEMezzoResult, SetteEMezzoStatus } from "./gen/mazziere/v1/sette_e_mezzo_pb";
import type { TrentunoView } from "./gen/mazziere/v1/trentuno_pb";
import { TrentunoEnding, TrentunoHandKind, TrentunoPhase, TrentunoScoring } from "./gen/mazziere/v1/trentuno_pb";
import { chipsWord, halves } from "./words";

export interface SeatPicture {
  name: string;
  chips: bigint;
  cards: TableCard[];
  notes: string[];
  out: boolean;
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
  /** The last hand's results, while the view still holds them (until the next deal). */
  results: string[];
}

const signed = (amount: bigint) => (amount > 0n ? `+${amount}` : String(amount));

const SM_STATUS: Partial<Record<SetteEMezzoStatus, string>> = {
  [SetteEMezzoStatus.WAITING]: "in gioco (dealt in)",
  [SetteEMezzoStatus.PLAYING]: "sta giocando (playing)",
  [SetteEMezzoStatus.STOOD]: "sta (stands)",
  [SetteEMezzoStatus.SETTE_E_MEZZO]: "sette e mezzo!",
  [SetteEMezzoStatus.BUST]: "sballato (bust)",
};

const SM_PHASE: Record<SetteEMezzoPhase, string> = {
  [SetteEMezzoPhase.UNSPECIFIED]: "",
  [SetteEMezzoPhase.WAIT_DEAL]: "si aspetta che il banco dia le carte (waiting for the bank to deal)",
  [SetteEMezzoPhase.STAKE]: "si punta (stakes)",
  [SetteEMezzoPhase.DECIDE]: "carta o sto? (hit or stand?)",
  [SetteEMezzoPhase.BANK]: "gioca il banco (the bank plays)",
  [SetteEMezzoPhase.OVER]: "partita finita (game over)",
};

const SM_RESULT: Record<SetteEMezzoResult, string> = {
  [SetteEMezzoResult.UNSPECIFIED]: "",
  [SetteEMezzoResult.WON]: "vince (wins)",
  [SetteEMezzoResult.LOST]: "perde (loses)",
  [SetteEMezzoResult.PUSH]: "pari (push)",
  [SetteEMezzoResult.BUST]: "sballa (bust)",
};

function setteEMezzo(v: SetteEMezzoView): TablePicture {
  const seats = v.seats.map((s, i) => {
    const notes: string[] = [];
    if (i === v.bank) notes.push("banco (bank)");
    if (s.stake > 0n) notes.push(`posta (stake) ${s.stake}`);
    const status = SM_STATUS[s.status];
    if (status) notes.push(status);
    if (s.points !== undefined) notes.push(`punti (points) ${halves(s.points)}`);
    const cards = [...s.cards, ...s.burned];
    return { name: s.name, chips: s.chips, cards, notes, out: s.status === SetteEMezzoStatus.OUT };
  });
  const results = v.results.map((r) => {
    const points = r.points !== undefined ? `, punti (points) ${halves(r.points)}` : "";
    return `${v.seats[r.seat]?.name}: ${SM_RESULT[r.result]} ${signed(r.amount)}${points}${r.reale ? ", reale (a natural)" : ""}`;
  });
  if (v.bankPoints !== undefined && results.length) results.push(`banco (bank): punti (points) ${halves(v.bankPoints)}`);
  const dealt = v.handNumber > 0;
  return {
    seats,
    pot: null,
    piles: dealt ? [{ id: "stock", label: "mazzo (stock)", cards: [], count: v.stockSize }] : [],
    info: [dealt ? `mano (hand) ${v.handNumber}` : "", SM_PHASE[v.phase], dealt ? `scarti (discards) ${v.discardSize}` : ""],
    results,
  };
}

const SC_PHASE: Record<SaltacavalloPhase, string> = {
  [SaltacavalloPhase.UNSPECIFIED]: "",
  [SaltacavalloPhase.DEAL]: "si aspetta che il mazziere dia le carte (waiting for the dealer to deal)",
  [SaltacavalloPhase.PLAY]: "tengo o scambio? (keep or swap?)",
  [SaltacavalloPhase.DEALER]: "gioca il mazziere (the dealer plays)",
  [SaltacavalloPhase.OVER]: "partita finita (game over)",
};

function saltacavallo(v: SaltacavalloView): TablePicture {
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push("mazziere (dealer)");
    notes.push(`vite (lives) ${v.lives[i] ?? 0}`);
    if (!v.alive[i]) notes.push("fuori (out)");
    const card = v.cards[i]?.value;
    return { name, chips: v.chips[i] ?? 0n, cards: card ? [card] : [], notes, out: !v.alive[i] };
  });
  const names = (seats: number[]) => seats.map((s) => v.names[s]).join(", ");
  const results: string[] = [];
  if (v.losers.length) results.push(`perde una vita (loses a life): ${names(v.losers)}`);
  if (v.revived.length) results.push(`rientra (back in): ${names(v.revived)}`);
  if (v.winners.length) results.push(`vince (wins): ${names(v.winners)}`);
  const dealt = v.hands > 0;
  return {
    seats,
    pot: v.pot,
    piles: dealt
      ? [
          { id: "stock", label: "mazzo (stock)", cards: [], count: v.stockSize },
          { id: "discards", label: "scarti (discards)", cards: v.discards },
        ]
      : [],
    info: [dealt ? `mani (hands) ${v.hands}` : "", SC_PHASE[v.phase]],
    results,
  };
}

const TR_PHASE: Record<TrentunoPhase, string> = {
  [TrentunoPhase.UNSPECIFIED]: "",
  [TrentunoPhase.WAITING]: "si aspetta che il mazziere dia le carte (waiting for the dealer to deal)",
  [TrentunoPhase.PLAYING]: "si gioca (playing)",
  [TrentunoPhase.OVER]: "partita finita (game over)",
};

const TR_ENDING: Record<TrentunoEnding, string> = {
  [TrentunoEnding.UNSPECIFIED]: "",
  [TrentunoEnding.WIDOW_TRENTUNO]: "il monte era un trentuno (the widow was a 31)",
  [TrentunoEnding.DEALT_TRENTUNO]: "trentuno servito (a 31 was dealt)",
  [TrentunoEnding.TRENTUNO]: "trentuno! (31)",
  [TrentunoEnding.SHOWDOWN]: "si mostrano le carte (showdown)",
};

const TR_KIND: Partial<Record<TrentunoHandKind, string>> = {
  [TrentunoHandKind.SUIT_SUM]: "somma di un seme (suit total)",
  [TrentunoHandKind.JOKER_TRIS]: "tris col fante di fiori (tris with the jack of clubs)",
  [TrentunoHandKind.TRIS]: "tris (three of a kind)",
  [TrentunoHandKind.TRENTUNO]: "trentuno (31)",
};

function trentuno(v: TrentunoView): TablePicture {
  const lives = v.scoring === TrentunoScoring.LIVES;
  const r = v.result;
  const seats = v.names.map((name, i) => {
    const notes: string[] = [];
    if (i === v.dealer) notes.push("mazziere (dealer)");
    if (lives) notes.push(`vite (lives) ${v.lives[i] ?? 0}`);
    if (i === v.stopper) notes.push("ha bussato (knocked)");
    const kind = r?.kinds[i];
    const points = r?.points[i];
    if (kind !== undefined && kind !== TrentunoHandKind.NONE && points !== undefined) {
      notes.push(`punti (points) ${halves(points)}${TR_KIND[kind] ? ` · ${TR_KIND[kind]}` : ""}`);
    }
    const out = v.inDeal.length > 0 && !v.inDeal.includes(i);
    return { name, chips: v.chips[i] ?? 0n, cards: v.hands[i]?.values ?? [], notes, out };
  });
  const names = (seats: number[]) => seats.map((s) => v.names[s]).join(", ");
  const results: string[] = [];
  if (r && r.ending !== TrentunoEnding.UNSPECIFIED) {
    results.push(`fine (end): ${TR_ENDING[r.ending]}`);
    if (r.winners.length) {
      const each = r.winners.length > 1 ? " ciascuno (each)" : "";
      results.push(`vince (wins): ${names(r.winners)}${r.share > 0n ? `, ${chipsWord(r.share)}${each}` : ""}`);
    }
    if (r.losers.length) results.push(`perde una vita (loses a life): ${names(r.losers)}`);
    if (r.carried > 0n) results.push(`restano nel piatto (left in the pot): ${chipsWord(r.carried)}`);
  }
  const dealt = v.deals > 0;
  const piles: Pile[] = [];
  if (v.widow.length) piles.push({ id: "widow", label: "monte (widow)", cards: v.widow });
  if (dealt) piles.push({ id: "stock", label: "carte fuori gioco (cards set aside)", cards: [], count: v.stockSize });
  const info = [dealt ? `smazzate (deals) ${v.deals}` : "", TR_PHASE[v.phase]];
  if (v.phase === TrentunoPhase.PLAYING) info.push(v.lastRound ? "ultimo giro (last round)" : `giri (rounds) ${v.rounds}`);
  return { seats, pot: v.pot, piles, info, results };
}

export function picture(view: TableView | undefined): TablePicture {
  const game = view?.game;
  let found: TablePicture = { seats: [], pot: null, piles: [], info: [], results: [] };
  if (game?.case === "setteEMezzo") found = setteEMezzo(game.value);
  else if (game?.case === "saltacavallo") found = saltacavallo(game.value);
  else if (game?.case === "trentuno") found = trentuno(game.value);
  found.info = found.info.filter(Boolean);
  return found;
}

export function seatNames(view: TableView | undefined): string[] {
  return picture(view).seats.map((s) => s.name);
}
