import type { Project } from "../project.ts";

/** README.md: the project's two commands, what to edit, and how to deploy it. */
export function readme(p: Project): string {
  const K = p.kind;
  const ns = p.namespaced ? "\n  namespace: default" : "";
  return `# ${p.name}

A Kubernetes controller for the \`${K}\` custom resource (\`${p.group}/${p.version}\`), written in TypeScript on
[kubeloop](https://jsr.io/@kubeloop/kubeloop) and run by Deno 2.9 or later. For every ${K} it keeps a
ConfigMap of the same name holding the ${K}'s message, owned by the ${K}, and reports that in the ${K}'s
\`Ready\` condition: a working skeleton to make your own.

\`\`\`sh
deno task test    # unit tests on FakeApi, then an end-to-end test on a local control plane
deno task start   # runs the controller against the cluster of $KUBECONFIG (apply crds/ there first)
\`\`\`

The end-to-end test starts etcd and kube-apiserver with kubeloop's \`startTestEnv\`; it uses the binaries in
\`$KUBELOOP_TESTENV_BIN\`, or builds them once with Go (see \`startTestEnv\`'s documentation). The unit tests
alone need nothing: \`deno test tests/${p.stem}_controller_test.ts\`. The first command writes \`deno.lock\`;
commit it (the image build installs exactly what it pins).

## What to edit

- \`${p.files.crd}\`: the ${K}'s schema. Then \`deno task gen\` regenerates \`${p.files.types}\`
  (never edit that file by hand).
- \`${p.files.controller}\`: what the controller does. \`reconcile${K}\` reads a ${K} from the cache and
  brings the world in line with it; \`desiredConfigMap\` is the object it applies. To manage another kind,
  apply it with an owner reference the same way and add it to \`owns\`.
- \`manifests/rbac.yaml\`: the verbs the controller uses, and nothing more. Change it with the controller.
- \`tests/\`: \`${p.stem}_controller_test.ts\` runs the controller on FakeApi (fast, no cluster);
  \`e2e_test.ts\` runs it against a real API server.
- \`main.ts\`: flags and wiring (\`deno task start --help\`); rarely needs a change.

## Deploy

\`\`\`sh
docker build -t ${p.name}:0.1.0 .   # or load it into your cluster's registry
kubectl apply -k manifests/          # the CRD, namespace ${p.namespace}, RBAC and the Deployment
kubectl apply -f - <<EOF
apiVersion: ${p.group}/${p.version}
kind: ${K}
metadata:
  name: hello${ns}
spec:
  message: Hello
EOF
kubectl get ${p.plural}                # READY turns True
\`\`\`

The Deployment runs as non-root with a read-only root filesystem, no privilege escalation, no capabilities
and the RuntimeDefault seccomp profile, within CPU and memory limits; the binary is built by
\`deno task compile\` with only the permissions the controller needs.
`;
}

/** .gitignore: the compiled binary. */
export function gitignore(): string {
  return "dist/\n";
}
