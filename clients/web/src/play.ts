// Moves at the solo table. The page is the host: it holds the state token and every seat's key. The player's
// key makes the player's moves and fetches the player's view. A bot's key is used only to ask the service to
// play that bot's turn (`autoPlay`, the bot's policy); the player's own update for that move comes with it
// (`viewers`). The page never asks for a bot's view.

import * as api from "./api";
import type { Saved } from "./store";

export interface Outcome {
  answer: api.ActResponse;
  mine: api.SeatUpdate;
}

/** The update of ``seat`` in an answer that carries updates (Act, CreateTable). */
export function mineOf(answer: { updates: api.SeatUpdate[] }, seat: number): api.SeatUpdate {
  const found = answer.updates.filter((u) => u.seat === seat).pop();
  if (!found) throw new api.ServiceError("the answer holds no update for this seat", 0, "");
  return found;
}

function request(table: Saved, seat: number): api.ActRequest {
  const viewers = seat === table.mySeat ? [] : [{ seat: table.mySeat, key: table.keys[table.mySeat] }];
  return {
    tableId: table.tableId,
    state: table.state,
    expectedSeq: table.seq,
    seatKey: table.keys[seat],
    viewers,
    includeSpectator: false,
    autoPlay: "",
  };
}

/** Plays the player's `action`. */
export async function play(table: Saved, action: api.Action): Promise<Outcome> {
  const answer = await api.act({ ...request(table, action.seat), action });
  return { answer, mine: mineOf(answer, table.mySeat) };
}

/** Has the service play a bot's turn by the bot's policy; the answer's `action` is the move it chose. */
export async function autoPlay(table: Saved, seat: number): Promise<Outcome> {
  const answer = await api.act({ ...request(table, seat), autoPlay: table.policies[seat], autoSeat: seat });
  return { answer, mine: mineOf(answer, table.mySeat) };
}

/** An Action for a legal one: its seat, kind, target and cards, and `amount` where it takes one. */
export function actionFor(seat: number, legal: api.LegalAction, amount?: number): api.Action {
  const action: api.Action = { seat, kind: legal.kind, amount: "0", cards: legal.cards };
  if (legal.target !== undefined) action.target = legal.target;
  if (Number(legal.maxAmount) > 0) action.amount = String(amount ?? Number(legal.minAmount));
  return action;
}
