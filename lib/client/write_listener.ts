import type { ResourceRef } from "../resources/object.ts";
import type { PatchType } from "./client_options.ts";

/** The kind of a write, as {@linkcode WriteStart} reports it. */
export type WriteVerb = "create" | "replace" | "patch" | "delete";

/** A write about to be sent; what a {@linkcode WriteListener} is told first. */
export interface WriteStart {
  /** The resource written. */
  readonly ref: ResourceRef;
  /** create (POST), replace (PUT), patch (PATCH) or delete (DELETE). */
  readonly verb: WriteVerb;
  /** The namespace of a namespaced resource (resolved: the client's default when none was given). */
  readonly namespace: string | undefined;
  /** The object's name; undefined for a create by `generateName`. */
  readonly name: string | undefined;
  /** E.g. "status"; undefined for the main resource. */
  readonly subresource: string | undefined;
  /** The patch type of a patch. */
  readonly patchType: PatchType | undefined;
  /** The body as sent: the object (create, replace), the patch, or the delete options. */
  readonly body: unknown;
}

/**
 * How a write ended: with the server's answer (the object as stored, or a `Status`, as most deletes
 * answer), or without one (an error, a refused or aborted request).
 */
export type WriteEnd = { readonly ok: true; readonly answer: unknown } | { readonly ok: false };

/**
 * Told of each write before it is sent, synchronously and in the caller's async context; may return a
 * function that is told how it ended, synchronously, before the caller's `await` resumes. Dry runs are
 * not reported. What a listener throws is logged and does not affect the write.
 */
export type WriteListener = (write: WriteStart) => ((end: WriteEnd) => void) | void;

/**
 * A client that reports its writes (`KubeClient` and lib/testing's `FakeApi` do): an informer over it
 * takes each answer into its cache at once, so a reconcile reads its own writes (see lib/cache).
 */
export interface WriteSource {
  /** Adds `listener`; returns the function that removes it. */
  onWrite(listener: WriteListener): () => void;
}

/** True when `client` reports its writes. */
export function isWriteSource(client: unknown): client is WriteSource {
  return typeof client === "object" && client !== null &&
    typeof (client as { onWrite?: unknown }).onWrite === "function";
}

/**
 * The listeners of one client: `start` tells each of them and returns the function that tells those
 * who asked how the write ended. A throwing listener is reported to `onError` and skipped.
 */
export class WriteListeners implements WriteSource {
  readonly #listeners = new Set<WriteListener>();
  readonly #onError: (error: unknown) => void;

  /** `onError` receives what a listener throws. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  onWrite(listener: WriteListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Number of listeners. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Tells every listener of `write`; the returned function tells them how it ended (call it once). */
  start(write: WriteStart): (end: WriteEnd) => void {
    if (this.#listeners.size === 0) return () => {};
    const ends: ((end: WriteEnd) => void)[] = [];
    for (const listener of this.#listeners) {
      try {
        const end = listener(write);
        if (end) ends.push(end);
      } catch (error) {
        this.#onError(error);
      }
    }
    return (end) => {
      for (const tell of ends) {
        try {
          tell(end);
        } catch (error) {
          this.#onError(error);
        }
      }
    };
  }

  /** Runs `send` between `start(write)` and the end it reports (its answer, or a failure if it throws). */
  async around<R>(write: WriteStart, send: () => Promise<R>, answer: (result: R) => unknown): Promise<R> {
    const end = this.start(write);
    let result: R;
    try {
      result = await send();
    } catch (error) {
      end({ ok: false });
      throw error;
    }
    end({ ok: true, answer: answer(result) });
    return result;
  }
}
