/**
 * A FakeApi whose watch events wait at a gate the test opens and closes: "the watch is late" on demand,
 * for read-your-writes tests. Lists pass straight through; writes are FakeApi's (and reported by it).
 * @module
 */
import type { ListOptions, RawWatchOptions } from "../../lib/client/mod.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../../lib/resources/mod.ts";
import type { FakeApi } from "../../lib/testing/mod.ts";
import type { ListWatcher } from "../../lib/watch/mod.ts";

/** A ListWatcher over `api` whose watch bytes pass only while the gate is open. */
export class GatedWatch implements ListWatcher {
  readonly #api: FakeApi;
  #open = true;
  #waiting: (() => void)[] = [];

  /** Open at first. */
  constructor(api: FakeApi) {
    this.#api = api;
  }

  /** Holds every watch event from now on. */
  close(): void {
    this.#open = false;
  }

  /** Lets the held events through, in order, and every later one. */
  open(): void {
    this.#open = true;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  list<T extends KubeObject>(ref: ResourceRef<T>, opts: ListOptions): Promise<ObjectList<T>> {
    return this.#api.list(ref, opts);
  }

  async watch(ref: ResourceRef, opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    const body = await this.#api.watch(ref, opts);
    const gate = () => this.#open ? Promise.resolve() : new Promise<void>((r) => this.#waiting.push(r));
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async transform(chunk, controller) {
          await gate();
          controller.enqueue(chunk);
        },
      }),
    );
  }
}
