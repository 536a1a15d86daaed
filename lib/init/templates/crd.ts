import type { Project } from "../project.ts";

/** crds/<plural>.<group>.yaml: the CustomResourceDefinition, the source of the generated types. */
export function crdYaml(p: Project): string {
  return `# The ${p.kind} custom resource (${p.group}/${p.version}).
# After editing the schema, run \`deno task gen\` to regenerate ${p.files.types} from it.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${p.crdName}
spec:
  group: ${p.group}
  scope: ${p.namespaced ? "Namespaced" : "Cluster"}
  names:
    kind: ${p.kind}
    listKind: ${p.kind}List
    plural: ${p.plural}
    singular: ${p.kind.toLowerCase()}
  versions:
    - name: ${p.version}
      served: true
      storage: true
      # The controller writes status through the status subresource, so users cannot set it by accident
      # and status writes do not bump metadata.generation.
      subresources:
        status: {}
      additionalPrinterColumns:
        - name: Message
          type: string
          jsonPath: .spec.message
        - name: Ready
          type: string
          jsonPath: .status.conditions[?(@.type=="Ready")].status
        - name: Age
          type: date
          jsonPath: .metadata.creationTimestamp
      schema:
        openAPIV3Schema:
          description: A ${p.kind} asks for a ConfigMap holding its message, owned by the ${p.kind}.
          type: object
          required:
            - spec
          properties:
            spec:
              description: What the user asks for.
              type: object
              properties:
                message:
                  description: Written to the "message" key of the ${p.kind}'s ConfigMap.
                  type: string
                  maxLength: 1024
            status:
              description: What the controller observed, written through the status subresource.
              type: object
              properties:
                observedGeneration:
                  description: The generation this status describes.
                  type: integer
                  format: int64
                conditions:
                  description: Conditions of the ${p.kind}; the controller owns the Ready condition.
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys:
                    - type
                  items:
                    description: One aspect of the ${p.kind}'s state (a metav1.Condition).
                    type: object
                    required:
                      - type
                      - status
                    properties:
                      type:
                        description: Condition type, e.g. Ready.
                        type: string
                      status:
                        description: Whether the condition holds.
                        type: string
                        enum: ["True", "False", "Unknown"]
                      observedGeneration:
                        description: The generation the condition was computed for.
                        type: integer
                        format: int64
                      lastTransitionTime:
                        description: When status last changed.
                        type: string
                        format: date-time
                      reason:
                        description: CamelCase machine-readable cause.
                        type: string
                      message:
                        description: Human-readable detail.
                        type: string
`;
}

/** crds/Kustomization: lets manifests/ include the CRD folder (a file outside its root would be refused). */
export function crdKustomization(p: Project): string {
  return `# Lets manifests/kustomization.yaml include the CRDs as a directory. Named without an extension so that
# \`kubectl apply -f crds/\` does not try to apply this file as a Kubernetes object.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ${p.crdName}.yaml
`;
}
