// The browser's TableService client: the Connect protocol or gRPC-Web over fetch, to the gateway's REST port
// (`/mazziere.v1.TableService/<RPC>`). Imports nothing of Node, so a bundler can ship it to a page.
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema, type ErrorInfo } from "./gen/google/rpc/error_details_pb.js";
import { TableService } from "./gen/mazziere/v1/service_pb.js";

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
export function connectWeb(
  baseUrl: string,
  options: { transport?: WebTransport; useBinaryFormat?: boolean } = {},
): TableClient {
  const transport =
    options.transport === "grpc-web"
      ? createGrpcWebTransport({ baseUrl, useBinaryFormat: true })
      : createConnectTransport({ baseUrl, useBinaryFormat: options.useBinaryFormat ?? false });
  return createClient(TableService, transport);
}

/** The code and the ErrorInfo (reason without the ERROR_REASON_ prefix, domain, metadata) of a failed call. */
export function errorInfo(err: unknown): { code: Code; info: ErrorInfo | undefined } {
  const error = ConnectError.from(err);
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.domain === ERROR_DOMAIN);
  return { code: error.code, info };
}

export { Code, ConnectError };
