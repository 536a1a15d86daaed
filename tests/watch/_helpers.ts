import { ApiError } from "../../lib/client/api_error.ts";
import type {
  KubeObject,
  ObjectList,
  ResourceRef,
  Status,
  UnstructuredObject,
} from "../../lib/resources/object.ts";
import type { ListOptions, RawWatchOptions } from "../../lib/client/types.ts";
import type { ListWatcher } from "../../lib/watch/list_watcher.ts";
import { type FakeClock, flush } from "../_util/fake_clock.ts";

export const configMaps: ResourceRef = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};

/** A ConfigMap with the given name and resourceVersion. */
export function cm(name: string, rv: string, extra: Record<string, unknown> = {}): UnstructuredObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", resourceVersion: rv },
    data: { v: name },
    ...extra,
  };
}

/** One wire line (with its newline). */
export function line(type: string, object: unknown): string {
  return JSON.stringify({ type, object }) + "\n";
}

/** A bookmark line at `rv`, optionally the initial-events-end one. */
export function bookmark(rv: string, end = false): string {
  const metadata = end
    ? { resourceVersion: rv, annotations: { "k8s.io/initial-events-end": "true" } }
    : { resourceVersion: rv };
  return line("BOOKMARK", { kind: "ConfigMap", apiVersion: "v1", metadata });
}

/** An ERROR line carrying a Status. */
export function errorLine(code: number, reason: string, message = reason): string {
  const status: Status = { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message };
  return line("ERROR", status);
}

export function page(items: KubeObject[], rv: string, continueToken?: string): ObjectList {
  return {
    kind: "List",
    apiVersion: "v1",
    metadata: { resourceVersion: rv, ...(continueToken ? { continue: continueToken } : {}) },
    items,
  };
}

export function apiError(code: number, reason: string, message = reason): ApiError {
  return new ApiError({ kind: "Status", status: "Failure", code, reason, message });
}

/**
 * A body stream over `chunks`; `stall` keeps it open (no close) after the chunks; `cancelUntil` makes
 * cancelling it (closing the connection) take until that promise settles.
 */
export class ScriptedBody {
  cancelled = false;
  readonly stream: ReadableStream<Uint8Array>;
  constructor(
    chunks: (string | Uint8Array)[],
    options: { stall?: boolean; failWith?: Error; cancelUntil?: Promise<void> } = {},
  ) {
    const enc = new TextEncoder();
    let i = 0;
    this.stream = new ReadableStream<Uint8Array>({
      pull: (controller): Promise<void> | undefined => {
        if (i < chunks.length) {
          const c = chunks[i++]!;
          controller.enqueue(typeof c === "string" ? enc.encode(c) : c);
        } else if (options.failWith) {
          controller.error(options.failWith);
        } else if (!options.stall) {
          controller.close();
        } else {
          return new Promise<void>(() => {}); // never delivers: a silent connection
        }
        return undefined;
      },
      cancel: () => {
        this.cancelled = true;
        return options.cancelUntil;
      },
    }, { highWaterMark: 0 });
  }
}

type ListAnswer = ObjectList | Error;
type WatchAnswer = ScriptedBody | Error;

/** A ListWatcher that answers from scripts and records every call. */
export class ScriptedListWatcher implements ListWatcher {
  readonly lists: ListOptions[] = [];
  readonly watches: RawWatchOptions[] = [];
  readonly bodies: ScriptedBody[] = [];
  constructor(public listAnswers: ListAnswer[] = [], public watchAnswers: WatchAnswer[] = []) {}

  list<T extends KubeObject>(_ref: ResourceRef, opts: ListOptions): Promise<ObjectList<T>> {
    this.lists.push(withoutSignal(opts));
    const answer = this.listAnswers.shift();
    if (!answer) return Promise.reject(new Error("script: no list answer left"));
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve(answer as ObjectList<T>);
  }

  watch(_ref: ResourceRef, opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    this.watches.push(withoutSignal(opts));
    const answer = this.watchAnswers.shift() ?? new ScriptedBody([], { stall: true });
    if (answer instanceof Error) return Promise.reject(answer);
    this.bodies.push(answer);
    return Promise.resolve(answer.stream);
  }
}

function withoutSignal<O extends { signal?: AbortSignal | undefined }>(opts: O): O {
  const { signal: _s, ...rest } = opts;
  return rest as O;
}

/** Pulls `n` events from an iterator. */
export async function take<E>(it: AsyncIterator<E>, n: number): Promise<E[]> {
  const out: E[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

/** A watch body the test writes to when it likes; it never closes by itself. */
export class PushBody {
  readonly stream: ReadableStream<Uint8Array>;
  /** True once the reader cancelled the body (closed the connection). */
  cancelled = false;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  constructor() {
    this.stream = new ReadableStream({
      start: (c) => void (this.#controller = c),
      cancel: () => void (this.cancelled = true),
    });
  }
  /** Delivers `text` and lets the reader take it before any timer fires. */
  async push(text: string): Promise<void> {
    this.#controller.enqueue(new TextEncoder().encode(text));
    await flush();
  }
  /** Ends the body cleanly, as the server does at `timeoutSeconds`. */
  close(): void {
    this.#controller.close();
  }
}

/** A ListWatcher answering watches with the given PushBodies in turn. */
export class PushListWatcher extends ScriptedListWatcher {
  constructor(rv: string, readonly pushBodies: PushBody[]) {
    super([page([], rv)], []);
  }
  override watch(
    _ref: unknown,
    opts: Parameters<ScriptedListWatcher["watch"]>[1],
  ): Promise<ReadableStream<Uint8Array>> {
    const { signal: _s, ...rest } = opts;
    this.watches.push(rest);
    const body = this.pushBodies.shift() ?? new PushBody();
    return Promise.resolve(body.stream);
  }
}

/** Advances `clock` by `ms` (once the read's timer is set) and reports whether `pending` settled. */
export async function settledAfter(
  clock: FakeClock,
  pending: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let settled = false;
  void pending.then(() => settled = true);
  await clock.waitForTimers(1);
  await clock.advance(ms);
  return settled;
}
