// The cast of the path-check scenarios: a root CA, two intermediates, a rogue CA with the root's
// name, and a server, each with an Ed25519 key from one seed, and a question to ask about a chain
// built from them (tests/x509/path_differential_test.ts asks it of Go's crypto/x509 and of ours).
import { certificate, type CertificateSpec, ed25519Key, type Key } from "./_builder.ts";

/** One question: is `leaf`, presented with `intermediates`, trusted for `name` at `now` under `roots`? */
export interface Scenario {
  readonly id: string;
  readonly roots: readonly Uint8Array[];
  readonly intermediates: readonly Uint8Array[];
  readonly leaf: Uint8Array;
  /** A DNS name or an IP address. */
  readonly name: string;
  readonly now: number;
  /** Set when kubeloop refuses, deliberately, what Go accepts: the reason (docs/security.md lists it). */
  readonly stricter?: string;
}

/** The time every scenario is asked at unless it says otherwise. */
export const NOW = Date.UTC(2030, 0, 1);
/** Validity of every certificate unless a scenario says otherwise. */
export const VALID = { notBefore: new Date(Date.UTC(2025, 0, 1)), notAfter: new Date(Date.UTC(2035, 0, 1)) };
export const EXPIRED = {
  notBefore: new Date(Date.UTC(2020, 0, 1)),
  notAfter: new Date(Date.UTC(2021, 0, 1)),
};
export const NOT_YET = {
  notBefore: new Date(Date.UTC(2031, 0, 1)),
  notAfter: new Date(Date.UTC(2032, 0, 1)),
};

/** Changes to a certificate's defaults; `undefined` leaves an extension out. */
export type Changes = Partial<Omit<CertificateSpec, "key" | "issuer">>;

/** An issuer: its subject CN and its key. */
export interface Issuer {
  readonly subject: string;
  readonly key: Key;
}

/** The keys, and certificates of the usual shapes with changes. */
export class World {
  readonly rootKey: Key;
  readonly rogueKey: Key;
  readonly intKey: Key;
  readonly int2Key: Key;
  readonly leafKey: Key;
  readonly root: Issuer;
  readonly rogue: Issuer;
  readonly int: Issuer;
  readonly int2: Issuer;
  #serial = 1;

  private constructor(keys: Key[]) {
    [this.rootKey, this.rogueKey, this.intKey, this.int2Key, this.leafKey] = keys as [
      Key,
      Key,
      Key,
      Key,
      Key,
    ];
    this.root = { subject: "kubeloop test root", key: this.rootKey };
    this.rogue = { subject: "kubeloop test root", key: this.rogueKey };
    this.int = { subject: "kubeloop test intermediate", key: this.intKey };
    this.int2 = { subject: "kubeloop test intermediate 2", key: this.int2Key };
  }

  /** Five keys drawn from `random`. */
  static async create(random: () => number): Promise<World> {
    const keys: Key[] = [];
    for (let i = 0; i < 5; i++) keys.push(await ed25519Key(random));
    return new World(keys);
  }

  /** A self-signed CA certificate of `who` (the root unless said). */
  selfSigned(changes: Changes = {}, who: Issuer = this.root): Promise<Uint8Array> {
    return this.#make({ ...caDefaults(who.subject), ...changes, key: who.key });
  }

  /** A CA certificate for `subject` (the intermediate unless said), issued by `issuer` (the root). */
  ca(changes: Changes = {}, subject: Issuer = this.int, issuer: Issuer = this.root): Promise<Uint8Array> {
    return this.#make({ ...caDefaults(subject.subject), ...changes, key: subject.key, issuer });
  }

  /** A server certificate for api.example.com, issued by `issuer` (the root unless said). */
  leaf(changes: Changes = {}, issuer: Issuer = this.root): Promise<Uint8Array> {
    return this.#make({
      subject: "api.example.com",
      ...VALID,
      ca: false,
      keyUsage: ["digitalSignature"],
      eku: ["serverAuth"],
      sans: ["dns:api.example.com"],
      ...changes,
      key: this.leafKey,
      issuer,
    });
  }

  #make(spec: CertificateSpec): Promise<Uint8Array> {
    return certificate({ serial: this.#serial++, ...spec });
  }
}

function caDefaults(subject: string): Omit<CertificateSpec, "key"> {
  return { subject, ...VALID, ca: true, keyUsage: ["keyCertSign", "cRLSign"] };
}
