import { ApiError } from "../../lib/client/api_error.ts";
import type { ResourceRef } from "../../lib/resources/object.ts";
import type { Lease, LeaseClient, LeaseRequestOptions } from "../../lib/leader/mod.ts";

/** An in-memory Lease store with the API server's resourceVersion / conflict semantics. */
export class FakeLeaseClient implements LeaseClient {
  leases = new Map<string, Lease>();
  #rv = 0;
  /** Makes every request fail with 500. */
  failing = false;
  writes: Lease[] = [];

  get(_ref: ResourceRef, name: string, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#op(() => {
      const lease = this.leases.get(`${options?.namespace}/${name}`);
      if (!lease) {
        throw new ApiError({ code: 404, reason: "NotFound", message: `leases "${name}" not found` });
      }
      return structuredClone(lease);
    });
  }

  create(_ref: ResourceRef, obj: Lease, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#op(() => {
      const key = `${options?.namespace}/${obj.metadata.name}`;
      if (this.leases.has(key)) throw new ApiError({ code: 409, reason: "AlreadyExists", message: "exists" });
      return this.#store(key, obj);
    });
  }

  replace(_ref: ResourceRef, obj: Lease, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#op(() => {
      const key = `${options?.namespace}/${obj.metadata.name}`;
      const old = this.leases.get(key);
      if (!old) throw new ApiError({ code: 404, reason: "NotFound", message: "not found" });
      if (obj.metadata.resourceVersion !== old.metadata.resourceVersion) {
        throw new ApiError({ code: 409, reason: "Conflict", message: "the object has been modified" });
      }
      return this.#store(key, obj);
    });
  }

  #store(key: string, obj: Lease): Lease {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.leases.set(key, stored);
    this.writes.push(structuredClone(stored));
    return structuredClone(stored);
  }

  async #op<T>(fn: () => T): Promise<T> {
    await Promise.resolve();
    if (this.failing) throw new ApiError({ code: 500, reason: "InternalError", message: "etcd unavailable" });
    return fn();
  }
}

/** Wraps a shared store so one elector's requests can fail while another's succeed. */
export function clientView(store: FakeLeaseClient): LeaseClient & { failing: boolean } {
  const view = {
    failing: false,
    get: (ref: ResourceRef, name: string, o?: LeaseRequestOptions) =>
      check(view, () => store.get(ref, name, o)),
    create: (ref: ResourceRef, obj: Lease, o?: LeaseRequestOptions) =>
      check(view, () => store.create(ref, obj, o)),
    replace: (ref: ResourceRef, obj: Lease, o?: LeaseRequestOptions) =>
      check(view, () => store.replace(ref, obj, o)),
  };
  return view;
}

async function check<T>(view: { failing: boolean }, fn: () => Promise<T>): Promise<T> {
  await Promise.resolve();
  if (view.failing) throw new ApiError({ code: 503, reason: "ServiceUnavailable", message: "unreachable" });
  return await fn();
}
