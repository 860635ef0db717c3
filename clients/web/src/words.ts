// Every engine name in the page's words: moves, events, presets, policies, the chips moving and why, points in
// halves. The words themselves are the catalogue's (i18n/); nothing of the engine's own spelling ("WAIT_DEAL",
// "STOOD", "CLASSICO") reaches the page.

import type { GameEvent, Transfer } from "./api";
import { cardName, hiddenName } from "./cards";
import { t } from "./i18n";
import type { EventWords } from "./i18n/types";

/** The events of committed dealing (docs/fairness.md): told under the fairness badge, not in the log. */
export const FAIRNESS_EVENTS = new Set(["COMMITTED", "ENTROPY", "SEED"]);

/** An unknown engine name, readable: "SOME_NAME" is "some name". */
const plain = (name: string) => name.toLowerCase().replace(/_/g, " ");

/** A move's word, as its button and the advice name it. */
export function moveName(kind: string): string {
  return t.moves[kind] ?? plain(kind);
}

/** A preset's name for people: "CLASSICO" is "Classico"; an unknown one is capitalised. */
export function presetName(name: string): string {
  return t.presets[name] ?? name.charAt(0) + plain(name.slice(1));
}

/** A game as players call it. */
export function gameTitle(id: string): string {
  return t.games[id] ?? plain(id);
}

export const POLICY_IDS = ["cautious", "random", "best"];

export function policyName(id: string): string {
  return t.policies[id] ?? plain(id);
}

/** An option of a game: its short name and what it does (the catalogue's; else the service's name and doc). */
export function optionWords(name: string, doc: string): [string, string] {
  return t.options[name] ?? [plain(name), doc];
}

export function choiceName(choice: string): string {
  return t.choices[choice] ?? plain(choice);
}

/** Half points (Sette e mezzo and Trentuno count in halves): 15 is "7½", 1 is "½", 62 is "31". */
export function halves(points: number | bigint): string {
  const n = Number(points);
  const whole = Math.floor(n / 2);
  if (n % 2 === 0) return String(whole);
  return whole === 0 ? t.half : `${whole}${t.half}`;
}

const HALF_POINT_GAMES = new Set(["sette_e_mezzo", "trentuno"]);

export function pointsText(game: string, points: number | bigint): string {
  return HALF_POINT_GAMES.has(game) ? halves(points) : String(points);
}

export const chipsWord = (amount: bigint | number): string => t.chips(amount);

/** A seat by name ("" for none); a seat the view does not name by its number. */
export function seatName(names: string[], seat: number | undefined): string {
  return seat === undefined ? "" : (names[seat] ?? t.move.seat(seat + 1));
}

/** Chips moving from `payer` to `payee` (-1: the pot), in the one wording of the log and the settlement. */
export function transferText(transfer: Transfer, names: string[]): string {
  const who = (seat: number) => seatName(names, seat);
  const chips = chipsWord(transfer.amount);
  let text: string;
  if (transfer.payer < 0) text = t.pay.fromPot(who(transfer.payee), chips);
  else if (transfer.payee < 0) text = t.pay.toPot(who(transfer.payer), chips);
  else text = t.pay.pays(who(transfer.payer), chips, who(transfer.payee));
  const why = t.reasons[transfer.reason] ?? transfer.reason;
  return why ? `${text} · ${why}` : text;
}

/** A commitment or seed, short: its first 12 hex digits (the page shows the whole one on hover). */
export function shortHex(data: string): string {
  return data.length > 12 ? `${data.slice(0, 12)}…` : data;
}

function cardsText(cards: GameEvent["cards"]): string {
  return cards.map((c) => (c.card ? cardName(c.card) : hiddenName())).join(", ");
}

/** The catalogue's sentence for an event kind, with the variants a kind has (cards shown or not, and so on). */
function sentenceOf(e: GameEvent, game: string): keyof typeof t.events | undefined {
  switch (e.kind) {
    case "CARD_DEALT":
    case "CHOOSE_CARD":
      return "DEALT";
    case "REVEAL":
      return "REVEALED";
    case "FIRST_DEALER":
      return "DEALER";
    case "SWAP":
      return e.cards.length ? "SWAP_SHOWN" : "SWAP";
    case "LIFE_LOST":
      return game === "saltacavallo" ? "LIFE_LOST" : "LIFE_LOST_LEFT";
    case "HAND":
      return e.cards.some((c) => c.card) ? "HAND_SHOWN" : "HAND";
    case "SEED":
      return e.cards.length ? "SEED_PACK" : "SEED";
    case "HAND_OVER":
      return game === "sette_e_mezzo" ? "HAND_OVER_NUMBERED" : "HAND_OVER";
    case "GAME_OVER":
      return e.seat !== undefined ? "GAME_OVER_WINNER" : "GAME_OVER";
    default:
      return e.kind in t.events ? (e.kind as keyof typeof t.events) : undefined;
  }
}

/** One line of the log: an event, with its seat's name, its cards and its points. The chips a step moves are
 * its transfers, logged after its events in the words of the settlement (`transferText`). */
export function eventText(e: GameEvent, names: string[], game: string): string {
  const named = e.cards.map((c) => (c.card ? cardName(c.card) : hiddenName()));
  const amount = String(e.amount);
  const words: EventWords = {
    who: seatName(names, e.seat),
    to: seatName(names, e.target),
    cards: e.kind === "COMMITTED" ? shortHex(e.data) : cardsText(e.cards),
    amount,
    chips: chipsWord(e.amount),
    points: Number(e.points) ? t.points(pointsText(game, e.points)) : "",
    raise: e.amount && ["HIT", "HIT_HIDDEN", "STOOD"].includes(e.kind) ? t.raise(amount) : "",
    draw: e.draw === undefined ? "" : String(e.draw),
    count: e.cards.length,
    given: named[0] ?? "",
    taken: named[1] ?? "",
  };
  const kind = sentenceOf(e, game);
  if (!kind) return [words.who, plain(e.kind), words.cards].filter(Boolean).join(" · ");
  return t.events[kind](words);
}
