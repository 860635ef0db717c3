// Every word the page shows for an engine's name: moves, events, phases, results, presets, policies, the
// reasons chips move, and the host's refusals. Italian first, English in brackets; nothing of the engine's own spelling ("WAIT_DEAL",
// "STOOD", "CLASSICO") reaches the page.

import type { GameEvent, Transfer } from "./api";
import { cardName, HIDDEN_NAME } from "./cards";

/** The words of a move, as its button and the advice name it. */
export const ACTION_NAMES: Record<string, string> = {
  DEAL: "Distribuisci (deal)",
  STAKE: "Punta (stake)",
  HIT: "Carta (hit)",
  HIT_HIDDEN: "Carta coperta (hit face down)",
  STAND: "Sto (stand)",
  BURN: "Brucia la carta (burn the card)",
  KEEP: "Tengo (keep)",
  SWAP: "Scambio (swap)",
  DRAW: "Pesco (draw)",
  REVIVE: "Rientro (revive)",
  EXCHANGE: "Scambio col monte (exchange with the widow)",
  TAKE_ALL: "Prendo tutto il monte (take the whole widow)",
  STOP: "Busso (knock: last round)",
  PASS: "Passo (pass)",
};

const PRESETS: Record<string, string> = {
  CLASSICO: "Classico (classic)",
  NAPOLETANO: "Napoletano (Neapolitan)",
  DELLARTI: "Dell'Arti",
  CASINO: "Casinò (casino)",
  CUCU: "Cucù",
  VITE: "A vite (with lives)",
  LETTERALE: "Alla lettera (as written)",
};

/** A preset's name for people: "CLASSICO" is "Classico (classic)"; an unknown one is capitalised. */
export function presetName(name: string): string {
  return PRESETS[name] ?? name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, " ");
}

const GAMES: Record<string, string> = {
  sette_e_mezzo: "Sette e mezzo",
  saltacavallo: "Saltacavallo",
  trentuno: "Trentuno",
};

export function gameTitle(id: string): string {
  return GAMES[id] ?? id.replace(/_/g, " ");
}

export const POLICIES: readonly { id: string; name: string }[] = [
  { id: "cautious", name: "bot prudente (cautious)" },
  { id: "random", name: "bot a caso (random)" },
  { id: "best", name: "bot esperto (best)" },
];

export function policyName(id: string): string {
  return POLICIES.find((p) => p.id === id)?.name ?? `bot (${id})`;
}

/** Half points (Sette e mezzo and Trentuno count in halves): 15 is "7½", 1 is "½", 62 is "31". */
export function halves(points: number | bigint): string {
  const n = Number(points);
  const whole = Math.floor(n / 2);
  if (n % 2 === 0) return String(whole);
  return whole === 0 ? "½" : `${whole}½`;
}

const HALF_POINT_GAMES = new Set(["sette_e_mezzo", "trentuno"]);

export function pointsText(game: string, points: number | bigint): string {
  return HALF_POINT_GAMES.has(game) ? halves(points) : String(points);
}

export const chipsWord = (amount: bigint | number): string =>
  `${amount} ${BigInt(amount) === 1n ? "fiche (chip)" : "fiches (chips)"}`;

const REASONS: Record<string, string> = {
  win: "vincita (win)",
  loss: "perdita (loss)",
  bust: "sballato (bust)",
  life: "una vita (a life)",
  pot: "il piatto (the pot)",
  "pot share": "parte del piatto (share of the pot)",
  revival: "rientro (revival)",
  ante: "posta iniziale (ante)",
};

/** Chips moving from `payer` to `payee` (-1: the pot), in the one wording of the log and the settlement. */
function payText(names: string[], payer: number, payee: number, amount: bigint, reason = ""): string {
  const who = (seat: number) => names[seat] ?? `posto (seat) ${seat + 1}`;
  const chips = chipsWord(amount);
  let text: string;
  if (payer < 0) text = `${who(payee)} prende ${chips} dal piatto (takes from the pot)`;
  else if (payee < 0) text = `${who(payer)} mette ${chips} nel piatto (puts in the pot)`;
  else text = `${who(payer)} paga ${chips} a ${who(payee)} (${who(payer)} pays ${who(payee)})`;
  const why = REASONS[reason] ?? reason;
  return why ? `${text} · ${why}` : text;
}

export function transferText(t: Transfer, names: string[]): string {
  return payText(names, t.payer, t.payee, t.amount, t.reason);
}

/** A commitment or seed, short: its first 12 hex digits (the page shows the whole one on hover). */
export function shortHex(data: string): string {
  return data.length > 12 ? `${data.slice(0, 12)}…` : data;
}

function cardsText(cards: GameEvent["cards"]): string {
  return cards.map((c) => (c.card ? cardName(c.card) : HIDDEN_NAME)).join(", ");
}

/** One line of the log: an event, with its seat's name, its cards and its points. The chips a step moves are
 * its transfers, logged after its events in the words of the settlement (`transferText`). */
export function eventText(e: GameEvent, names: string[], game: string): string {
  const n = (seat: number | undefined) => (seat === undefined ? "" : (names[seat] ?? `posto (seat) ${seat + 1}`));
  const who = n(e.seat);
  const to = n(e.target);
  const cards = cardsText(e.cards);
  const pts = Number(e.points) ? ` · punti (points) ${pointsText(game, e.points)}` : "";
  const amount = e.amount;
  let text: string;
  switch (e.kind) {
    // Sette e mezzo
    case "SHUFFLED":
      text = `Si mescola il mazzo: ${amount} carte (the pack is shuffled: ${amount} cards)`;
      break;
    case "FIRST_BANK":
      text = `${who} tiene il banco (is the bank)`;
      break;
    case "DREW":
      text = `${who} pesca ${cards} per il banco (draws for the bank)`;
      break;
    case "DEALT":
    case "CARD_DEALT":
    case "CHOOSE_CARD":
      text = `${who} riceve ${cards} (is dealt)`;
      break;
    case "STAKED":
      text = `${who} punta ${chipsWord(amount)} (stakes)`;
      break;
    case "HIT":
      text = `${who} chiede carta (hits): ${cards}${amount ? ` · rilancia di ${amount} (raises)` : ""}${pts}`;
      break;
    case "HIT_HIDDEN":
      text = `${who} chiede carta coperta (hits face down): ${cards}${amount ? ` · rilancia di ${amount} (raises)` : ""}`;
      break;
    case "STOOD":
      text = `${who} sta (stands)${amount ? ` · rilancia di ${amount} (raises)` : ""}${pts}`;
      break;
    case "BURNED":
      text = `${who} brucia ${cards} (burns)`;
      break;
    case "REPLACED":
      text = `${who} riceve al suo posto ${cards} (gets instead)`;
      break;
    case "REVEALED":
    case "REVEAL":
      text = `${who} scopre ${cards} (shows)${pts}`;
      break;
    case "SETTE_E_MEZZO":
      text = `${who} fa sette e mezzo! (has 7½)`;
      break;
    case "BUST":
      text = `${who} sballa (busts)${pts}`;
      break;
    case "PAID": // the bank (target) pays the player (seat): the chips are the step's transfer, logged after
      text = `${who} batte il banco (beats the bank)${pts}`;
      break;
    case "COLLECTED": // the player (seat) pays the bank (target)
      text = `${who} perde col banco (loses to the bank)${pts}`;
      break;
    case "PUSH":
      text = `${who} e ${to} pari: nessuno paga (push: nobody pays)${pts}`;
      break;
    case "BANK_PASSED":
      text = `Il banco passa da ${who} a ${to} (the bank passes to ${to})`;
      break;
    // Saltacavallo
    case "FIRST_DEALER":
    case "DEALER":
      text = `${who} fa il mazziere (is the dealer)`;
      break;
    case "CHOOSE_DEALER":
      text = `${who} distribuisce per scegliere il mazziere (deals to choose the dealer)`;
      break;
    case "SHUFFLE":
      text = `${who} mescola (shuffles)`;
      break;
    case "CUT":
      text = `${who} taglia il mazzo (cuts the pack)`;
      break;
    case "KEEP":
      text = `${who} tiene la sua carta (keeps)`;
      break;
    case "SWAP":
      text = `${who} scambia la carta con ${to} (swaps with ${to})${cards ? `: ${cards}` : ""}`;
      break;
    case "DRAW":
      text = `${who} pesca dal mazzo (draws): ${cards}`;
      break;
    case "DRAW_AGAIN":
      text = `${who} scarta ${cards} e pesca ancora (discards it and draws again)`;
      break;
    case "DRAW_VOID":
      text = `${cards}: non vale, ${who} tiene la sua (void: keeps his own card)`;
      break;
    case "REPLAY":
      text = "Perderebbero tutti: si rigioca la mano (everyone would lose: the hand is played again)";
      break;
    case "LIFE_LOST":
      text =
        game === "saltacavallo"
          ? `${who} perde una vita (loses a life)`
          : `${who} perde una vita: ne restano ${amount} (loses a life: ${amount} left)`;
      break;
    case "DEAD":
      text = `${who} è fuori (is out)`;
      break;
    case "NEXT_DEALER":
      text = `${who} farà il mazziere (deals next)`;
      break;
    case "POT_WON":
      text = `${who} vince il piatto (wins the pot)`;
      break;
    case "POT_SHARE":
      text = `${who} divide il piatto (shares the pot)`;
      break;
    case "REVIVE":
      text = `${to} ridà una vita a ${who} (gives ${who} a life back)`;
      break;
    // Trentuno
    case "DEAL":
      text = `${who} distribuisce (deals) · nel piatto (in the pot) ${chipsWord(amount)}`;
      break;
    case "HAND":
      text = `${who} riceve tre carte (is dealt three cards)${e.cards.some((c) => c.card) ? `: ${cards}` : ""}`;
      break;
    case "WIDOW":
      text = `Il monte (the widow): ${cards}`;
      break;
    case "WIDOW_TRENTUNO":
      text = `Nel monte c'è trentuno: lo prende ${who} (the widow is a 31: the dealer takes it)`;
      break;
    case "EXCHANGE": {
      const [given, taken] = e.cards.map((c) => (c.card ? cardName(c.card) : HIDDEN_NAME));
      text = `${who} dà ${given} e prende ${taken} dal monte (gives and takes from the widow)`;
      break;
    }
    case "TAKE_ALL":
      text = `${who} prende tutto il monte e lascia ${cards} (takes the whole widow)`;
      break;
    case "STOP":
      text = `${who} bussa: ultimo giro (knocks: last round)`;
      break;
    case "PASS":
      text = `${who} passa (passes)`;
      break;
    case "ROUND_LIMIT":
      text = `Dopo ${amount} giri ${who} bussa d'ufficio (after ${amount} rounds the dealer knocks)`;
      break;
    case "SHOW":
      text = `${who} mostra (shows) ${cards}${pts}`;
      break;
    case "WIN":
      text = `${who} vince la smazzata (wins the deal)${pts}`;
      break;
    // Committed dealing (docs/fairness.md), every game
    case "COMMITTED":
      text = `Estrazione ${e.draw} impegnata: ${shortHex(e.data)} (draw ${e.draw} committed)`;
      break;
    case "ENTROPY":
      text = `${who} aggiunge il suo caso all'estrazione ${e.draw} (adds randomness to draw ${e.draw})`;
      break;
    case "SEED":
      text = e.cards.length
        ? `Mazzo dell'estrazione ${e.draw} svelato: ${e.cards.length} carte (pack of draw ${e.draw} revealed)`
        : `Estrazione ${e.draw} svelata (draw ${e.draw} revealed)`;
      break;
    // Every game
    case "HAND_OVER":
      text = game === "sette_e_mezzo" ? `Fine della mano ${amount} (end of hand ${amount})` : "Fine della mano (end of the hand)";
      break;
    case "GAME_OVER":
      text = `Partita finita (game over)${e.seat !== undefined ? `: vince ${who} (${who} wins)` : ""}`;
      break;
    default:
      text = [who, e.kind.toLowerCase().replace(/_/g, " "), cards].filter(Boolean).join(" · ");
  }
  return text;
}

/** The host's refusals in words for people, by ErrorInfo reason. */
export const REFUSALS: Record<string, string> = {
  STALE_SEQUENCE: "Il tavolo è andato avanti prima della tua mossa: guarda e scegli di nuovo (the table moved on first: choose again)",
  TABLE_CLOSED: "Il tavolo è stato chiuso (the table was closed)",
  TABLE_NOT_FOUND: "Questo tavolo non c'è più (this table is gone)",
  CAPABILITY_INVALID: "Questo invito non vale più (this invite no longer works)",
  CAPABILITY_REVOKED: "Questo invito è stato sostituito da chi ha aperto il tavolo (the table's owner replaced this invite)",
  OVERLOADED: "Il servizio è molto occupato: riprova tra poco (the service is busy: try again shortly)",
  CALLER_LIMIT: "Troppe richieste da questa rete: riprova tra poco (too many requests from this network: try again shortly)",
  STORE_FULL: "Il servizio non può aprire altri tavoli ora: riprova più tardi (the service cannot open more tables now: try again later)",
  STORE_UNAVAILABLE: "Il tavolo non è raggiungibile ora: riprova tra poco (the table cannot be reached now: try again shortly)",
  TOO_MANY_CONNECTIONS: "Il server ha troppe connessioni aperte: riprova tra poco (the server has too many connections open: try again shortly)",
};

/** Why the host will not show a table to this page again, for the page that says so (`reason`: the refusal's). */
export function goneText(reason: string): string {
  switch (reason) {
    case "TABLE_NOT_FOUND":
      return (
        "Questo tavolo non c'è più: il servizio non lo tiene (scaduto, o mai esistito). " +
        "(This table is gone: the service no longer keeps it; it expired, or never was.)"
      );
    case "CAPABILITY_REVOKED":
      return (
        "Chi ha aperto il tavolo ha fatto un invito nuovo per questo posto: questo link non vale più e il tavolo " +
        "non si aggiorna qui. Chiedigli il link nuovo. (The table's owner made a new invite for this place: this " +
        "link no longer works and the table stopped here. Ask them for the new link.)"
      );
    default:
      return (
        "Questo invito non vale più: chi ha aperto il tavolo può averne fatto uno nuovo. Chiedigli il link nuovo. " +
        "(This invite no longer works: the table's owner may have made a new one; ask for the new link.)"
      );
  }
}
