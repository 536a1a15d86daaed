/**
 * The reference controller's webhooks (served only with `--webhook-bind-address`): Foo validation, Foo
 * defaulting, and conversion between v1alpha1 (the storage version, the hub) and v1beta1.
 * @module
 */
import {
  type AdmissionRequest,
  type AdmissionWebhook,
  allow,
  type ConversionWebhook,
  conversionWebhook,
  deny,
  mutatingWebhook,
  spoke,
  validatingWebhook,
} from "../webhook/mod.ts";
import type { Foo } from "./foo.ts";
import type { Foo as FooV1beta1 } from "./foo_v1beta1.ts";
import { FOOS } from "./foo.ts";

/** The replicas a Foo may ask for (the CRD's schema says the same). */
export const FOO_REPLICAS = { min: 1, max: 10 } as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Names of the fields as the client wrote them: v1beta1 moved both under spec.deployment. */
function fieldNames(request: AdmissionRequest<Foo>): { name: string; replicas: string } {
  return request.requestKind?.version === "v1beta1"
    ? { name: "spec.deployment.name", replicas: "spec.deployment.replicas" }
    : { name: "spec.deploymentName", replicas: "spec.replicas" };
}

/**
 * Refuses a Foo whose Deployment name is not a DNS-1123 label (what a Deployment name needs; the CRD's
 * schema leaves it a free string, so without this the controller reported the Foo as invalid only after it
 * was stored) or whose replicas are out of bounds. Answers 422 (Invalid), naming the field as the client
 * wrote it, v1alpha1 or v1beta1.
 */
export const fooValidation: AdmissionWebhook = validatingWebhook({
  name: "foos.validate.samplecontroller.k8s.io",
  resource: FOOS,
  failurePolicy: "Fail",
  validate(request) {
    const spec = request.object?.spec ?? {};
    const field = fieldNames(request);
    const name = spec.deploymentName;
    if (name === undefined || name === "") return deny(`${field.name} is required`, { code: 422 });
    if (name.length > 63 || !DNS_LABEL.test(name)) {
      return deny(
        `${field.name} must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting ` +
          `and ending with a letter or digit`,
        { code: 422 },
      );
    }
    const replicas = spec.replicas;
    if (
      replicas !== undefined &&
      (!Number.isInteger(replicas) || replicas < FOO_REPLICAS.min || replicas > FOO_REPLICAS.max)
    ) {
      return deny(`${field.replicas} must be an integer from ${FOO_REPLICAS.min} to ${FOO_REPLICAS.max}`, {
        code: 422,
      });
    }
    return allow();
  },
});

/** Sets `spec.replicas` to 1 when a Foo leaves it out. */
export const fooDefaulting: AdmissionWebhook = mutatingWebhook({
  name: "foos.default.samplecontroller.k8s.io",
  resource: FOOS,
  failurePolicy: "Fail",
  mutate(foo) {
    if (foo.spec?.replicas === undefined) foo.spec = { ...foo.spec, replicas: 1 };
    return foo;
  },
});

/**
 * v1alpha1 (hub) ⇄ v1beta1: `spec.deploymentName` and `spec.replicas` are v1beta1's
 * `spec.deployment.name` and `.replicas`; v1beta1's `spec.description` has no v1alpha1 field and is kept in
 * the annotation `samplecontroller.k8s.io/preserved-v1beta1` while the Foo is stored as v1alpha1.
 */
export const fooConversion: ConversionWebhook = conversionWebhook<Foo>({
  crd: "foos.samplecontroller.k8s.io",
  hub: "v1alpha1",
  spokes: [
    spoke<Foo, FooV1beta1>("v1beta1", {
      toHub(foo) {
        const { deployment, description: _kept, ...rest } = foo.spec ?? {};
        const spec = {
          ...rest,
          ...(deployment?.name === undefined ? {} : { deploymentName: deployment.name }),
          ...(deployment?.replicas === undefined ? {} : { replicas: deployment.replicas }),
        };
        return {
          metadata: foo.metadata,
          ...(foo.spec ? { spec } : {}),
          ...(foo.status ? { status: foo.status } : {}),
        };
      },
      fromHub(foo) {
        const { deploymentName, replicas, ...rest } = foo.spec ?? {};
        const deployment = {
          ...(deploymentName === undefined ? {} : { name: deploymentName }),
          ...(replicas === undefined ? {} : { replicas }),
        };
        const spec = { ...rest, ...(Object.keys(deployment).length > 0 ? { deployment } : {}) };
        return {
          metadata: foo.metadata,
          ...(foo.spec ? { spec } : {}),
          ...(foo.status ? { status: foo.status } : {}),
        };
      },
    }),
  ],
});
