import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);
const dockerfile = await Deno.readTextFile(new URL("Dockerfile", root));
const denoJson = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
  version: string;
  tasks: Record<string, string>;
};
const pinnedDeno = (JSON.parse(await Deno.readTextFile(new URL(".tools/deno/package.json", root))) as {
  dependencies: Record<string, string>;
}).dependencies["deno"];

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.split("\n").filter((l) => !l.trimStart().startsWith("#")).join("\n").replace(
    /\\\n/g,
    " ",
  );
  return joined.split("\n").map((l) => l.trim()).filter((l) => l !== "").map((l) => {
    const [op = "", ...rest] = l.split(/\s+/);
    return { op: op.toUpperCase(), args: rest.join(" ") };
  });
}

/** The permission flags of a deno command line, as a sorted list. */
function permissionFlags(command: string): string[] {
  return command.split(/\s+/).filter((t) => /^(--allow-|--deny-|--ignore-env|-A$|--allow-all)/.test(t))
    .sort();
}

const steps = instructions(dockerfile);
const froms = steps.filter((s) => s.op === "FROM").map((s) => s.args);
const lastFrom = steps.findLastIndex((s) => s.op === "FROM");
const runtime = steps.slice(lastFrom + 1);

Deno.test("the build stage is the official Deno image at the version the project pins", () => {
  assert.ok(pinnedDeno, ".tools/deno/package.json pins deno");
  assert.equal(froms.length, 2);
  assert.match(
    froms[0] ?? "",
    new RegExp(
      `^denoland/deno:(debian-|bin-|ubuntu-)?${
        pinnedDeno!.replaceAll(".", "\\.")
      }(@sha256:[0-9a-f]{64})? AS build$`,
    ),
  );
});

Deno.test("a digest, where a stage has one, is a full sha256 after the tag; the bump procedure is written down", () => {
  for (const from of froms) {
    const image = from.split(/\s+/)[0] ?? "";
    assert.match(
      image,
      /^[a-z0-9./-]+:[A-Za-z0-9._-]+(@sha256:[0-9a-f]{64})?$/,
      `${image}: tag, then digest`,
    );
  }
  assert.match(dockerfile, /docker buildx imagetools inspect denoland\/deno:/);
  assert.match(dockerfile, /docker buildx imagetools inspect gcr\.io\/distroless\/cc-debian12:nonroot/);
});

Deno.test("the runtime stage is distroless cc-debian12, nonroot tag, running as UID 65532", () => {
  assert.match(froms[1] ?? "", /^gcr\.io\/distroless\/cc-debian12:nonroot(@sha256:[0-9a-f]{64})?$/);
  const users = runtime.filter((s) => s.op === "USER").map((s) => s.args);
  assert.equal(users.length, 1);
  assert.match(users[0] ?? "", /^(65532(:65532)?|nonroot(:nonroot)?)$/);
});

Deno.test("the runtime stage sets DENO_DIR and runs the compiled binary as its exec-form entrypoint", () => {
  assert.ok(runtime.some((s) => s.op === "ENV" && /^DENO_DIR[= ]\S+/.test(s.args)));
  const entrypoint = runtime.find((s) => s.op === "ENTRYPOINT");
  assert.ok(entrypoint);
  const argv = JSON.parse(entrypoint.args) as string[];
  const binary = argv[0] ?? "";
  const output = /--output\s+(\S+)/.exec(denoJson.tasks["compile"] ?? "")?.[1] ?? "";
  const copy = runtime.find((s) => s.op === "COPY" && s.args.includes("--from=build"));
  assert.ok(copy, "the binary is copied from the build stage");
  assert.equal(copy.args, `--from=build /src/${output} ${binary}`);
  assert.equal(runtime.some((s) => s.op === "RUN"), false, "distroless has no shell");
});

Deno.test("the build stage compiles through the compile task, with the lockfile frozen", () => {
  const runs = steps.slice(0, lastFrom).filter((s) => s.op === "RUN").map((s) => s.args);
  assert.ok(runs.some((r) => /\bdeno install --frozen\b/.test(r)));
  assert.ok(runs.some((r) => /\bdeno task compile\b/.test(r)));
  assert.equal(runs.some((r) => /\bdeno compile\b/.test(r)), false, "flags live only in deno.json");
  assert.match(denoJson.tasks["compile"] ?? "", /^deno compile --frozen /);
});

Deno.test("compile and start carry exactly the same permission flags, and compile:exec adds only --allow-run", () => {
  const compile = permissionFlags(denoJson.tasks["compile"] ?? "");
  assert.deepEqual(permissionFlags(denoJson.tasks["start"] ?? ""), compile);
  assert.deepEqual(permissionFlags(denoJson.tasks["compile:exec"] ?? ""), [...compile, "--allow-run"].sort());
  assert.match(denoJson.tasks["start"] ?? "", /^deno run .* main\.ts$/);
});

Deno.test("compile and start run with the same V8 flags (a capped young generation for a small RSS)", () => {
  const v8 = (command: string) => command.split(/\s+/).filter((t) => t.startsWith("--v8-flags")).sort();
  const compile = v8(denoJson.tasks["compile"] ?? "");
  assert.deepEqual(compile, ["--v8-flags=--max-semi-space-size=2"]);
  assert.deepEqual(v8(denoJson.tasks["start"] ?? ""), compile);
  assert.deepEqual(v8(denoJson.tasks["compile:exec"] ?? ""), compile);
});

Deno.test("the baked-in permissions are narrow: no write, no run, no all, env limited to a list", () => {
  const flags = permissionFlags(denoJson.tasks["compile"] ?? "");
  for (
    const forbidden of ["--allow-write", "--allow-run", "--allow-all", "-A", "--allow-ffi", "--allow-import"]
  ) {
    assert.equal(flags.some((f) => f === forbidden || f.startsWith(`${forbidden}=`)), false, forbidden);
  }
  const env = flags.find((f) => f.startsWith("--allow-env"));
  assert.deepEqual(env?.slice("--allow-env=".length).split(",").sort(), [
    "HOME",
    "KUBECONFIG",
    "KUBELOOP_SERVICE_ACCOUNT_DIR",
    "KUBERNETES_SERVICE_HOST",
    "KUBERNETES_SERVICE_PORT",
  ]);
  assert.ok(flags.includes("--ignore-env=LOG_TOKENS,LOG_STREAM"));
  assert.ok(flags.includes("--allow-sys=hostname"));
});

Deno.test("the manifests' image tag is the project version", async () => {
  const deployment = await Deno.readTextFile(new URL("manifests/deployment.yaml", root));
  assert.match(
    deployment,
    new RegExp(`image: kubeloop/sample-controller:${denoJson.version.replaceAll(".", "\\.")}\\n`),
  );
});
