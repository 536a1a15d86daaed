import type { KubeObject, ResourceRef, UnstructuredObject } from "../../lib/resources/object.ts";
import type {
  ApplyClient,
  ApplyPatchOptions,
  CreateOptions,
  DeploymentReader,
  FooEvent,
  FooEventRecorder,
} from "../../lib/sample_controller/reconcile.ts";
import { controllerOf } from "../../lib/controller/mod.ts";
import type { Deployment, Foo } from "../../lib/sample_controller/types.ts";

/** A Foo as the API server would return it. */
export function makeFoo(overrides: { name?: string; deploymentName?: string; replicas?: number } = {}): Foo {
  const { name = "example-foo", deploymentName = "example-foo", replicas = 1 } = overrides;
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: "ns1", uid: `uid-${name}`, generation: 1, resourceVersion: "10" },
    spec: { deploymentName, replicas },
  };
}

/** A key → object map standing in for an informer store. */
export class FakeStore<T extends KubeObject> {
  readonly objects = new Map<string, T>();
  constructor(...objects: T[]) {
    for (const obj of objects) this.put(obj);
  }
  put(obj: T): void {
    this.objects.set(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  }
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
}

/** Deployment store with the controller-UID lookup. */
export class FakeDeployments extends FakeStore<Deployment> implements DeploymentReader {
  controlledBy(uid: string): readonly Deployment[] {
    return [...this.objects.values()].filter((d) => controllerOf(d)?.uid === uid);
  }
}

/** One recorded write: a patch (server-side apply) or a create (POST). */
export interface PatchCall {
  verb: "patch" | "create";
  ref: ResourceRef;
  name: string;
  body: unknown;
  options: ApplyPatchOptions | CreateOptions;
}

/** Records writes; answers Deployment writes with the body plus a status, like a server would. */
export class FakeApplyClient implements ApplyClient {
  readonly calls: PatchCall[] = [];
  availableReplicas = 0;
  failWith: Error | undefined;
  /** Makes creates fail with this error (e.g. AlreadyExists). */
  createFailsWith: Error | undefined;
  patch<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    body: unknown,
    options: ApplyPatchOptions,
  ): Promise<T> {
    return this.#write("patch", ref, name, body, options);
  }
  create<T extends KubeObject>(ref: ResourceRef, obj: T, options: CreateOptions): Promise<T> {
    if (this.createFailsWith) {
      this.calls.push({
        verb: "create",
        ref,
        name: obj.metadata.name ?? "",
        body: structuredClone(obj),
        options,
      });
      return Promise.reject(this.createFailsWith);
    }
    return this.#write("create", ref, obj.metadata.name ?? "", obj, options);
  }
  #write<T extends KubeObject>(
    verb: "patch" | "create",
    ref: ResourceRef,
    name: string,
    body: unknown,
    options: ApplyPatchOptions | CreateOptions,
  ): Promise<T> {
    this.calls.push({ verb, ref, name, body: structuredClone(body), options });
    if (this.failWith) return Promise.reject(this.failWith);
    const obj = structuredClone(body) as T;
    if (ref.plural === "deployments") {
      (obj as KubeObject as UnstructuredObject)["status"] = { availableReplicas: this.availableReplicas };
    }
    return Promise.resolve(obj);
  }
  /** Calls to the given plural (and subresource, if any). */
  callsTo(plural: string, subresource?: string): PatchCall[] {
    return this.calls.filter((c) =>
      c.ref.plural === plural &&
      ("subresource" in c.options ? c.options.subresource : undefined) === subresource
    );
  }
}

/** Collects events. */
export class FakeRecorder implements FooEventRecorder {
  readonly events: (FooEvent & { regarding: string })[] = [];
  record(regarding: KubeObject, event: FooEvent): void {
    this.events.push({ ...event, regarding: `${regarding.metadata.namespace}/${regarding.metadata.name}` });
  }
  reasons(): string[] {
    return this.events.map((e) => `${e.type}/${e.reason}`);
  }
}
