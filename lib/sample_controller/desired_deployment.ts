import type { DeepReadonly } from "../resources/deep_readonly.ts";
import { controllerReference } from "../controller/owner.ts";
import { type Deployment, type Foo, FOOS } from "./types.ts";

/**
 * The Deployment a Foo asks for, as the server-side apply body of our field manager: exactly the fields
 * we own, so fields set by others (annotations, extra containers, HPA-managed replicas when the Foo does not
 * set them) are left alone. Same shape as upstream's `newDeployment`: labels and selector
 * `{app: nginx, controller: <foo name>}`, one `nginx:latest` container.
 */
export function desiredDeployment(foo: DeepReadonly<Foo>): Deployment {
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
      // controller + blockOwnerDeletion: the garbage collector deletes the Deployment with its Foo.
      ownerReferences: [controllerReference(foo, FOOS)],
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
