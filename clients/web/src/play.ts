// Moves at the solo table. The page is the host: it holds the state token and every seat's key. The player's
// key makes the player's moves and fetches the player's view; a bot's key is used only to make that bot's move
// (the bot's legal actions come from its GetView, which is never shown), and the player's own update for
// that move is asked for with `viewers`.

import * as api from "./api";
import type { Saved } from "./store";

export interface Outcome {
  answer: api.ActResponse;
  mine: api.SeatUpdate;
}

function mineOf(answer: api.ActResponse, seat: number): api.SeatUpdate {
  const found = answer.updates.filter((u) => u.seat === seat).pop();
  if (!found) throw new api.ServiceError("the answer holds no update for this seat", 0, "");
  return found;
}

function request(table: Saved, seat: number, action: api.Action): api.ActRequest {
  const viewers = seat === table.mySeat ? [] : [{ seat: table.mySeat, key: table.keys[table.mySeat] }];
  return {
    tableId: table.tableId,
    state: table.state,
    expectedSeq: table.seq,
    action,
    seatKey: table.keys[seat],
    viewers,
    includeSpectator: false,
  };
}

/** Plays `action` for its seat (the player's, or a bot's). */
export async function play(table: Saved, action: api.Action): Promise<Outcome> {
  const answer = await api.act(request(table, action.seat, action));
  return { answer, mine: mineOf(answer, table.mySeat) };
}

/** An Action for a legal one: its seat, kind, target and cards, and `amount` where it takes one. */
export function actionFor(seat: number, legal: api.LegalAction, amount?: number): api.Action {
  const action: api.Action = { seat, kind: legal.kind, amount: "0", cards: legal.cards };
  if (legal.target !== undefined) action.target = legal.target;
  if (Number(legal.maxAmount) > 0) action.amount = String(amount ?? Number(legal.minAmount));
  return action;
}

/** A bot seat's legal actions, from its own GetView (used to choose its move, never rendered). */
export async function botLegalActions(table: Saved, seat: number): Promise<api.LegalAction[]> {
  const view = await api.getView(table.tableId, table.state, seat, table.keys[seat]);
  return view.update?.legalActions ?? [];
}

/** The page's stand-in for a bot policy: a random legal action (any policy name plays this way here). */
export function chooseRandom(legal: api.LegalAction[]): api.LegalAction {
  return legal[Math.floor(Math.random() * legal.length)];
}
