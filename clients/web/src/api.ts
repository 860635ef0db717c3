// The service, through the code protoc-gen-es generates from protos/ (src/gen, made by `make web`): HostService,
// which keeps the table and plays it, and TableService for the list of games. Both over the Connect protocol
// (JSON) on this page's own origin: `/mazziere.v1.HostService/<RPC>`. No request or answer shape is written here.
//
// The page holds no state token and no seat key: only capabilities (an invite for a seat, the spectators' invite,
// the owner's), each sent in the `x-table-capability` header.

import { Code, ConnectError, createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { HostService } from "./gen/mazziere/v1/host_pb";
import { TableService } from "./gen/mazziere/v1/service_pb";

export type {
  HostedSeat,
  HostedUpdate,
  Invite,
  OpenTableRequest,
  OpenTableResponse,
  Presence,
  WatchResponse,
} from "./gen/mazziere/v1/host_pb";
export type { ActionAdvice, AdviseResponse } from "./gen/mazziere/v1/service_pb";
export { AdviceBasis, AdviceMethod } from "./gen/mazziere/v1/service_pb";
export type {
  Action,
  Event as GameEvent,
  GameInfo,
  LegalAction,
  OptionInfo,
  SeatUpdate,
  TableView,
  Transfer,
} from "./gen/mazziere/v1/table_pb";
export type { TableCard } from "./gen/mazziere/v1/cards_pb";

const transport = createConnectTransport({ baseUrl: location.origin });

/** HostService: open, watch and play tables kept by the host. */
export const host: Client<typeof HostService> = createClient(HostService, transport);
/** TableService: only its list of games (the setup form's games, presets and options). */
export const tables: Client<typeof TableService> = createClient(TableService, transport);

export const CAPABILITY_HEADER = "x-table-capability";
/** How long a unary call may take (advice may sample for a few seconds). */
const CALL_MS = 20_000;

/** Options of a call made with `capability`: the header, a deadline (none for streams), an abort signal. */
export function as(capability: string, options: { signal?: AbortSignal; stream?: boolean } = {}): CallOptions {
  return {
    headers: { [CAPABILITY_HEADER]: capability },
    signal: options.signal,
    timeoutMs: options.stream ? undefined : CALL_MS,
  };
}

/** A failed call: the Connect code, the service's ErrorInfo reason (e.g. "STALE_SEQUENCE"; empty when the
 * service did not answer) and its message. */
export interface Refusal {
  code: Code;
  reason: string;
  message: string;
}

export function refusal(error: unknown): Refusal {
  const e = ConnectError.from(error);
  const info = e.findDetails(ErrorInfoSchema).find((d) => d.domain === "mazziere.v1");
  return { code: e.code, reason: info?.reason ?? "", message: e.rawMessage };
}

/** The table is gone for this page: no retry will help (the host keeps no such table, the invite is wrong, or the
 * owner reissued it while this page watched). */
export function isFinal(r: Refusal): boolean {
  return r.reason === "TABLE_NOT_FOUND" || r.reason === "CAPABILITY_INVALID" || r.reason === "CAPABILITY_REVOKED";
}

export { Code };
