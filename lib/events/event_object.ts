import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import type { Event, ObjectReference } from "./types.ts";

/** The reference an Event's `regarding` carries: an ObjectReference as given, or one made from an object. */
export function toReference(obj: DeepReadonly<KubeObject> | ObjectReference): ObjectReference {
  if (!("metadata" in obj) || typeof obj.metadata !== "object" || obj.metadata === null) {
    return { ...(obj as ObjectReference) };
  }
  const o = obj as DeepReadonly<KubeObject>;
  const ref: ObjectReference = {};
  if (o.apiVersion) ref.apiVersion = o.apiVersion;
  if (o.kind) ref.kind = o.kind;
  if (o.metadata.name) ref.name = o.metadata.name;
  if (o.metadata.namespace) ref.namespace = o.metadata.namespace;
  if (o.metadata.uid) ref.uid = o.metadata.uid;
  if (o.metadata.resourceVersion) ref.resourceVersion = o.metadata.resourceVersion;
  return ref;
}

/** Log fields naming an Event without its note (which may be long). */
export function describe(e: Event): Record<string, unknown> {
  const r = e.regarding;
  return { object: `${r?.kind}/${r?.namespace ?? ""}/${r?.name}`, reason: e.reason };
}

/**
 * `text` cut to at most `maxBytes` of UTF-8 with a "..." marker; the API rejects longer notes, and a
 * cut through a multi-byte character must not leave a replacement character behind.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  return new TextDecoder().decode(bytes.slice(0, maxBytes - 3)).replace(/\uFFFD$/, "") + "...";
}
