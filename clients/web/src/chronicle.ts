// The table's story told from its steps: each step's lines for the log (its events, a late person's turn played
// by the table, the chips it moved), the fairness lines apart, and the last hand's end (results, every payment of
// the hand, and who came out ahead, for the toast). Read again in the page's language at every drawing.

import type * as api from "./api";
import { t } from "./i18n";
import { picture } from "./table";
import { chipsWord, eventText, FAIRNESS_EVENTS, transferText } from "./words";

export interface Line {
  text: string;
  /** A line of committed dealing (commitments, entropy, reveals): shown under the fairness badge. */
  fairness: boolean;
}

/** The lines of one step, after `before` (the step preceding it, if known). */
export function stepLines(
  u: api.HostedUpdate,
  before: api.HostedUpdate | undefined,
  game: string,
  names: string[],
  isBot: (seat: number) => boolean,
): Line[] {
  const events = u.update?.events ?? [];
  const lines: Line[] = [];
  const waited = before?.toAct ?? [];
  if (waited.length === 1 && !isBot(waited[0]) && events.some((e) => e.auto)) {
    lines.push({ text: t.log.timeUp(names[waited[0]] ?? ""), fairness: false });
  }
  for (const e of events) lines.push({ text: eventText(e, names, game), fairness: FAIRNESS_EVENTS.has(e.kind) });
  // The chips the step moved, in the words of the settlement: one wording, payer first.
  for (const transfer of u.settlement) lines.push({ text: transferText(transfer, names), fairness: false });
  if (u.closed) lines.push({ text: t.log.closed, fairness: false });
  return lines;
}

/** Chips won (positive) or lost by each seat over some transfers (the pot is no seat). */
export function netChips(transfers: api.Transfer[]): Map<number, bigint> {
  const net = new Map<number, bigint>();
  for (const { payer, payee, amount } of transfers) {
    if (payer >= 0) net.set(payer, (net.get(payer) ?? 0n) - amount);
    if (payee >= 0) net.set(payee, (net.get(payee) ?? 0n) + amount);
  }
  return net;
}

export interface HandEnd {
  /** The step that ended the hand. */
  seq: bigint;
  /** Who won or lost, busts (the bank's too), points. */
  results: string[];
  /** Every payment of the hand, as the log writes them. */
  payments: string[];
  /** The hand in one short sentence: who came out ahead, by how much. */
  toast: string;
}

const ends = (u: api.HostedUpdate) => (u.update?.events ?? []).some((e) => e.kind === "HAND_OVER" || e.kind === "GAME_OVER");

/** The last hand that ended among `steps`, told (`seat`: this page's, "you" in the toast); null if none did. */
export function lastHand(steps: api.HostedUpdate[], names: string[], seat: number | undefined): HandEnd | null {
  let end = steps.length - 1;
  while (end >= 0 && !ends(steps[end])) end -= 1;
  if (end < 0) return null;
  let start = end - 1;
  while (start >= 0 && !ends(steps[start])) start -= 1;
  const hand = steps.slice(start + 1, end + 1);
  const transfers = hand.flatMap((u) => u.settlement);
  // The bank passes at the end of a hand: the hand was played by the seat it passed from.
  const passed = hand.flatMap((u) => u.update?.events ?? []).find((e) => e.kind === "BANK_PASSED");
  const results = picture(steps[end].update?.view, passed?.seat).results;
  const net = netChips(transfers);
  const best = [...net.values()].reduce((most, n) => (n > most ? n : most), 0n);
  const winners = [...net.entries()].filter(([, n]) => n > 0n && n === best).map(([s]) => s);
  let toast: string = t.result.toastNobody;
  if (winners.length === 1 && winners[0] === seat) toast = t.result.toastYouWin(chipsWord(best));
  else if (winners.length) toast = winners.map((s) => t.result.toastWins(names[s] ?? "", chipsWord(best))).join(" · ");
  return { seq: steps[end].seq, results, payments: transfers.map((tr) => transferText(tr, names)), toast };
}
