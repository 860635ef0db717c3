// The browser's TableService client: the Connect protocol or gRPC-Web over fetch, to the gateway's REST port
// (`/mazziere.v1.TableService/<RPC>`). Imports nothing of Node, so a bundler can ship it to a page.
import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema, type ErrorInfo } from "./gen/google/rpc/error_details_pb.js";
import { HostService } from "./gen/mazziere/v1/host_pb.js";
import { TableService } from "./gen/mazziere/v1/service_pb.js";
import type { HostClient } from "./watch.js";

export type TableClient = Client<typeof TableService>;

/** The transports over plain HTTP: "connect" (JSON or protobuf bodies) or "grpc-web". */
export type WebTransport = "connect" | "grpc-web";

/** The domain of every ErrorInfo the service sends. */
export const ERROR_DOMAIN = "mazziere.v1";

/**
 * A client of mazziere.v1.TableService at `baseUrl`, the gateway's URL (e.g. "https://mazziere.example" or
 * "http://localhost:8080"). `useBinaryFormat`: protobuf bodies rather than JSON (Connect only; gRPC-Web is
 * always protobuf here).
 */
export function connectWeb(baseUrl: string, options: WebOptions = {}): TableClient {
  return createClient(TableService, webTransport(baseUrl, options));
}

/** A client of mazziere.v1.HostService (hosted tables; `watch` follows one) at `baseUrl`, as `connectWeb`. */
export function connectWebHost(baseUrl: string, options: WebOptions = {}): HostClient {
  return createClient(HostService, webTransport(baseUrl, options));
}

export interface WebOptions {
  transport?: WebTransport;
  useBinaryFormat?: boolean;
}

/** The transport of `connectWeb` and `connectWebHost`. */
export function webTransport(baseUrl: string, options: WebOptions): Transport {
  return options.transport === "grpc-web"
    ? createGrpcWebTransport({ baseUrl, useBinaryFormat: true })
    : createConnectTransport({ baseUrl, useBinaryFormat: options.useBinaryFormat ?? false });
}

/** The code and the ErrorInfo (reason without the ERROR_REASON_ prefix, domain, metadata) of a failed call. */
export function errorInfo(err: unknown): { code: Code; info: ErrorInfo | undefined } {
  const error = ConnectError.from(err);
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.domain === ERROR_DOMAIN);
  return { code: error.code, info };
}

export { Code, ConnectError };
export {
  CAPABILITY_HEADER,
  DEFAULT_BACKOFF,
  watch,
  type Backoff,
  type HostClient,
  type WatchOptions,
} from "./watch.js";
