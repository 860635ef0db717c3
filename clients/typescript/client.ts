// A thin layer over the generated code, for Node: a TableService client over gRPC (HTTP/2, the default), the
// Connect protocol or gRPC-Web (the gateway's REST port), a HostService client the same ways, and the ErrorInfo of
// an error. A hosted table's updates, across reconnections: watch.ts. Browsers use web.ts.
import { createClient, type Transport as ConnectTransport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { HostService } from "./gen/mazziere/v1/host_pb.js";
import { TableService } from "./gen/mazziere/v1/service_pb.js";
import type { HostClient } from "./watch.js";
import { webTransport, type TableClient, type WebTransport } from "./web.js";

export { Code, ConnectError, ERROR_DOMAIN, errorInfo, type TableClient } from "./web.js";
export {
  CAPABILITY_HEADER,
  DEFAULT_BACKOFF,
  watch,
  type Backoff,
  type HostClient,
  type WatchOptions,
} from "./watch.js";

export type Transport = "grpc" | WebTransport;

/**
 * A client of mazziere.v1.TableService at `target` ("host:port", plaintext; "https://host:port" for TLS).
 * `transport` "grpc" (the default) speaks gRPC to the gRPC port (default: $MAZZIERE_TARGET or localhost:50051);
 * "connect" and "grpc-web" speak to the REST gateway's port (default: $MAZZIERE_REST_TARGET or localhost:8080).
 */
export function connect(target?: string, options: { transport?: Transport } = {}): TableClient {
  return createClient(TableService, nodeTransport(target, options.transport ?? "grpc"));
}

/** A client of mazziere.v1.HostService (hosted tables; `watch` follows one) at `target`, as `connect`'s. */
export function connectHost(target?: string, options: { transport?: Transport } = {}): HostClient {
  return createClient(HostService, nodeTransport(target, options.transport ?? "grpc"));
}

function nodeTransport(target: string | undefined, transport: Transport): ConnectTransport {
  if (transport === "grpc") {
    return createGrpcTransport({ baseUrl: url(target || process.env.MAZZIERE_TARGET || "localhost:50051") });
  }
  return webTransport(url(target || process.env.MAZZIERE_REST_TARGET || "localhost:8080"), { transport });
}

function url(target: string): string {
  return /^https?:\/\//.test(target) ? target : `http://${target}`;
}
