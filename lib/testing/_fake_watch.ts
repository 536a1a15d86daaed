/**
 * The watch side of FakeApi: history of changes, live subscribers and the newline-delimited JSON stream
 * a watch returns, filtered by namespace and selectors like the API server does (an object that stops
 * matching is sent as DELETED, one that starts matching as ADDED).
 * @module
 */
import type { KubeObject } from "../resources/object.ts";
import type { RawWatchOptions } from "../client/types.ts";
import { fieldSelectorMatcher, labelSelectorMatcher } from "../cache/selector_match.ts";

/** One stored change. */
export interface Change {
  readonly rv: number;
  readonly resource: string;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/** Decides which objects a watch or list sees. */
export function scopeMatcher(
  options: RawWatchOptions & { namespace?: string },
): (obj: KubeObject) => boolean {
  const labels = labelSelectorMatcher(options.labelSelector ?? "");
  const fields = fieldSelectorMatcher(options.fieldSelector ?? "");
  return (obj) =>
    (options.namespace === undefined || obj.metadata.namespace === options.namespace) &&
    labels(obj.metadata.labels ?? {}) && fields(obj);
}

/**
 * An open watch: pushes events to its stream until cancelled or closed. FakeApi forgets a watch the moment
 * it closes (`onClose`), so nothing is sent to a closed watch.
 */
export class FakeWatch {
  readonly resource: string;
  readonly stream: ReadableStream<Uint8Array>;
  #matches: (obj: KubeObject) => boolean;
  #metadataOnly: boolean;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #onClose: () => void;

  /** A watch of `resource` sending the objects `matches` accepts; `onClose` runs when it ends. */
  constructor(
    resource: string,
    matches: (obj: KubeObject) => boolean,
    metadataOnly: boolean,
    onClose: () => void,
  ) {
    this.resource = resource;
    this.#matches = matches;
    this.#metadataOnly = metadataOnly;
    this.#onClose = onClose;
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.#controller = controller),
      cancel: () => this.#onClose(),
    });
  }

  /** Sends `change` if it concerns this watch, translated for its selectors. */
  deliver(change: Change): void {
    if (change.resource !== this.resource) return;
    const now = this.#matches(change.object);
    const before = change.old !== undefined && this.#matches(change.old);
    if (change.type === "DELETED") {
      if (now) this.send("DELETED", change.object);
    } else if (change.type === "ADDED" || !before) {
      if (now) this.send("ADDED", change.object);
    } else {
      this.send(now ? "MODIFIED" : "DELETED", change.object);
    }
  }

  /** True when `obj` is in this watch's scope. */
  matches(obj: KubeObject): boolean {
    return this.#matches(obj);
  }

  /** Writes one event line (objects reduced to PartialObjectMetadata for a metadata-only watch). */
  send(type: string, object: KubeObject | Record<string, unknown>): void {
    const sent = this.#metadataOnly && type !== "BOOKMARK" ? partialMetadata(object as KubeObject) : object;
    this.#controller.enqueue(new TextEncoder().encode(JSON.stringify({ type, object: sent }) + "\n"));
  }

  /** Ends the stream cleanly, as the server does at `timeoutSeconds`. */
  close(): void {
    this.#controller.close();
    this.#onClose();
  }
}

/** `obj` as the server sends it to metadata-only lists and watches. */
export function partialMetadata(obj: KubeObject): KubeObject {
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: obj.metadata };
}
