/**
 * The object identifiers of the public-key algorithms kubeloop reads from certificates and keys
 * (RFC 3279, 5480, 8410), and the named curves WebCrypto implements, shared by the server-certificate
 * check (lib/http) and the metrics server's key check (lib/observe).
 * @module
 */

/** rsaEncryption: an RSA key, usable for PKCS#1 v1.5 and PSS signatures. */
export const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
/** id-ecPublicKey: an elliptic-curve key; the curve follows as a named-curve OID. */
export const EC_PUBLIC_KEY = "1.2.840.10045.2.1";
/** id-Ed25519: both the key algorithm and the signature algorithm. */
export const ED25519 = "1.3.101.112";

/** Named-curve OIDs to WebCrypto's curve names; other curves (P-224, brainpool…) are absent. */
export const NAMED_CURVES: ReadonlyMap<string, string> = new Map([
  ["1.2.840.10045.3.1.7", "P-256"],
  ["1.3.132.0.34", "P-384"],
  ["1.3.132.0.35", "P-521"],
]);
