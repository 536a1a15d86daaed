/**
 * The bytes of a PEM block's base64 body (RFC 7468), shared by the certificate and private-key
 * readers.
 * @module
 */

/**
 * Decodes `body` (base64, whitespace and line breaks allowed).
 * @throws {DOMException} when it is not base64.
 */
export function pemBodyBytes(body: string): Uint8Array<ArrayBuffer> {
  const binary = atob(body.replace(/\s+/g, ""));
  const der = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) der[i] = binary.charCodeAt(i);
  return der;
}
