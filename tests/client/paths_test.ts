// ResourceRef fields go into URL paths as they are, so hostile values must be refused before any
// request is built: a path that climbs out ("../"), encodes a slash ("%2F"), adds a segment ("a/b"),
// starts a query ("?"), or anything the API server would never name a group, version or plural.
import assert from "node:assert/strict";
import { KubeClient, resourcePath, validateResourceRef } from "../../lib/client/mod.ts";
import { type ResourceRef } from "../../lib/resources/mod.ts";
import { ScriptedTransport } from "../_util/scripted_transport.ts";
import { staticCredentials } from "../../lib/config/static_credentials.ts";

const DEPLOYMENTS: ResourceRef = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};

const HOSTILE = [
  "../",
  "..",
  ".",
  "%2F",
  "a/b",
  "a%2Fb",
  "Apps",
  "APPS",
  "a b",
  "a?b",
  "a#b",
  "a\\b",
  "-a",
  "a-",
  "a..b",
  ".a",
  "ä",
  "a\nb",
];

Deno.test("valid refs give the usual paths", () => {
  assert.equal(
    resourcePath(DEPLOYMENTS, { namespace: "ns", name: "x" }),
    "/apis/apps/v1/namespaces/ns/deployments/x",
  );
  const core: ResourceRef = {
    group: "",
    version: "v1",
    plural: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
  };
  assert.equal(resourcePath(core), "/api/v1/configmaps");
  const crd: ResourceRef = {
    group: "samplecontroller.k8s.io",
    version: "v1alpha1",
    plural: "foos",
    kind: "Foo",
    namespaced: true,
  };
  assert.equal(
    resourcePath(crd, { namespace: "a" }),
    "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/a/foos",
  );
});

Deno.test("hostile group, version and plural values are a TypeError naming the field", () => {
  for (const field of ["group", "version", "plural"] as const) {
    for (const value of HOSTILE) {
      const ref = { ...DEPLOYMENTS, [field]: value };
      assert.throws(
        () => resourcePath(ref),
        (err: unknown) => {
          assert.ok(err instanceof TypeError, `${field}=${JSON.stringify(value)}: ${err}`);
          assert.match(err.message, new RegExp(`^Invalid ResourceRef: field "${field}" is `));
          return true;
        },
        `${field}=${JSON.stringify(value)} was accepted`,
      );
    }
  }
});

Deno.test("version and plural are required; only group may be empty (the core group)", () => {
  assert.throws(() => validateResourceRef({ ...DEPLOYMENTS, version: "" }), /field "version" is ""/);
  assert.throws(() => validateResourceRef({ ...DEPLOYMENTS, plural: "" }), /field "plural" is ""/);
  assert.throws(
    () => validateResourceRef({ ...DEPLOYMENTS, plural: undefined as unknown as string }),
    /field "plural" is undefined/,
  );
  assert.throws(() => validateResourceRef({ ...DEPLOYMENTS, plural: "a".repeat(64) }), /field "plural"/);
  assert.throws(
    () => validateResourceRef({ ...DEPLOYMENTS, group: `${"a".repeat(64)}.io` }),
    /field "group"/,
  );
  validateResourceRef({ ...DEPLOYMENTS, group: "" });
});

Deno.test("the client refuses a hostile ref before sending anything", async () => {
  const transport = new ScriptedTransport(() => ({ status: 200, body: "{}" }));
  await using client = new KubeClient({
    server: new URL("https://k8s.example"),
    tls: {},
    credentials: staticCredentials({ token: "t" }),
    namespace: "default",
    source: "test",
    inCluster: false,
  }, { transport });
  const hostile = { ...DEPLOYMENTS, plural: "../../api/v1/secrets" };
  await assert.rejects(
    client.list(hostile),
    /^TypeError: Invalid ResourceRef: field "plural" is "..\/..\/api\/v1\/secrets"/,
  );
  await assert.rejects(client.get({ ...DEPLOYMENTS, group: "apps%2F..%2F" }, "x"), TypeError);
  await assert.rejects(client.watch({ ...DEPLOYMENTS, version: "v1?watch=0#" }, {}), TypeError);
  assert.equal(transport.requests.length, 0);
});
