// The REST gateway through openapi-fetch, typed by the types openapi-typescript generates from the gateway's
// own OpenAPI document (src/gen/api.d.ts, made at build time): no request or answer shape is written here.

import createClient from "openapi-fetch";
import document from "../openapi.json";
import type { components, paths } from "./gen/api";

type Schemas = components["schemas"];
export type GameInfo = Schemas["mazziere.v1.GameInfo"];
export type OptionInfo = Schemas["mazziere.v1.OptionInfo"];
export type Rules = Schemas["mazziere.v1.Rules"];
export type CreateTableRequest = Schemas["mazziere.v1.CreateTableRequest"];
export type CreateTableResponse = Schemas["mazziere.v1.CreateTableResponse"];
export type ActRequest = Schemas["mazziere.v1.ActRequest"];
export type ActResponse = Schemas["mazziere.v1.ActResponse"];
export type GetViewResponse = Schemas["mazziere.v1.GetViewResponse"];
export type Action = Schemas["mazziere.v1.Action"];
export type AdviseResponse = Schemas["mazziere.v1.AdviseResponse"];
export type LegalAction = Schemas["mazziere.v1.LegalAction"];
export type SeatUpdate = Schemas["mazziere.v1.SeatUpdate"];
export type TableView = Schemas["mazziere.v1.TableView"];
export type TableCard = Schemas["mazziere.v1.TableCard"];
export type GameEvent = Schemas["mazziere.v1.Event"];
export type Transfer = Schemas["mazziere.v1.Transfer"];
export type SetteEMezzoView = Schemas["mazziere.v1.SetteEMezzoView"];
export type SaltacavalloView = Schemas["mazziere.v1.SaltacavalloView"];
export type TrentunoView = Schemas["mazziere.v1.TrentunoView"];
type ErrorBody = Schemas["Error"];

/** A refusal of the service: its message for people and its ErrorInfo reason (e.g. STALE_SEQUENCE). */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

const client = createClient<paths>({ baseUrl: location.origin });

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  default?: unknown;
}

const SCHEMAS = document.components.schemas as Record<string, Schema>;

/** Protobuf JSON leaves out fields at their default; the document declares each default, and the generated
 * types count on them, so every answer gets them back here (recursively, through messages and lists). */
function withDefaults(value: unknown, schema: Schema | undefined): unknown {
  if (!schema || value === null || typeof value !== "object") return value;
  if (schema.$ref) return withDefaults(value, SCHEMAS[schema.$ref.split("/").pop() ?? ""]);
  if (schema.allOf) return schema.allOf.reduce<unknown>((v, s) => withDefaults(v, s), value);
  if (Array.isArray(value)) return value.map((item) => withDefaults(item, schema.items));
  const object = value as Record<string, unknown>;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (object[name] === undefined && property.default !== undefined) object[name] = structuredClone(property.default);
    object[name] = withDefaults(object[name], property);
  }
  return object;
}

function unwrap<T>(answer: { data?: T; error?: ErrorBody; response: Response }, schema: string): T {
  if (answer.data !== undefined) return withDefaults(answer.data, SCHEMAS[schema]) as T;
  const error = answer.error?.error;
  const reason = error?.details?.find((d) => d.reason)?.reason ?? error?.status ?? "";
  throw new ServiceError(error?.message ?? `HTTP ${answer.response.status}`, answer.response.status, reason);
}

export async function listGames(): Promise<GameInfo[]> {
  return unwrap(await client.GET("/v1/games"), "mazziere.v1.ListGamesResponse").games;
}

export async function createTable(body: CreateTableRequest): Promise<CreateTableResponse> {
  return unwrap(await client.POST("/v1/tables", { body }), "mazziere.v1.CreateTableResponse");
}

export async function act(body: ActRequest): Promise<ActResponse> {
  return unwrap(await client.POST("/v1/tables:act", { body }), "mazziere.v1.ActResponse");
}

export async function getView(tableId: string, state: string, seat: number, seatKey: string): Promise<GetViewResponse> {
  return unwrap(
    await client.POST("/v1/tables:view", { body: { tableId, state, seat, seatKey } }),
    "mazziere.v1.GetViewResponse",
  );
}

/** The odds of each legal action of ``seat``, from what that seat may see (its key only). */
export async function advise(tableId: string, state: string, seat: number, seatKey: string): Promise<AdviseResponse> {
  return unwrap(
    await client.POST("/v1/tables:advise", { body: { tableId, state, seat, seatKey, samples: 0 } }),
    "mazziere.v1.AdviseResponse",
  );
}
