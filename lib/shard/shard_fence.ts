import type { AsyncLocalStorage } from "node:async_hooks";
import { NotShardOwnerError } from "./errors.ts";

/** One reconcile's right to write for its range, as the fence sees it. */
export interface FenceTicket {
  /** The range the reconcile's object belongs to. */
  readonly range: number;
  /** True until the reconcile returned. */
  readonly open: boolean;
  /** Throws NotShardOwnerError unless the claim the ticket was issued under is still valid now. */
  check(): void;
}

/**
 * The write fence of a sharded replica: give it as the `writeFence` of the KubeClient the reconciles
 * write with. A write made inside a reconcile (in its async context, which `run` sets) passes only while
 * the claim on its object's range that the reconcile started under is valid: before the renew deadline
 * counted from the claim's last successful renewal, and not released or lost since. Any other write — an
 * event written after its reconcile returned, a write from outside the reconciles — passes only while this
 * replica's membership is valid. The check compares the clock with those deadlines when it runs, so the
 * first write after a process pause is refused without any timer having fired.
 *
 * What it does NOT cover is what LeaseFence does not: a pause between the check and the socket, and writes
 * already sent. The lease duration exceeds the renew deadline, which leaves that margin before another
 * replica may claim the range.
 *
 * The async context is Node's `AsyncLocalStorage`, loaded by {@linkcode load} (the coordinator's `prepare`
 * does it): importing `node:async_hooks` statically would load Deno's Node compatibility layer (6-7 MB of
 * RSS) into every controller, sharded or not.
 */
export class ShardFence {
  #context: AsyncLocalStorage<FenceTicket> | undefined;
  readonly #member: () => void;

  /** `member` throws unless this replica's membership is valid now. */
  constructor(member: () => void) {
    this.#member = member;
  }

  /** Loads the async context `run` needs; idempotent. */
  async load(): Promise<void> {
    if (this.#context) return;
    const { AsyncLocalStorage } = await import("node:async_hooks");
    this.#context ??= new AsyncLocalStorage<FenceTicket>();
  }

  /** Runs `fn` so that every write it makes (and that it starts) is checked against `ticket`. */
  run<R>(ticket: FenceTicket, fn: () => R): R {
    if (!this.#context) {
      throw new Error("ShardFence.run before load(): call the coordinator's prepare() first");
    }
    return this.#context.run(ticket, fn);
  }

  /** Called by the KubeClient right before each write; throws {@linkcode NotShardOwnerError} to refuse it. */
  check(): void {
    const ticket = this.#context?.getStore();
    if (ticket?.open) ticket.check();
    else this.#member();
  }
}

export { NotShardOwnerError };
