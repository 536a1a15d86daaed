/**
 * gzip (RFC 1952) and DEFLATE (RFC 1951) decoding written here, incremental and bounded: a body is
 * expanded chunk by chunk with a cap on its output, and concatenated members (as a gzipped watch stream
 * sends them) are decoded one after another. lib/http wraps it as a body stream.
 * @module
 */
export { GzipDecoder } from "./members.ts";
export { InflateError } from "./inflate.ts";
