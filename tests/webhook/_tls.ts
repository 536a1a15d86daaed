/**
 * Serving certificates for the webhook tests: a CA and a leaf for 127.0.0.1 and localhost that it signed,
 * which Deno's clients and kube-apiserver (given the CA as caBundle) both accept.
 * @module
 */
import { certificate, certificatePem, p256Key } from "../x509/_builder.ts";
import type { TlsMaterial } from "../../lib/x509/self_signed.ts";

/** A CA and a serving certificate it signed. */
export interface TestPki {
  /** The CA certificate (PEM): a client's trust anchor, a webhook configuration's caBundle. */
  readonly ca: string;
  /** The serving certificate (PEM) and its key. */
  readonly serving: TlsMaterial;
  /** Another serving certificate and key from the same CA, with its own subject, for rotations. */
  issue(subject: string): Promise<TlsMaterial>;
}

const DAY = 86_400_000;

/** A fresh CA and a serving certificate for 127.0.0.1, ::1 and localhost. */
export async function testPki(): Promise<TestPki> {
  const caKey = await p256Key();
  const now = Date.now();
  const caDer = await certificate({
    subject: "kubeloop webhook test CA",
    key: caKey,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 30 * DAY),
    ca: true,
    keyUsage: ["keyCertSign", "cRLSign", "digitalSignature"],
  });
  let serial = 2;
  const issue = async (subject: string): Promise<TlsMaterial> => {
    const key = await p256Key();
    const der = await certificate({
      subject,
      key,
      issuer: { subject: "kubeloop webhook test CA", key: caKey },
      serial: serial++,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 30 * DAY),
      ca: false,
      keyUsage: ["digitalSignature"],
      eku: ["serverAuth"],
      sans: ["ip:127.0.0.1", "ip:::1", "dns:localhost"],
    });
    return { cert: certificatePem(der), key: key.pkcs8Pem };
  };
  return { ca: certificatePem(caDer), serving: await issue("kubeloop webhook test server"), issue };
}
