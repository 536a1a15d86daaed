/**
 * A FakeApi world for read-your-writes tests: a shared informer factory over a gated watch (see
 * gated_watch.ts), controllers run on it, and the two orders in which a write's answer and its watch
 * event can reach the informer.
 * @module
 */
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import type { Controller } from "../../lib/controller/mod.ts";
import { FakeApi, type FakeApiOptions, FakeClock, type FakeRequest, flush } from "../../lib/testing/mod.ts";
import { GatedWatch } from "./gated_watch.ts";

/** The order a write's answer and its watch event reach the informer. */
export type Order = "answer first" | "echo first";

/** What {@linkcode world} returns. */
export interface World extends AsyncDisposable {
  /** The API. */
  readonly api: FakeApi;
  /** The gate of every informer's watch. */
  readonly gate: GatedWatch;
  /** Informers over the gated watch, reading the writes of `api`. */
  readonly factory: SharedInformerFactory;
  /** The clock of the API and the informers. */
  readonly clock: FakeClock;
  /** Lets `resource`'s informer hold the answers of echo-first writes until it saw their echo. */
  watchStore(resource: string, rv: (key: string) => string | undefined): void;
  /** Starts the factory and runs `controllers` until disposal. */
  run(...controllers: Controller<never>[]): void;
  /** Writes the API received (gets and lists left out), as "verb resource/ns/name[/sub]". */
  writes(): string[];
  /** Echo first: how many writes' answers waited until the informer had applied their watch event. */
  echoesFirst(): number;
}

/** Everything a test needs: FakeApi, the gate, a factory over it, controllers started by `run`. */
export function world(order: Order): World {
  const clock = new FakeClock();
  const stores: { resource: string; rv: (key: string) => string | undefined }[] = [];
  let echoesFirst = 0;
  const apiOptions: FakeApiOptions = {
    clock,
    // Echo first: the answer waits until the informer of the resource has applied the write's event.
    ...(order === "echo first"
      ? {
        beforeAnswer: async (request: FakeRequest) => {
          const key = request.namespace ? `${request.namespace}/${request.name}` : request.name ?? "";
          const store = stores.find((s) => s.resource === request.resource);
          for (let i = 0; store && i < 100; i++) {
            const rv = store.rv(key);
            if (request.verb === "delete" ? rv === undefined : rv === api.resourceVersion) {
              echoesFirst++;
              break;
            }
            await flush();
          }
        },
      }
      : {}),
  };
  const api = new FakeApi(apiOptions);
  const gate = new GatedWatch(api);
  const factory = new SharedInformerFactory(gate, { clock, writes: api });
  const stop = new AbortController();
  const runs: Promise<void>[] = [];
  return {
    api,
    gate,
    factory,
    clock,
    watchStore(resource: string, rv: (key: string) => string | undefined) {
      stores.push({ resource, rv });
    },
    run(...controllers: Controller<never>[]) {
      factory.start(stop.signal);
      for (const c of controllers) runs.push(c.run({ signal: stop.signal }));
    },
    echoesFirst: () => echoesFirst,
    writes(): string[] {
      return api.requests.filter((r) => !["get", "list", "watch"].includes(r.verb)).map((r) =>
        `${r.verb} ${r.resource}/${r.namespace}/${r.name}${r.subresource ? `/${r.subresource}` : ""}`
      );
    },
    async [Symbol.asyncDispose]() {
      gate.open();
      stop.abort();
      await Promise.all(runs);
      await factory.stopped();
    },
  };
}

/** Lets workers, informers and watches run until nothing changes for a few rounds. */
export async function settle(watch: () => unknown): Promise<void> {
  let last = "";
  for (let quiet = 0; quiet < 3;) {
    await flush();
    const now = JSON.stringify(watch());
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}
