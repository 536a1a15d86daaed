/**
 * A hand-written HTTP/1.1 client over Deno sockets: keep-alive pool, chunked and gzip bodies,
 * client certificates, timeouts and abort signals. It knows nothing of Kubernetes.
 * @module
 */
export { HttpClient, type HttpClientOptions } from "./client.ts";
export {
  BodyTooLargeError,
  ConnectError,
  HttpError,
  ProtocolError,
  TimeoutError,
  TlsError,
} from "./errors.ts";
export type { HttpRequest, HttpResponse, TlsOptions, Transport } from "./types.ts";
// Referenced by HttpClientOptions; re-exported so the public face is self-contained.
export type { LogFields, Logger } from "../log/logger.ts";
export type { Clock, Timer } from "../time/clock.ts";
