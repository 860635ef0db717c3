// Card names and faces. The engine writes a card as rank then suit (engine/cards.py): Italian suits in lower
// case (d c s b: denari, coppe, spade, bastoni) with ranks A 2..7 F C R; French suits in upper case (H D C S)
// with ranks A 2..9 T J Q K. Faces are SVG drawn here: the suit's symbol and the rank.

import { t } from "./i18n";

interface SuitInfo {
  color: string;
  symbol: string; // SVG shapes in a 100x100 box
}

const SUITS: Record<string, SuitInfo> = {
  d: {
    color: "#a86b00",
    symbol:
      '<circle cx="50" cy="50" r="42" fill="#f2c230" stroke="#8a5a00" stroke-width="6"/>' +
      '<circle cx="50" cy="50" r="22" fill="none" stroke="#8a5a00" stroke-width="5"/>' +
      '<circle cx="50" cy="50" r="7" fill="#c0392b"/>',
  },
  c: {
    color: "#b0271b",
    symbol:
      '<path d="M18 10 H82 Q84 50 56 60 V76 Q72 80 74 92 H26 Q28 80 44 76 V60 Q16 50 18 10 Z" ' +
      'fill="#d9462f" stroke="#7a1a10" stroke-width="5" stroke-linejoin="round"/>' +
      '<path d="M24 22 H76" stroke="#f2c230" stroke-width="6"/>',
  },
  s: {
    color: "#1f4f8a",
    symbol:
      '<path d="M50 2 L60 16 V66 H40 V16 Z" fill="#9db8d9" stroke="#1f4f8a" stroke-width="4"/>' +
      '<rect x="24" y="64" width="52" height="9" rx="4" fill="#f2c230" stroke="#7a5200" stroke-width="3"/>' +
      '<rect x="44" y="73" width="12" height="17" fill="#7a3e12"/>' +
      '<circle cx="50" cy="93" r="6" fill="#f2c230" stroke="#7a5200" stroke-width="2"/>',
  },
  b: {
    color: "#2e6b1f",
    symbol:
      '<path d="M38 6 Q50 0 62 6 L57 94 Q50 99 43 94 Z" fill="#6aa84f" stroke="#274e13" stroke-width="4"/>' +
      '<circle cx="38" cy="34" r="6" fill="#274e13"/><circle cx="62" cy="52" r="6" fill="#274e13"/>' +
      '<circle cx="40" cy="70" r="5" fill="#274e13"/>',
  },
  H: {
    color: "#c0392b",
    symbol:
      '<path d="M50 90 C22 68 6 50 12 30 C18 12 42 10 50 30 C58 10 82 12 88 30 C94 50 78 68 50 90 Z" fill="#c0392b"/>',
  },
  D: {
    color: "#c0392b",
    symbol: '<path d="M50 4 L86 50 L50 96 L14 50 Z" fill="#c0392b"/>',
  },
  C: {
    color: "#1a1a1a",
    symbol:
      '<circle cx="50" cy="28" r="19" fill="#1a1a1a"/><circle cx="28" cy="58" r="19" fill="#1a1a1a"/>' +
      '<circle cx="72" cy="58" r="19" fill="#1a1a1a"/><path d="M45 50 H55 L62 94 H38 Z" fill="#1a1a1a"/>',
  },
  S: {
    color: "#1a1a1a",
    symbol:
      '<path d="M50 6 C66 30 92 44 88 66 C84 84 62 84 55 72 L62 94 H38 L45 72 C38 84 16 84 12 66 ' +
      'C8 44 34 30 50 6 Z" fill="#1a1a1a"/>',
  },
};

const ITALIAN_RANKS = "A234567FCR";
const FRENCH_RANKS = "A23456789TJQK";

export interface CardInfo {
  code: string;
  rank: number;
  label: string; // the corner index: A, 7, F, C, R, 10, J, Q, K
  suit: SuitInfo;
  italian: boolean;
}

export function parseCard(code: string): CardInfo | null {
  if (code.length !== 2) return null;
  const suit = SUITS[code[1]];
  if (!suit) return null;
  const italian = code[1] === code[1].toLowerCase();
  const rank = (italian ? ITALIAN_RANKS : FRENCH_RANKS).indexOf(code[0]) + 1;
  if (rank === 0) return null;
  const label = code[0] === "T" ? "10" : code[0];
  return { code, rank, label, suit, italian };
}

/** A card in the page's words: "7 di coppe" or "7 of cups", "re di denari", "queen of spades". */
export function cardName(code: string): string {
  const card = parseCard(code);
  if (!card) return code;
  const rank = t.cards.faces[code[0]] ?? card.label;
  return t.cards.name({ rank, suit: t.cards.suits[code[1]] ?? code[1] });
}

export function hiddenName(): string {
  return t.cards.hidden;
}

let faces = 0;

function faceSvg(card: CardInfo): string {
  const { color, symbol } = card.suit;
  // The corner's rank and suit once, and its upside-down copy by reference: the card's rank is its text once
  // (a pick button's visible text is then part of its name, "Prendi: 8 di cuori", as screen readers need).
  const id = `face-${++faces}`;
  const corner =
    `<g id="${id}"><text x="0" y="0" font-size="15" font-weight="700" font-family="Georgia,serif" ` +
    `fill="${color}" text-anchor="middle">${card.label}</text>` +
    `<svg x="-6" y="3" width="12" height="12" viewBox="0 0 100 100">${symbol}</svg></g>`;
  return (
    '<svg viewBox="0 0 60 90" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">' +
    '<rect x="1" y="1" width="58" height="88" rx="6" fill="#fffdf6" stroke="#555" stroke-width="1.5"/>' +
    `<g transform="translate(10 17)">${corner}</g>` +
    `<use href="#${id}" transform="translate(50 73) rotate(180 0 0)"/>` +
    `<svg x="14" y="27" width="32" height="36" viewBox="0 0 100 100">${symbol}</svg></svg>`
  );
}

const BACK_SVG =
  '<svg viewBox="0 0 60 90" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">' +
  '<defs><pattern id="weave" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
  '<rect width="8" height="8" fill="#8e2a2a"/><rect width="4" height="8" fill="#a63c3c"/></pattern></defs>' +
  '<rect x="1" y="1" width="58" height="88" rx="6" fill="url(#weave)" stroke="#3b1010" stroke-width="1.5"/>' +
  '<rect x="6" y="6" width="48" height="78" rx="4" fill="none" stroke="#f2c230" stroke-width="1.5"/></svg>';

/** A card as an element: its face when `code` is set, its back otherwise; named for screen readers. Only a face
 * carries its code (`data-card`): a face-down card holds nothing of the card it hides. */
export function cardElement(code: string | undefined, seat?: number): HTMLElement {
  const el = document.createElement("span");
  el.className = "card";
  el.setAttribute("role", "img");
  drawCard(el, code);
  if (seat !== undefined) el.dataset.seat = String(seat);
  return el;
}

/** A face-up card the player can pick (Trentuno's exchange): a toggle button named "`verb` <card>". */
export function cardButton(code: string, verb: string, pressed: boolean): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card pick";
  drawCard(button, code);
  button.setAttribute("aria-label", `${verb}: ${cardName(code)}`);
  button.setAttribute("aria-pressed", String(pressed));
  return button;
}

function drawCard(el: HTMLElement, code: string | undefined): void {
  const card = code ? parseCard(code) : null;
  if (card) {
    el.innerHTML = faceSvg(card);
    el.setAttribute("aria-label", cardName(card.code));
    el.dataset.card = card.code;
  } else {
    el.innerHTML = BACK_SVG;
    el.classList.add("back");
    el.setAttribute("aria-label", hiddenName());
  }
}
