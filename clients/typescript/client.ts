// A thin layer over the generated code: a TableService client over gRPC (HTTP/2) and the ErrorInfo of an error.
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema, type ErrorInfo } from "./gen/google/rpc/error_details_pb.js";
import { TableService } from "./gen/mazziere/v1/service_pb.js";

export type TableClient = Client<typeof TableService>;

/** The domain of every ErrorInfo the service sends. */
export const ERROR_DOMAIN = "mazziere.v1";

/**
 * A client of mazziere.v1.TableService at `target` ("host:port", plaintext; default: $MAZZIERE_TARGET or
 * localhost:50051). Pass "https://host:port" for TLS.
 */
export function connect(target: string = process.env.MAZZIERE_TARGET || "localhost:50051"): TableClient {
  const baseUrl = /^https?:\/\//.test(target) ? target : `http://${target}`;
  return createClient(TableService, createGrpcTransport({ baseUrl }));
}

/** The gRPC code and the ErrorInfo (reason without the ERROR_REASON_ prefix, domain, metadata) of a failed call. */
export function errorInfo(err: unknown): { code: Code; info: ErrorInfo | undefined } {
  const error = ConnectError.from(err);
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.domain === ERROR_DOMAIN);
  return { code: error.code, info };
}

export { Code, ConnectError };
