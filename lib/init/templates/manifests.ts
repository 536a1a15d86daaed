import type { Project } from "../project.ts";

/** manifests/namespace.yaml, service_account.yaml and kustomization.yaml. */
export function namespaceYaml(p: Project): string {
  return `# The namespace the controller runs in; its leader-election Lease lives here too.
apiVersion: v1
kind: Namespace
metadata:
  name: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
    # Refuse pods here that the restricted Pod Security Standard would not allow (ours complies).
    pod-security.kubernetes.io/enforce: restricted
`;
}

/** manifests/service_account.yaml: the controller's identity. */
export function serviceAccountYaml(p: Project): string {
  return `# The identity of the controller; rbac.yaml grants it exactly what it uses.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${p.name}
  namespace: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
`;
}

/** manifests/kustomization.yaml: `kubectl apply -k manifests/` installs the CRD and the controller. */
export function kustomizationYaml(): string {
  return `# \`kubectl apply -k manifests/\` installs the CRD (through crds/Kustomization) and the controller.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../crds
  - namespace.yaml
  - service_account.yaml
  - rbac.yaml
  - deployment.yaml
`;
}

/** manifests/deployment.yaml: the controller, hardened like kubeloop's own. */
export function deploymentYaml(p: Project): string {
  return `# The controller. One replica; with --leader-elect a rolling update's new pod waits until the old one
# has released the Lease, so two never reconcile at once. Raise replicas for a warm standby.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${p.name}
  namespace: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: ${p.name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${p.name}
    spec:
      serviceAccountName: ${p.name}
      # Shutdown: in-flight reconciles get 30 s, then 5 s more, then the Lease is released; the kubelet
      # must not kill the process before that.
      terminationGracePeriodSeconds: 60
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: controller
          image: ${p.name}:0.1.0
          imagePullPolicy: IfNotPresent
          args:
            - --leader-elect
            - --health-probe-bind-address=:8081
          volumeMounts:
            # The root filesystem is read-only; the image's DENO_DIR points below /tmp.
            - name: tmp
              mountPath: /tmp
          ports:
            - name: health
              containerPort: 8081
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /healthz
              port: health
            initialDelaySeconds: 5
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: /readyz
              port: health
            initialDelaySeconds: 2
            periodSeconds: 5
          # kubeloop's reference controller idles at about 75 MB with a hundred objects cached and peaks
          # below 100 MB syncing ten thousand; measure yours and adjust.
          resources:
            requests:
              cpu: 50m
              memory: 96Mi
            limits:
              cpu: 500m
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            runAsUser: 65532
            capabilities:
              drop: ["ALL"]
            seccompProfile:
              type: RuntimeDefault
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 16Mi
`;
}
