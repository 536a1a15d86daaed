/**
 * The pod the project ships, read from its three sources of truth: deno.json's "compile" task (permission
 * and V8 flags baked into the binary), the Dockerfile (base image, binary path, user, env) and the
 * Deployment in manifests/ (arguments, security context, volumes, probes). The rehearsal starts exactly
 * this; `divergences` lists where the sources disagree, and tests/packaging/pod_spec_test.ts fails on any.
 * Checks are structural (parsed values, not lines), so digests, extra objects or reordered YAML pass.
 */
import { parseAllDocuments } from "yaml";
import { type CompileSpec, compileSpec } from "./compile_spec.ts";
import { type ContainerSpec, containerSpec } from "./container_spec.ts";
import { type ImageSpec, imageSpec } from "./image_spec.ts";

export type { CompileSpec, ContainerSpec, ImageSpec };

/** Everything the rehearsal needs to start the pod. */
export interface PodSpec {
  readonly image: ImageSpec;
  readonly compile: CompileSpec;
  readonly container: ContainerSpec;
  /** The ClusterRole a Prometheus ServiceAccount is bound to for a `--metrics-secure` scrape, if any. */
  readonly metricsReaderRole?: string;
}

/** The three sources, as text. */
export interface PodSources {
  readonly dockerfile: string;
  readonly denoJson: string;
  /** Every manifests/*.yaml file. */
  readonly manifests: readonly { name: string; text: string }[];
}

/** The repository root. */
export const REPO_ROOT = new URL("../../../", import.meta.url).pathname;

/** Reads the sources from the repository. */
export async function readPodSources(root = REPO_ROOT): Promise<PodSources> {
  const dir = `${root}manifests/`;
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".yaml")).sort();
  return {
    dockerfile: await Deno.readTextFile(`${root}Dockerfile`),
    denoJson: await Deno.readTextFile(`${root}deno.json`),
    manifests: await Promise.all(
      names.map(async (name) => ({ name, text: await Deno.readTextFile(dir + name) })),
    ),
  };
}

/** The pod described by the repository's current files. */
export async function readPodSpec(root = REPO_ROOT): Promise<PodSpec> {
  return podSpecFrom(await readPodSources(root));
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** The pod from the three sources. */
export function podSpecFrom(sources: PodSources): PodSpec {
  const reader = metricsReaderRole(sources.manifests);
  return {
    image: imageSpec(sources.dockerfile),
    compile: compileSpec(sources.denoJson),
    container: containerSpec(sources.manifests),
    ...(reader ? { metricsReaderRole: reader } : {}),
  };
}

/** The name of the manifests' ClusterRole that allows `get` on the /metrics URL, if there is one. */
export function metricsReaderRole(manifests: PodSources["manifests"]): string | undefined {
  const objects: Json[] = manifests.flatMap(({ text }) => parseAllDocuments(text).map((d) => d.toJS()));
  const role = objects.find((o) =>
    o?.kind === "ClusterRole" &&
    (o.rules ?? []).some((r: Json) =>
      (r.nonResourceURLs ?? []).some((u: string) => u === "/metrics" || u === "*") &&
      (r.verbs ?? []).some((v: string) => v === "get" || v === "*")
    )
  );
  return role?.metadata?.name;
}

/** The value of `--name=value` among `args` (the last one wins, as in our flag parser). */
export function argValue(args: readonly string[], name: string): string | undefined {
  return args.findLast((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** True when a boolean flag is on: `--name` or `--name=true`. */
export function argEnabled(args: readonly string[], name: string): boolean {
  const last = args.findLast((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return last === `--${name}` || last === `--${name}=true`;
}

/** The port of a bind address such as ":8080" or "0.0.0.0:8080". */
export function bindPort(address: string | undefined): number | undefined {
  const m = /:(\d+)$/.exec(address ?? "");
  return m ? Number(m[1]) : undefined;
}

/**
 * The stand-in binary's command line: the runtime at the ENTRYPOINT path running the build stage's entry
 * module with exactly the compile task's flags, then the ENTRYPOINT's and the Deployment's arguments.
 * `--cached-only` and `--no-prompt` make it behave as a compiled binary does: its modules are all there,
 * and it never asks for a permission.
 */
export function standInArgv(spec: PodSpec, extraArgs: readonly string[] = []): string[] {
  const { image, compile, container } = spec;
  const [binary = "", ...entryArgs] = image.entrypoint;
  const program = `${image.buildWorkdir.replace(/\/+$/, "")}/${compile.entry}`;
  return [
    binary,
    "run",
    "--cached-only",
    "--no-prompt",
    ...compile.flags,
    program,
    ...entryArgs,
    ...container.args,
    ...extraArgs,
  ];
}
