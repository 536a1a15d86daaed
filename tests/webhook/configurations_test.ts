import assert from "node:assert/strict";
import {
  allow,
  conversionWebhook,
  crdConversion,
  mutatingWebhook,
  validatingWebhook,
  webhookConfigurations,
} from "../../lib/webhook/mod.ts";
import { CONFIG_MAPS, NAMESPACES } from "../../lib/resources/mod.ts";

const validating = validatingWebhook({
  name: "configmaps.validate.example.com",
  resource: CONFIG_MAPS,
  subresources: ["status"],
  operations: ["CREATE", "UPDATE", "DELETE"],
  failurePolicy: "Ignore",
  timeoutSeconds: 5,
  matchConditions: [{ name: "not-admin", expression: "request.userInfo.username != 'admin'" }],
  namespaceSelector: { matchLabels: { team: "a" } },
  validate: () => allow(),
});
const clusterScoped = validatingWebhook({
  name: "namespaces.validate.example.com",
  resource: NAMESPACES,
  validate: () => allow(),
});
const mutating = mutatingWebhook({
  name: "configmaps.default.example.com",
  resource: CONFIG_MAPS,
  sideEffects: "NoneOnDryRun",
  mutate: (cm) => cm,
});

Deno.test("every webhook states its policies, and kube-system and the controller's namespace are always excluded", () => {
  const { validating: config, mutating: mutatingConfig } = webhookConfigurations({
    name: "my-controller",
    webhooks: [validating, mutating],
    target: { service: { namespace: "my-system", name: "my-webhook" } },
    caBundle: "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n",
    namespace: "my-system",
    metadata: { labels: { app: "x" } },
  });
  assert.deepEqual(config, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "my-controller", labels: { app: "x" } },
    webhooks: [{
      name: "configmaps.validate.example.com",
      admissionReviewVersions: ["v1"],
      clientConfig: {
        service: {
          namespace: "my-system",
          name: "my-webhook",
          path: "/validate/configmaps.validate.example.com",
          port: 443,
        },
        caBundle: btoa("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"),
      },
      rules: [{
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps", "configmaps/status"],
        operations: ["CREATE", "UPDATE", "DELETE"],
        scope: "Namespaced",
      }],
      failurePolicy: "Ignore",
      sideEffects: "None",
      timeoutSeconds: 5,
      matchPolicy: "Equivalent",
      namespaceSelector: {
        matchLabels: { team: "a" },
        matchExpressions: [{
          key: "kubernetes.io/metadata.name",
          operator: "NotIn",
          values: ["kube-system", "my-system"],
        }],
      },
      matchConditions: [{ name: "not-admin", expression: "request.userInfo.username != 'admin'" }],
    }],
  });
  const defaulting = mutatingConfig?.webhooks?.[0];
  assert.equal(defaulting?.sideEffects, "NoneOnDryRun");
  assert.equal(defaulting?.failurePolicy, "Fail");
  assert.equal(defaulting?.timeoutSeconds, 10);
  assert.equal(defaulting?.reinvocationPolicy, "Never");
  assert.deepEqual(defaulting?.namespaceSelector, {
    matchExpressions: [{
      key: "kubernetes.io/metadata.name",
      operator: "NotIn",
      values: ["kube-system", "my-system"],
    }],
  });
  // The declaration's selector is not changed by the generator.
  assert.deepEqual(validating.namespaceSelector, { matchLabels: { team: "a" } });
});

Deno.test("url mode: the server's base URL plus each path; only https; no configuration without webhooks of its type", () => {
  const { validating: config, mutating: none } = webhookConfigurations({
    name: "dev",
    webhooks: [clusterScoped],
    target: { url: "https://127.0.0.1:9443/" },
    namespace: "default",
  });
  assert.equal(none, undefined);
  const webhook = config?.webhooks?.[0];
  assert.deepEqual(webhook?.clientConfig, {
    url: "https://127.0.0.1:9443/validate/namespaces.validate.example.com",
  });
  assert.equal(webhook?.rules?.[0]?.scope, "Cluster");
  for (const url of ["http://127.0.0.1:9443", "https://user:pw@127.0.0.1", "https://127.0.0.1/?x=1"]) {
    assert.throws(
      () => webhookConfigurations({ name: "d", webhooks: [clusterScoped], target: { url }, namespace: "d" }),
      /https/,
    );
  }
  assert.throws(
    () =>
      webhookConfigurations({
        name: "d",
        webhooks: [clusterScoped, clusterScoped],
        target: { url: "https://x" },
        namespace: "d",
      }),
    /Two webhooks/,
  );
});

Deno.test("a CRD's conversion: strategy Webhook, ConversionReview v1, the conversion's path", () => {
  const conversion = conversionWebhook({ crd: "things.example.com", hub: "v1", spokes: [] });
  assert.deepEqual(
    crdConversion(conversion, { target: { url: "https://127.0.0.1:9443" }, caBundle: "PEM" }),
    {
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: { url: "https://127.0.0.1:9443/convert/things.example.com", caBundle: btoa("PEM") },
      },
    },
  );
});
