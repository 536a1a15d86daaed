/** The Dockerfile's runtime image and build stage, read structurally. */
import { dockerInstructions } from "../../_util/dockerfile.ts";
import { DISTROLESS_NONROOT } from "./distroless.ts";
import { sourceError as fail } from "./source_error.ts";

/** The runtime image, as the Dockerfile builds it. */
export interface ImageSpec {
  /** FROM of the last (runtime) stage. */
  readonly base: string;
  /** ENTRYPOINT, exec form. */
  readonly entrypoint: readonly string[];
  /** ENV of the runtime stage. */
  readonly env: Readonly<Record<string, string>>;
  /** USER of the runtime stage, numeric. */
  readonly uid: number;
  readonly gid: number;
  /** WORKDIR of the runtime stage; the base image's (/home/nonroot for distroless :nonroot) when absent. */
  readonly workdir: string;
  /** `COPY --from=build <source> <destination>` of the binary. */
  readonly binarySource: string;
  readonly binaryDestination: string;
  /** WORKDIR of the build stage, where the program is compiled. */
  readonly buildWorkdir: string;
  /** What the build stage copies from the context (files and folders, relative to the repository). */
  readonly buildSources: readonly string[];
}

function parseUser(user: string): { uid: number; gid: number } {
  const [u = "", g] = user.split(":");
  const id = (s: string) => s === DISTROLESS_NONROOT.name ? DISTROLESS_NONROOT.uid : Number(s);
  const uid = id(u);
  const gid = g === undefined ? uid : id(g);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) fail(`Dockerfile USER "${user}" is not numeric`);
  return { uid, gid };
}

/** `KEY=VALUE ...` or the legacy `KEY VALUE` form of ENV. */
function parseEnv(args: string): [string, string][] {
  if (!/^\S+=/.test(args)) {
    const [key = "", ...rest] = args.split(/\s+/);
    return [[key, rest.join(" ")]];
  }
  return args.split(/\s+/).map((pair) => {
    const i = pair.indexOf("=");
    return [pair.slice(0, i), pair.slice(i + 1).replace(/^"(.*)"$/, "$1")];
  });
}

/** Reads the Dockerfile's build and runtime stages. */
export function imageSpec(dockerfile: string): ImageSpec {
  const steps = dockerInstructions(dockerfile);
  const lastFrom = steps.findLastIndex((s) => s.op === "FROM");
  if (lastFrom <= 0) fail("the Dockerfile needs a build stage and a runtime stage");
  const build = steps.slice(0, lastFrom);
  const runtime = steps.slice(lastFrom + 1);
  const env: Record<string, string> = {};
  for (const s of runtime.filter((s) => s.op === "ENV")) {
    for (const [k, v] of parseEnv(s.args)) env[k] = v;
  }
  const user = runtime.findLast((s) => s.op === "USER")?.args ?? fail("the runtime stage sets no USER");
  const entry = runtime.findLast((s) => s.op === "ENTRYPOINT")?.args ??
    fail("the runtime stage has no ENTRYPOINT");
  let entrypoint: string[];
  try {
    entrypoint = JSON.parse(entry) as string[];
  } catch {
    fail(`ENTRYPOINT ${entry} is not in exec (JSON) form`);
  }
  const copy = runtime.find((s) => s.op === "COPY" && s.args.startsWith("--from=build "));
  const [binarySource = "", binaryDestination = ""] = copy?.args.split(/\s+/).slice(1) ??
    fail("the runtime stage copies no binary from the build stage");
  const buildSources = build.filter((s) => s.op === "COPY" && !s.args.startsWith("--"))
    .flatMap((s) => s.args.split(/\s+/).slice(0, -1)).map((p) => p.replace(/\/$/, ""));
  return {
    base: steps[lastFrom]!.args,
    entrypoint,
    env,
    ...parseUser(user),
    workdir: runtime.findLast((s) => s.op === "WORKDIR")?.args ?? DISTROLESS_NONROOT.home,
    binarySource,
    binaryDestination,
    buildWorkdir: build.findLast((s) => s.op === "WORKDIR")?.args ?? fail("the build stage sets no WORKDIR"),
    buildSources,
  };
}
