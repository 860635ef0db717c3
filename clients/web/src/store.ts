// The solo table as the page keeps it in localStorage, so a refresh finds it again: the latest state token and
// its sequence number, the table id, every seat's key (the page is the host of a table against bots), and what
// the player has seen (the log and the last hand's settlement).

import type { SeatUpdate, Transfer } from "./api";

export interface Saved {
  game: string;
  title: string;
  tableId: string;
  state: string;
  seq: string;
  mySeat: number;
  /** Seat keys by seat: the player's own, and the bots' (used only to make the bots' moves). */
  keys: string[];
  /** The bots' policies by seat; "" for the player's seat. */
  policies: string[];
  /** The player's latest update: its view and its legal actions. */
  update: SeatUpdate;
  toAct: number[];
  isOver: boolean;
  log: string[];
  /** Chips moved since the current hand began. */
  transfers: Transfer[];
  handOver: boolean;
  hands: number;
  /** The player asked for the next hand (or the first): the bots play until it is over. */
  nextHand: boolean;
}

const KEY = "mazziere.table";

export function load(): Saved | null {
  try {
    const text = localStorage.getItem(KEY);
    return text ? (JSON.parse(text) as Saved) : null;
  } catch {
    return null;
  }
}

export function save(table: Saved): void {
  localStorage.setItem(KEY, JSON.stringify(table));
}

export function forget(): void {
  localStorage.removeItem(KEY);
}
