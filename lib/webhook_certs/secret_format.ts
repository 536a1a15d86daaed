/**
 * The certificate Secret's format: {@linkcode StoredRotation} to and from a `kubernetes.io/tls` Secret.
 *
 * One Secret holds the whole persistent state, so every transition is one write made conditional on the
 * resourceVersion it was decided from, and a reader never sees half a rotation. Its type is
 * `kubernetes.io/tls` and `tls.crt`, `tls.key` and `ca.crt` are where cert-manager puts them, so the same
 * Secret can also be mounted and served as files. Fields:
 * - `tls.crt`, `tls.key`: the serving certificate (leaf only) and its PKCS#8 key;
 * - `ca.crt`: the trust bundle the caBundles must hold (one or two CA certificates);
 * - `signer.crt`, `signer.key`: the CA that signs serving certificates now;
 * - `next.crt`, `next.key` (staged only): the new CA, published but not signing yet;
 * - `previous.crt` (switched only): the old CA, trusted until the overlap ends (its key is gone);
 * - annotations `kubeloop.dev/webhook-certificates: v1` (ours, and the format's version: any other value
 *   or none and the Secret is left alone), `kubeloop.dev/rotation-phase` and `kubeloop.dev/rotation-since`
 *   (RFC 3339: when the caBundles were read back holding both CAs, or when the switch was made).
 * Key material appears in no error and no log line: problems name the field.
 * @module
 */
import type { Secret } from "../resources/core_v1.ts";
import type { ObjectMeta } from "../resources/object.ts";
import { type Certificate, parseCertificate, pemCertificates } from "../x509/certificate.ts";
import { importPrivateKeyPem, importPublicKey, isKeyOf } from "../x509/private_key.ts";
import { signedBy } from "../x509/signature.ts";
import { ipText } from "../x509/general_names.ts";
import type { KeyedCertificate, SecretView, ServingCertificate, StoredRotation } from "./stored_rotation.ts";
import { trustBundle } from "./stored_rotation.ts";

/** The annotation that marks a Secret as ours, with the format version as its value. */
export const FORMAT_ANNOTATION = "kubeloop.dev/webhook-certificates";
/** The annotation that holds the stored phase. */
export const PHASE_ANNOTATION = "kubeloop.dev/rotation-phase";
/** The annotation that holds `publishedAt` (staged) or `since` (switched). */
export const SINCE_ANNOTATION = "kubeloop.dev/rotation-since";
const FORMAT = "v1";
const TLS_TYPE = "kubernetes.io/tls";

/** The Secret holding `stored`, for a create or (with `resourceVersion` in `metadata`) a conditional update. */
export function encodeSecret(
  stored: StoredRotation,
  metadata: Pick<ObjectMeta, "name" | "namespace" | "labels" | "resourceVersion">,
): Secret {
  const data: Record<string, string> = {
    "tls.crt": stored.serving?.cert ?? "",
    "tls.key": stored.serving?.key ?? "",
    "ca.crt": trustBundle(stored).join(""),
    "signer.crt": stored.signer.cert,
    "signer.key": stored.signer.key,
  };
  const annotations: Record<string, string> = {
    [FORMAT_ANNOTATION]: FORMAT,
    [PHASE_ANNOTATION]: stored.phase,
  };
  if (stored.phase === "staged") {
    data["next.crt"] = stored.next.cert;
    data["next.key"] = stored.next.key;
    if (stored.publishedAt !== undefined) {
      annotations[SINCE_ANNOTATION] = new Date(stored.publishedAt).toISOString();
    }
  } else if (stored.phase === "switched") {
    data["previous.crt"] = stored.previous;
    annotations[SINCE_ANNOTATION] = new Date(stored.since).toISOString();
  }
  const encoded: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) encoded[k] = toBase64(v);
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: TLS_TYPE,
    metadata: { ...structuredClone(metadata), annotations },
    data: encoded,
  };
}

/** A problem with one field; its message names the field and never quotes it. */
class FieldProblem extends Error {}

/**
 * What a Secret (or its absence) holds. Async: every key is checked against its certificate, and the
 * serving certificate's signature against the stored CAs, with WebCrypto.
 */
export async function decodeSecret(secret: Secret | undefined): Promise<SecretView> {
  if (secret === undefined) return { kind: "absent" };
  const annotations = secret.metadata.annotations ?? {};
  const format = annotations[FORMAT_ANNOTATION];
  if (format === undefined) return { kind: "foreign", reason: `no ${FORMAT_ANNOTATION} annotation` };
  if (format !== FORMAT) return { kind: "foreign", reason: `format "${format}" is not ${FORMAT}` };
  if (secret.type !== TLS_TYPE) {
    return { kind: "foreign", reason: `type "${secret.type ?? ""}" is not ${TLS_TYPE}` };
  }
  const resourceVersion = secret.metadata.resourceVersion ?? "";
  try {
    const stored = await storedOf(secret, annotations);
    return { kind: "held", stored, resourceVersion };
  } catch (error) {
    if (!(error instanceof FieldProblem)) throw error;
    return { kind: "malformed", reason: error.message, resourceVersion };
  }
}

async function storedOf(secret: Secret, annotations: Record<string, string>): Promise<StoredRotation> {
  const text = (field: string): string => {
    const value = secret.data?.[field];
    if (value === undefined) throw new FieldProblem(`data["${field}"] is missing`);
    try {
      return fromBase64(value);
    } catch {
      throw new FieldProblem(`data["${field}"] is not base64 UTF-8`);
    }
  };
  const ca = async (name: string): Promise<KeyedCertificate> => {
    const { cert, parsed } = certificateIn(text(`${name}.crt`), `data["${name}.crt"]`);
    if (parsed.isCa !== true) throw new FieldProblem(`data["${name}.crt"] is not a CA certificate`);
    const key = text(`${name}.key`);
    if (!(await keyMatches(parsed, key))) {
      throw new FieldProblem(`data["${name}.key"] is not the private key of data["${name}.crt"]`);
    }
    return { cert, key, notBefore: parsed.notBefore, notAfter: parsed.notAfter };
  };
  const since = (): number | undefined => {
    const value = annotations[SINCE_ANNOTATION];
    const ms = value === undefined ? NaN : Date.parse(value);
    return Number.isFinite(ms) ? ms : undefined;
  };
  const signer = await ca("signer");
  const phase = annotations[PHASE_ANNOTATION];
  let stored: StoredRotation;
  if (phase === "stable") {
    stored = { phase, signer };
  } else if (phase === "staged") {
    const publishedAt = since();
    stored = { phase, signer, next: await ca("next"), ...(publishedAt === undefined ? {} : { publishedAt }) };
  } else if (phase === "switched") {
    const previous = certificateIn(text("previous.crt"), 'data["previous.crt"]').cert;
    const at = since();
    if (at === undefined) throw new FieldProblem(`annotation ${SINCE_ANNOTATION} is not an RFC 3339 time`);
    stored = { phase, signer, previous, since: at };
  } else {
    throw new FieldProblem(`annotation ${PHASE_ANNOTATION} is not stable, staged or switched`);
  }
  const serving = await servingOf(secret, stored);
  return serving ? { ...stored, serving } : stored;
}

/** The serving certificate, or undefined when it is missing or unusable (the leader then issues one). */
async function servingOf(secret: Secret, stored: StoredRotation): Promise<ServingCertificate | undefined> {
  let cert: string;
  let key: string;
  let parsed: Certificate;
  try {
    cert = fromBase64(secret.data?.["tls.crt"] ?? "");
    key = fromBase64(secret.data?.["tls.key"] ?? "");
    ({ cert, parsed } = certificateIn(cert, 'data["tls.crt"]'));
  } catch {
    return undefined;
  }
  if (!(await keyMatches(parsed, key))) return undefined;
  const cas = [stored.signer.cert, ...(stored.phase === "staged" ? [stored.next.cert] : [])];
  if (stored.phase === "switched") cas.push(stored.previous);
  let issuer = "";
  for (const ca of cas) {
    if (await signedBy(parsed, certificateIn(ca, "a CA").parsed).catch(() => false)) {
      issuer = ca;
      break;
    }
  }
  const hosts = parsed.altNames.flatMap((n) =>
    n.kind === "dns" ? [n.value] : n.kind === "ip" ? [ipText(n.bytes)] : []
  );
  return { cert, key, notBefore: parsed.notBefore, notAfter: parsed.notAfter, hosts, issuer };
}

/** The one certificate of a PEM text, normalized to the PEM we write. */
function certificateIn(pem: string, field: string): { cert: string; parsed: Certificate } {
  const ders = pemCertificates(pem);
  if (ders.length !== 1) throw new FieldProblem(`${field} does not hold exactly one PEM certificate`);
  try {
    return { cert: pem, parsed: parseCertificate(ders[0]!) };
  } catch {
    throw new FieldProblem(`${field} is not an X.509 certificate`);
  }
}

async function keyMatches(cert: Certificate, pem: string): Promise<boolean> {
  try {
    const [key, publicKey] = await Promise.all([importPrivateKeyPem(pem), importPublicKey(cert.spki)]);
    return publicKey !== undefined && await isKeyOf(key, publicKey);
  } catch {
    return false;
  }
}

function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(value: string): string {
  const binary = atob(value);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}
