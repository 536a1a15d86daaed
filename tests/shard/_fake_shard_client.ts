import { ApiError } from "../../lib/client/api_error.ts";
import type { ListOptions } from "../../lib/client/types.ts";
import type { Lease } from "../../lib/resources/coordination_v1.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../../lib/resources/object.ts";
import type { ShardClient } from "../../lib/shard/mod.ts";
import type { Clock } from "../../lib/time/clock.ts";

/**
 * An in-memory API for the shard coordinator: Leases with resourceVersion compare-and-swap and label
 * selection, SelfSubjectAccessReviews answered from `denied`, and lists of other kinds answered by `list`.
 */
export class FakeShardApi {
  readonly leases = new Map<string, Lease>();
  denied = new Set<string>();
  #rv = 0;
  /** Every request fails with 503 while set (a partition from the API server). */
  unreachable = false;
  /** Lists of Leases take this long on `clock` (a loaded API server). */
  slowLists: { clock: Clock; ms: number } | undefined;
  /** How lists with a shard selector are answered: echoed (sharded list and watch), ignored, or a 500. */
  shardSelector: "echo" | "ignore" | "reject" = "ignore";

  client(): ShardClient {
    // deno-lint-ignore no-this-alias
    const api = this;
    return {
      async list<T extends KubeObject>(ref: ResourceRef<T>, options: ListOptions): Promise<ObjectList<T>> {
        const slow = api.slowLists;
        if (slow) await new Promise<void>((resolve) => slow.clock.setTimer(resolve, slow.ms));
        return await api.#op(() => {
          if (ref.plural !== "leases") {
            throw new ApiError({ code: 404, reason: "NotFound", message: ref.plural });
          }
          if (options.shardSelector && api.shardSelector === "reject") {
            throw new ApiError({
              code: 500,
              reason: "InternalError",
              message: "invalid shard selector: CEL parse error",
            });
          }
          const [key, value] = (options.labelSelector ?? "").split("=");
          const items = [...api.leases.values()].filter((l) =>
            key === undefined || l.metadata.labels?.[key] === value
          );
          const shardInfo = options.shardSelector && api.shardSelector === "echo"
            ? { shardInfo: { selector: options.shardSelector } }
            : {};
          return {
            metadata: { resourceVersion: String(api.#rv), ...shardInfo },
            items: structuredClone(items) as unknown as T[],
          };
        });
      },
      create<T extends KubeObject>(ref: ResourceRef<T>, obj: T): Promise<T> {
        return api.#op(() => {
          if (ref.plural === "selfsubjectaccessreviews") {
            const verb =
              (obj as unknown as { spec: { resourceAttributes: { verb: string } } }).spec.resourceAttributes
                .verb;
            return { ...obj, status: { allowed: !api.denied.has(verb) } } as T;
          }
          const name = obj.metadata.name!;
          if (api.leases.has(name)) {
            throw new ApiError({ code: 409, reason: "AlreadyExists", message: "exists" });
          }
          return api.#store(obj as unknown as Lease) as unknown as T;
        });
      },
      replace<T extends KubeObject>(_ref: ResourceRef<T>, obj: T): Promise<T> {
        return api.#op(() => {
          const old = api.leases.get(obj.metadata.name!);
          if (!old) throw new ApiError({ code: 404, reason: "NotFound", message: "not found" });
          if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
            throw new ApiError({ code: 409, reason: "Conflict", message: "the object has been modified" });
          }
          return api.#store(obj as unknown as Lease) as unknown as T;
        });
      },
    };
  }

  #store(lease: Lease): Lease {
    const stored = structuredClone(lease);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.leases.set(stored.metadata.name!, stored);
    return structuredClone(stored);
  }

  async #op<T>(fn: () => T): Promise<T> {
    await Promise.resolve();
    if (this.unreachable) {
      throw new ApiError({ code: 503, reason: "ServiceUnavailable", message: "unreachable" });
    }
    return fn();
  }
}
