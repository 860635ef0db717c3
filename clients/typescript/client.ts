// A thin layer over the generated code, for Node: a TableService client over gRPC (HTTP/2, the default), the
// Connect protocol or gRPC-Web (the gateway's REST port), and the ErrorInfo of an error. Browsers use web.ts.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { TableService } from "./gen/mazziere/v1/service_pb.js";
import { connectWeb, type TableClient, type WebTransport } from "./web.js";

export { Code, ConnectError, ERROR_DOMAIN, errorInfo, type TableClient } from "./web.js";

export type Transport = "grpc" | WebTransport;

/**
 * A client of mazziere.v1.TableService at `target` ("host:port", plaintext; "https://host:port" for TLS).
 * `transport` "grpc" (the default) speaks gRPC to the gRPC port (default: $MAZZIERE_TARGET or localhost:50051);
 * "connect" and "grpc-web" speak to the REST gateway's port (default: $MAZZIERE_REST_TARGET or localhost:8080).
 */
export function connect(target?: string, options: { transport?: Transport } = {}): TableClient {
  const transport = options.transport ?? "grpc";
  if (transport === "grpc") {
    const baseUrl = url(target || process.env.MAZZIERE_TARGET || "localhost:50051");
    return createClient(TableService, createGrpcTransport({ baseUrl }));
  }
  return connectWeb(url(target || process.env.MAZZIERE_REST_TARGET || "localhost:8080"), { transport });
}

function url(target: string): string {
  return /^https?:\/\//.test(target) ? target : `http://${target}`;
}
