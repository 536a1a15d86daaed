/**
 * Prototype: a decoder for Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`) of
 * core kinds, driven by the field tables that gen_tables.ts generates from the k8s.io/api `.proto`
 * files. It builds the same plain objects JSON.parse gives for the server's JSON (see compare.ts,
 * which checks that on real server objects), so it could sit behind content negotiation.
 *
 * JSON mappings the `.proto` files do not state, written here: meta/v1 Time and MicroTime become
 * RFC 3339 strings, FieldsV1 and RawExtension their embedded JSON, Quantity a string, IntOrString a
 * number or a string, bytes base64. Unknown fields are skipped by wire type. Limitation: the `.proto`
 * files do not say which fields are `omitempty` in JSON; empty strings and zero numbers are left out,
 * which matches ConfigMap, Secret and ObjectMeta but not every kind.
 */
import { MESSAGES } from "./k8s_tables.ts";

const META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const utf8 = new TextDecoder();
// Messages whose bytes field holds embedded data the decoder reads itself (not base64 in JSON).
const RAW_HOLDERS = new Set([
  `${META}FieldsV1`,
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
  "k8s.io.apimachinery.pkg.runtime.Unknown",
]);

type Obj = Record<string, unknown>;

/** Thrown for bytes that are not a well-formed Kubernetes protobuf message. */
export class ProtobufDecodeError extends SyntaxError {
  override name = "ProtobufDecodeError";
}

/**
 * Decodes a whole response body: the `k8s\0` magic, the runtime.Unknown envelope, then the object of
 * the envelope's kind (a core/v1 kind such as ConfigMapList), with `apiVersion` and `kind` set.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): Obj {
  for (let i = 0; i < 4; i++) {
    if (body[i] !== MAGIC[i]) {
      throw new ProtobufDecodeError("not a Kubernetes protobuf body (no k8s\\0 prefix)");
    }
  }
  const envelope = new Decoder(body).message("k8s.io.apimachinery.pkg.runtime.Unknown", 4, body.length);
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const raw = envelope.raw as Uint8Array | undefined;
  const name = `k8s.io.api.core.v1.${typeMeta.kind}`;
  if (!raw || !(name in MESSAGES)) throw new ProtobufDecodeError(`no field table for kind ${typeMeta.kind}`);
  const object = new Decoder(raw).message(name, 0, raw.length);
  return { kind: typeMeta.kind, apiVersion: typeMeta.apiVersion, ...object };
}

class Decoder {
  readonly #buf: Uint8Array;
  #pos = 0;

  constructor(buf: Uint8Array) {
    this.#buf = buf;
  }

  message(type: string, start: number, end: number): Obj {
    const fields = MESSAGES[type];
    if (!fields) throw new ProtobufDecodeError(`no field table for ${type}`);
    const base64 = !RAW_HOLDERS.has(type);
    const obj: Obj = {};
    this.#pos = start;
    while (this.#pos < end) {
      const tag = this.#varint();
      const field = fields[tag >>> 3];
      const wire = tag & 7;
      if (field === undefined) {
        this.#skip(wire);
        continue;
      }
      const [name, kind, label, valueType] = field;
      if (label === "map") {
        const len = this.#varint();
        const entryEnd = this.#pos + len;
        let key = "";
        let value: unknown = valueType === "string" ? "" : undefined;
        while (this.#pos < entryEnd) {
          const t = this.#varint();
          if (t >>> 3 === 1 && (t & 7) === 2) key = this.#string();
          else if (t >>> 3 === 2) {
            value = this.#value(valueType!, t & 7);
            if (value instanceof Uint8Array) value = bytesToBase64(value);
          } else this.#skip(t & 7);
        }
        ((obj[name] ??= {}) as Obj)[key] = value;
        continue;
      }
      let value = this.#value(kind, wire);
      if (base64 && value instanceof Uint8Array) value = bytesToBase64(value);
      if (label === "repeated") {
        ((obj[name] ??= []) as unknown[]).push(value);
      } else if (value !== "" && value !== 0) {
        obj[name] = value;
      }
    }
    this.#pos = end;
    return obj;
  }

  #value(kind: string, wire: number): unknown {
    switch (kind) {
      case "string":
        return this.#string();
      case "bool":
        return this.#varint() !== 0;
      case "int32":
      case "int64":
      case "uint32":
      case "uint64":
        return this.#varint();
      case "bytes": {
        const len = this.#varint();
        const bytes = this.#buf.subarray(this.#pos, this.#pos + len);
        this.#pos += len;
        return bytes;
      }
    }
    if (wire !== 2) throw new ProtobufDecodeError(`field of type ${kind} has wire type ${wire}`);
    const len = this.#varint();
    const start = this.#pos;
    const end = start + len;
    if (end > this.#buf.length) throw new ProtobufDecodeError("message runs past the end of the body");
    switch (kind) {
      case `${META}Time`:
      case `${META}MicroTime`: {
        const t = this.#plain(kind, start, end) as { seconds?: number; nanos?: number };
        this.#pos = end;
        return rfc3339(t.seconds ?? 0, kind.endsWith("MicroTime") ? t.nanos ?? 0 : undefined);
      }
      case `${META}FieldsV1`:
      case "k8s.io.apimachinery.pkg.runtime.RawExtension": {
        const holder = this.#plain(kind, start, end);
        const raw = (holder.Raw ?? holder.raw) as Uint8Array | undefined;
        this.#pos = end;
        return raw && raw.length > 0 ? JSON.parse(utf8.decode(raw)) : {};
      }
      case "k8s.io.apimachinery.pkg.api.resource.Quantity": {
        const q = this.#plain(kind, start, end);
        this.#pos = end;
        return q.string ?? "0";
      }
      case "k8s.io.apimachinery.pkg.util.intstr.IntOrString": {
        const v = this.#plain(kind, start, end);
        this.#pos = end;
        return v.type === 1 ? v.strVal ?? "" : v.intVal ?? 0;
      }
    }
    const value = new Decoder(this.#buf).message(kind, start, end);
    this.#pos = end;
    return value;
  }

  /** A nested message decoded without the JSON mappings (for the special types above). */
  #plain(kind: string, start: number, end: number): Obj {
    return new Decoder(this.#buf).message(kind, start, end);
  }

  #varint(): number {
    const buf = this.#buf;
    let b = buf[this.#pos++]!;
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let scale = 128;
    for (let i = 1; i < 10; i++) {
      if (this.#pos >= buf.length) throw new ProtobufDecodeError("truncated varint");
      b = buf[this.#pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new ProtobufDecodeError("varint longer than 10 bytes");
  }

  #string(): string {
    const len = this.#varint();
    const start = this.#pos;
    const end = start + len;
    if (end > this.#buf.length) throw new ProtobufDecodeError("string runs past the end of the body");
    this.#pos = end;
    const buf = this.#buf;
    if (len < 256) {
      let ascii = true;
      for (let i = start; i < end; i++) {
        if (buf[i]! >= 0x80) {
          ascii = false;
          break;
        }
      }
      // One native call for short ASCII strings; TextDecoder's per-call overhead dominates there.
      if (ascii) return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
    }
    return utf8.decode(buf.subarray(start, end));
  }

  #skip(wire: number): void {
    switch (wire) {
      case 0:
        this.#varint();
        return;
      case 1:
        this.#pos += 8;
        return;
      case 2: {
        // Not `this.#pos += this.#varint()`: that reads #pos before the varint moves it.
        const len = this.#varint();
        this.#pos += len;
        return;
      }
      case 5:
        this.#pos += 4;
        return;
      default:
        throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    }
  }
}

let lastSeconds = NaN;
let lastText = "";

/** metav1.Time as JSON: RFC 3339 in UTC, seconds precision (MicroTime: six fraction digits). */
function rfc3339(seconds: number, nanos: number | undefined): string {
  if (nanos === undefined && seconds === lastSeconds) return lastText;
  const iso = new Date(seconds * 1000).toISOString();
  if (nanos === undefined) {
    lastSeconds = seconds;
    lastText = iso.slice(0, 19) + "Z";
    return lastText;
  }
  return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

/** bytes fields are base64 strings in JSON. */
function bytesToBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return btoa(s);
}
