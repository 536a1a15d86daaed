import type { OwnerReference } from "../client/types.ts";
import { type Deployment, type Foo, FOO_API_VERSION } from "./types.ts";

/** The controller ownerReference a Foo puts on its Deployment, so the garbage collector cascades deletes. */
export function fooControllerRef(foo: Foo): OwnerReference {
  const { name, uid } = foo.metadata;
  if (!name || !uid) {
    throw new TypeError("Cannot own a Deployment: the Foo has no metadata.name or metadata.uid");
  }
  return { apiVersion: FOO_API_VERSION, kind: "Foo", name, uid, controller: true, blockOwnerDeletion: true };
}

/**
 * The Deployment a Foo asks for, as the server-side apply body of our field manager: exactly the fields
 * we own, so fields set by others (annotations, extra containers, HPA-managed replicas when the Foo does not
 * set them) are left alone. Same shape as upstream's `newDeployment`: labels and selector
 * `{app: nginx, controller: <foo name>}`, one `nginx:latest` container.
 */
export function desiredDeployment(foo: Foo): Deployment {
  const name = foo.spec?.deploymentName;
  if (!name) throw new TypeError("Cannot build a Deployment: the Foo has no spec.deploymentName");
  const labels = { app: "nginx", controller: foo.metadata.name ?? "" };
  const replicas = foo.spec?.replicas;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name,
      ...(foo.metadata.namespace === undefined ? {} : { namespace: foo.metadata.namespace }),
      labels: { ...labels },
      ownerReferences: [fooControllerRef(foo)],
    },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: { labels: { ...labels } },
        spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
      },
    },
  };
}
