import type { Project } from "../project.ts";

// A capped young generation: kubeloop's reference controller measured a smaller RSS with it.
const V8 = "--v8-flags=--max-semi-space-size=2";
// What the controller may do, shared by `start` and `compile` (which narrows the reads to the pod's files).
const ENV = "--allow-env=HOME,KUBECONFIG,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT";
// npm:yaml, which parses kubeconfigs, reads these two debug variables; ignored, they read as unset.
const IGNORE_ENV = "--ignore-env=LOG_TOKENS,LOG_STREAM";
// The leader-election identity starts with the host name (the pod name in a cluster).
const SYS = "--allow-sys=hostname";
// Cloud metadata endpoints hold node credentials; a controller never needs them.
const DENY_NET = "--deny-net=169.254.0.0/16,[fd00:ec2::254]";

/** The permission flags of `deno task start`: reads anywhere (a kubeconfig may be anywhere). */
export function startFlags(): string {
  return `${V8} --allow-net --allow-read ${ENV} ${IGNORE_ENV} ${SYS} ${DENY_NET}`;
}

/** The permission flags of `deno task compile`: reads only the pod's service-account files. */
export function compileFlags(): string {
  const read = "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount";
  return `${V8} --allow-net ${read} ${ENV} ${IGNORE_ENV} ${SYS} ${DENY_NET}`;
}

/** deno.json: the import of kubeloop, the tasks, strict compiler options and test sanitizers. */
export function denoJson(p: Project): string {
  const gen = "deno run --allow-read --allow-write=src --allow-run --ignore-env=LOG_TOKENS,LOG_STREAM " +
    "@kubeloop/kubeloop/init/gen";
  const config = {
    imports: { "@kubeloop/kubeloop": p.pkg.specifier },
    ...(p.pkg.link ? { links: [p.pkg.link] } : {}),
    tasks: {
      test: "deno test --allow-all",
      start: `deno run ${startFlags()} main.ts`,
      gen: `${gen} ${p.files.crd} ${p.files.types}`,
      compile: `deno compile --frozen ${compileFlags()} --output dist/${p.name} main.ts`,
    },
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noImplicitReturns: true,
      noFallthroughCasesInSwitch: true,
    },
    // Controllers are timers and sockets: a test that leaves one behind fails instead of leaking.
    test: { sanitizeOps: true, sanitizeResources: true },
    fmt: { lineWidth: 110 },
    exclude: ["dist/"],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
