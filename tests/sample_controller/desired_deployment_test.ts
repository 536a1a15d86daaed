import assert from "node:assert/strict";
import { desiredDeployment } from "../../lib/sample_controller/desired_deployment.ts";
import { makeFoo } from "./fakes.ts";

Deno.test("the desired Deployment has upstream's exact shape plus our apply identity", () => {
  const foo = makeFoo({ name: "my-foo", deploymentName: "my-deploy", replicas: 3 });
  assert.deepEqual(desiredDeployment(foo), {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "my-deploy",
      namespace: "ns1",
      labels: { app: "nginx", controller: "my-foo" },
      ownerReferences: [{
        apiVersion: "samplecontroller.k8s.io/v1alpha1",
        kind: "Foo",
        name: "my-foo",
        uid: "uid-my-foo",
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "nginx", controller: "my-foo" } },
      template: {
        metadata: { labels: { app: "nginx", controller: "my-foo" } },
        spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
      },
    },
  });
});

Deno.test("a Foo without spec.replicas leaves replicas out of the apply body, so we do not own them", () => {
  const foo = makeFoo();
  delete foo.spec?.replicas;
  const spec = desiredDeployment(foo).spec;
  assert.equal(spec !== undefined && "replicas" in spec, false);
});

Deno.test("the label maps are separate objects, so mutating one cannot corrupt the selector", () => {
  const dep = desiredDeployment(makeFoo());
  dep.metadata.labels!["extra"] = "x";
  assert.deepEqual(dep.spec?.selector?.matchLabels, { app: "nginx", controller: "example-foo" });
});

Deno.test("building a Deployment for a Foo without a name, uid or deploymentName is a TypeError", () => {
  const noUid = makeFoo();
  delete noUid.metadata.uid;
  assert.throws(() => desiredDeployment(noUid), TypeError);
  assert.throws(() => desiredDeployment(makeFoo({ deploymentName: "" })), TypeError);
});
