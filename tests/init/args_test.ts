/**
 * The generator's command line: names derived the Kubernetes way, and every bad input refused with a
 * message naming the flag at fault, before anything is written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type InitArgs, parseInitArgs, UsageError } from "../../lib/init/args.ts";
import { init } from "../../lib/init/main.ts";
import { lowerCamel, pluralOf, snakeCase } from "../../lib/init/names.ts";

function parsed(...args: string[]): InitArgs {
  const result = parseInitArgs(args);
  assert.notEqual(result, "help");
  return result as InitArgs;
}

function refused(args: string[], message: RegExp): void {
  assert.throws(() => parseInitArgs(args), (error: unknown) => {
    assert.ok(error instanceof UsageError, `a UsageError, got ${error}`);
    assert.match(error.message, message);
    return true;
  });
}

const base = ["my-operator", "--group", "example.com", "--kind", "Widget"];

Deno.test("defaults: version v1alpha1, plural from the kind, namespaced, the registry package", () => {
  assert.deepEqual(parsed(...base), {
    dir: "my-operator",
    name: "my-operator",
    group: "example.com",
    version: "v1alpha1",
    kind: "Widget",
    plural: "widgets",
    namespaced: true,
    package: undefined,
  });
});

Deno.test("every flag, in both spellings, and the project name is the directory's base name", () => {
  const args = parsed(
    "work/ops/cert-keeper",
    "--group=certs.acme.io",
    "--kind",
    "CertPolicy",
    "--version=v2beta1",
    "--plural",
    "certpolicies",
    "--namespaced=false",
    "--package",
    "jsr:@kubeloop/kubeloop@^1.2.0",
  );
  assert.equal(args.name, "cert-keeper");
  assert.equal(args.dir, "work/ops/cert-keeper");
  assert.equal(args.version, "v2beta1");
  assert.equal(args.plural, "certpolicies");
  assert.equal(args.namespaced, false);
  assert.equal(args.package, "jsr:@kubeloop/kubeloop@^1.2.0");
  assert.equal(parsed(...base, "--namespaced").namespaced, true);
  assert.equal(parsed(...base, "--namespaced", "false").namespaced, false);
  assert.equal(parsed("--namespaced", "true", ...base).namespaced, true);
});

Deno.test("plurals follow the usual English rules; irregular ones need --plural", () => {
  const cases: [string, string][] = [
    ["Widget", "widgets"],
    ["Policy", "policies"],
    ["Gateway", "gateways"],
    ["Class", "classes"],
    ["Box", "boxes"],
    ["Buzz", "buzzes"],
    ["Patch", "patches"],
    ["Mesh", "meshes"],
    ["DNSRecord", "dnsrecords"],
  ];
  for (const [kind, plural] of cases) assert.equal(pluralOf(kind), plural, kind);
});

Deno.test("file and variable names of a kind", () => {
  assert.equal(snakeCase("Widget"), "widget");
  assert.equal(snakeCase("NetworkPolicySet"), "network_policy_set");
  assert.equal(snakeCase("DNSRecord"), "dns_record");
  assert.equal(snakeCase("S3Bucket"), "s3_bucket");
  assert.equal(lowerCamel("Widget"), "widget");
  assert.equal(lowerCamel("NetworkPolicySet"), "networkPolicySet");
  assert.equal(lowerCamel("DNSRecord"), "dnsRecord");
  assert.equal(lowerCamel("DNS"), "dns");
});

Deno.test("--help wins over everything else", () => {
  assert.equal(parseInitArgs(["--help"]), "help");
  assert.equal(parseInitArgs(["x", "--kind", "bad kind", "-h"]), "help");
});

Deno.test("a group that is not a DNS subdomain with a dot, or is Kubernetes' own, is refused naming --group", () => {
  for (
    const group of ["Example.com", "example", "exa_mple.com", "-example.com", "example..com", "example.com."]
  ) {
    refused(["op", "--group", group, "--kind", "Widget"], /^--group "/);
  }
  refused(["op", "--group", "apps.k8s.io", "--kind", "Widget"], /--group "apps\.k8s\.io": .*Kubernetes' own/);
  refused(["op", "--group", "x.kubernetes.io", "--kind", "Widget"], /--group/);
  refused(["op", "--group", `${"a".repeat(250)}.com`, "--kind", "Widget"], /--group/);
});

Deno.test("a kind that is not UpperCamelCase is refused naming --kind", () => {
  for (const kind of ["widget", "Wid-get", "Wid get", "1Widget", "Widgét", `W${"a".repeat(63)}`]) {
    refused(["op", "--group", "example.com", "--kind", kind], /^--kind ".*" is not UpperCamelCase/);
  }
});

Deno.test("a bad version, plural or --namespaced value is refused naming the flag", () => {
  for (const version of ["1", "v0", "V1", "v1alpha", "v1gamma1", "v1beta0"]) {
    refused([...base, "--version", version], /^--version /);
  }
  for (const plural of ["Widgets", "wid_gets", "9widgets", "widgets-"]) {
    refused([...base, "--plural", plural], /^--plural /);
  }
  refused([...base, "--namespaced=yes"], /^--namespaced must be true or false, got "yes"/);
});

Deno.test("missing, repeated, valueless and unknown flags, and a missing or second directory", () => {
  refused(["op", "--kind", "Widget"], /^--group is required/);
  refused(["op", "--group", "example.com"], /^--kind is required/);
  refused(["op", "--group", "example.com", "--kind="], /^--kind is required/);
  refused([...base, "--kind", "Gadget"], /^--kind is given twice/);
  refused([...base, "--plural"], /^--plural needs a value/);
  refused(["op", "--group", "--kind", "Widget"], /^--group needs a value/);
  refused([...base, "--force"], /^unknown flag "--force"/);
  refused(["--group", "example.com", "--kind", "Widget"], /project directory is missing/);
  refused([...base, "other"], /expected one project directory, got 2: my-operator other/);
});

Deno.test("a directory whose name cannot name Kubernetes objects is refused naming it", () => {
  refused(["My_Operator", "--group", "example.com", "--kind", "Widget"], /^project directory "My_Operator"/);
  refused(["work/-op", "--group", "example.com", "--kind", "Widget"], /its name "-op"/);
});

Deno.test("init: a bad command line exits 2 with the message and the usage, and writes nothing", async () => {
  const parent = await Deno.makeTempDir({ prefix: "kubeloop-init-args-" });
  try {
    const dir = join(parent, "op");
    const out: string[] = [];
    const code = await init(
      [dir, "--group", "Example", "--kind", "Widget"],
      (_s, text) => void out.push(text),
    );
    assert.equal(code, 2);
    assert.match(out.join(""), /^init: --group "Example" is not a DNS subdomain/);
    assert.match(out.join(""), /usage: init DIR --group GROUP --kind KIND/);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(parent)), []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("init: a directory that is not empty, or is a file, is refused before anything is written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-init-args-" });
  try {
    await Deno.writeTextFile(join(dir, "notes.txt"), "mine");
    const out: string[] = [];
    const code = await init([dir, "--group", "example.com", "--kind", "Widget"], (_s, t) => void out.push(t));
    assert.equal(code, 2);
    assert.match(out.join(""), /project directory ".*" is not empty \(it holds notes\.txt\)/);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), ["notes.txt"]);
    await Deno.writeTextFile(join(dir, "notes"), "mine");
    const fileOut: string[] = [];
    assert.equal(await init([join(dir, "notes"), ...base.slice(1)], (_s, t) => void fileOut.push(t)), 2);
    assert.match(fileOut.join(""), /project directory ".*notes" is a file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--help exits 0 with the usage on stdout", async () => {
  const out: [string, string][] = [];
  assert.equal(await init(["--help"], (s, t) => void out.push([s, t])), 0);
  assert.equal(out[0]?.[0], "stdout");
  assert.match(out[0]?.[1] ?? "", /--namespaced\s+true for namespaced objects/);
});
