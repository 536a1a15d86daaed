/**
 * Creates a new Kubernetes controller project on kubeloop, like kubebuilder's `init` and `create api` in
 * one command:
 *
 * ```sh
 * deno run -A jsr:@kubeloop/kubeloop/init my-operator --group example.com --kind Widget
 * cd my-operator && deno task test
 * ```
 *
 * (from a checkout: `deno run -A <checkout>/lib/init/main.ts …`). The project holds the CRD
 * (`crds/<plural>.<group>.yaml`, with a status subresource and printer columns), the types generated from
 * it, a controller on kubeloop's Manager that adds a finalizer, applies an owned ConfigMap and sets a
 * Ready condition, a unit test on FakeApi, an end-to-end test on a local control plane (startTestEnv),
 * `main.ts` (flags, leader election, signal handling), manifests with least-privilege RBAC and a hardened
 * Deployment, a Dockerfile, deno.json tasks (`test`, `start`, `gen`, `compile`) and a README.
 * `--help` lists the flags. Exit codes: 0 done, 1 failure, 2 bad command line (nothing written).
 * @module
 */
import { parseInitArgs, USAGE, UsageError } from "./args.ts";
import { resolvePackage } from "./package_source.ts";
import { projectOf } from "./project.ts";
import { writeProject } from "./write_project.ts";

/** Where {@linkcode init} writes its messages. */
export type InitOutput = (stream: "stdout" | "stderr", text: string) => void;

/**
 * Runs the generator with command-line `args` and resolves with the process exit code. Messages go to
 * `output`.
 */
export async function init(args: readonly string[], output: InitOutput = write): Promise<number> {
  try {
    const parsed = parseInitArgs(args);
    if (parsed === "help") {
      output("stdout", USAGE);
      return 0;
    }
    const project = projectOf(parsed, await resolvePackage(parsed.package));
    await writeProject(parsed.dir, project);
    output(
      "stdout",
      `Created ${parsed.dir}: a controller of ${project.kind} (${project.group}/${project.version}).\n` +
        `  cd ${parsed.dir}\n` +
        "  deno task test    # unit tests, and an end-to-end test on a local control plane\n" +
        "  deno task start   # runs the controller against the cluster of $KUBECONFIG\n",
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      output("stderr", `init: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    output("stderr", `init: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** Writes synchronously, like the logger: the process exits right after. */
function write(stream: "stdout" | "stderr", text: string): void {
  const bytes = new TextEncoder().encode(text);
  const out = stream === "stdout" ? Deno.stdout : Deno.stderr;
  let written = 0;
  while (written < bytes.length) written += out.writeSync(bytes.subarray(written));
}

if (import.meta.main) Deno.exit(await init(Deno.args));
