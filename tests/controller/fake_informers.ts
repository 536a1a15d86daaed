import type { KubeObject, ResourceRef } from "../../lib/client/types.ts";
import type { InformerHandlerLike, InformerLike, InformerSource } from "../../lib/controller/mod.ts";

/** An informer driven by the test: `add` / `update` / `remove` notify subscribers and update the store. */
export class FakeInformer<T extends KubeObject = KubeObject> implements InformerLike<T> {
  #objects = new Map<string, T>();
  #handlers = new Set<InformerHandlerLike<T>>();
  #synced = false;
  #waiters: (() => void)[] = [];
  readonly store = {
    get: (key: string) => this.#objects.get(key),
    list: () => [...this.#objects.values()],
  };

  subscribe(handler: InformerHandlerLike<T>): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }
  get subscribers(): number {
    return this.#handlers.size;
  }
  ready(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push(resolve);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
  hasSynced(): boolean {
    return this.#synced;
  }
  sync(): void {
    this.#synced = true;
    for (const w of this.#waiters.splice(0)) w();
  }
  add(obj: T): void {
    this.#objects.set(keyOf(obj), obj);
    for (const h of this.#handlers) h.onAdd?.(obj);
  }
  update(obj: T): void {
    const old = this.#objects.get(keyOf(obj));
    if (!old) throw new Error("update of a missing object");
    this.#objects.set(keyOf(obj), obj);
    for (const h of this.#handlers) h.onUpdate?.(old, obj);
  }
  /** Tells subscribers the informer reached the API server again after failing. */
  recover(): void {
    for (const h of this.#handlers) h.onRecovered?.();
  }
  remove(obj: T): void {
    this.#objects.delete(keyOf(obj));
    for (const h of this.#handlers) h.onDelete?.(obj, { finalStateUnknown: false });
  }
}

/** Hands out one FakeInformer per resource. */
export class FakeInformers implements InformerSource {
  #byRef = new Map<string, FakeInformer>();
  informer<T extends KubeObject>(ref: ResourceRef): InformerLike<T> {
    return this.get<T>(ref);
  }
  get<T extends KubeObject>(ref: ResourceRef): FakeInformer<T> {
    const key = `${ref.group}/${ref.plural}`;
    let informer = this.#byRef.get(key);
    if (!informer) this.#byRef.set(key, informer = new FakeInformer());
    return informer as unknown as FakeInformer<T>;
  }
  syncAll(): void {
    for (const i of this.#byRef.values()) i.sync();
  }
}

function keyOf(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : `${name}`;
}

export const fooRef: ResourceRef = {
  group: "samplecontroller.k8s.io",
  version: "v1alpha1",
  plural: "foos",
  kind: "Foo",
  namespaced: true,
};
export const deploymentRef: ResourceRef = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
export const configMapRef: ResourceRef = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};

/** A minimal object. */
export function obj(name: string, extra: Partial<KubeObject["metadata"]> = {}, namespace = "ns"): KubeObject {
  return { metadata: { name, namespace, resourceVersion: "1", ...extra } };
}
