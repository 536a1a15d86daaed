// The credential scan that ends every full test run: it must fail when a registered credential was
// planted in a log, in the forms leaks take, and never print the credential itself.
import assert from "node:assert/strict";
import { join } from "node:path";
import { NeedleIndex, needlesOf } from "../_util/secret_scan.ts";
import { newLogPath, registerSecret } from "../_util/test_logs.ts";

const scanner = new URL("./scan_logs.ts", import.meta.url).pathname;

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A JWT-shaped token with a random 256-byte signature, like a TokenRequest token. */
function fakeToken(): string {
  const header = b64url(new TextEncoder().encode('{"alg":"RS256","kid":"test"}'));
  const claims = b64url(
    new TextEncoder().encode(`{"sub":"system:serviceaccount:x:y","n":"${crypto.randomUUID()}"}`),
  );
  return `${header}.${claims}.${b64url(crypto.getRandomValues(new Uint8Array(256)))}`;
}

/** A fresh EC private key in PKCS#8 PEM. */
async function fakeKeyPem(): Promise<string> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const body = btoa(String.fromCharCode(...der)).match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`;
}

/** Runs the scanner CLI exactly as tests/run.sh does. */
async function scan(root: string, ...args: string[]): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", scanner, root, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "kubeloop-scan-" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** A realistic controller log with a plant in the middle. */
function logWith(plant: string): string {
  const lines = [];
  for (let i = 0; i < 200; i++) {
    lines.push(JSON.stringify({ level: "info", msg: "Synced", key: `ns/foo-${i}`, ts: Date.now() }));
  }
  lines.splice(120, 0, plant);
  return lines.join("\n") + "\n";
}

Deno.test("credential scan: a clean log passes and says what it covered", async () => {
  await withRoot(async (root) => {
    registerSecret(fakeToken(), "token A", root);
    registerSecret(await fakeKeyPem(), "key B", root);
    await Deno.writeTextFile(newLogPath("controller", root)!, logWith('{"msg":"nothing secret"}'));
    const r = await scan(root, "--min-secrets=2");
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /1 log files .* searched for 2 credentials/);
  });
});

Deno.test("credential scan: a planted token fails the run, named by file, line and label, never printed", async () => {
  await withRoot(async (root) => {
    const token = fakeToken();
    registerSecret(token, "TokenRequest token for kubeloop-system/kubeloop-sample-controller", root);
    const path = newLogPath("controller", root)!;
    await Deno.writeTextFile(
      path,
      logWith(JSON.stringify({ level: "debug", msg: "request", auth: `Bearer ${token}` })),
    );
    const r = await scan(root);
    assert.equal(r.code, 1, r.output);
    assert.match(
      r.output,
      /LEAK: logs\/controller-[0-9a-f]{8}\.log:121: TokenRequest token for kubeloop-system/,
    );
    assert.ok(
      !r.output.includes(token.split(".")[2]!.slice(0, 32)),
      "the scan must not leak the token itself",
    );
  });
});

Deno.test("credential scan: a token cut short by a line limit is still found", async () => {
  await withRoot(async (root) => {
    const token = fakeToken();
    registerSecret(token, "token", root);
    await Deno.writeTextFile(
      newLogPath("p", root)!,
      logWith(`error: ${token.slice(0, token.length - 200)}…`),
    );
    assert.equal((await scan(root)).code, 1);
  });
});

Deno.test("credential scan: a private key is found as one PEM line, JSON-escaped, or as kubeconfig base64", async (t) => {
  const key = await fakeKeyPem();
  const line = key.split("\n")[2]!;
  const forms: Record<string, string> = {
    "one PEM line": `unexpected input near "${line}"`,
    "JSON-escaped PEM": JSON.stringify({ msg: "config", value: key }),
    "kubeconfig client-key-data (base64 of the PEM), cut at 80 characters": btoa(key).slice(40, 120),
  };
  for (const [name, plant] of Object.entries(forms)) {
    await t.step(name, async () => {
      await withRoot(async (root) => {
        registerSecret(key, "minted client key", root);
        await Deno.writeTextFile(newLogPath("testenv", root)!, logWith(plant));
        const r = await scan(root);
        assert.equal(r.code, 1, r.output);
        assert.match(r.output, /LEAK: .*: minted client key/);
      });
    });
  }
});

Deno.test("credential scan: logs in nested directories (the control plane's) are scanned, other files are not", async () => {
  await withRoot(async (root) => {
    const key = await fakeKeyPem();
    registerSecret(key, "testenv admin.key", root);
    const state = join(root, "logs", "testenv-1");
    await Deno.mkdir(state, { recursive: true });
    await Deno.writeTextFile(join(state, "admin.key"), key); // key material is not a log
    assert.equal((await scan(root)).code, 0);
    await Deno.writeTextFile(join(state, "kube-apiserver.log"), `I1201 serving ${key}`);
    const r = await scan(root);
    assert.equal(r.code, 1);
    assert.match(r.output, /logs\/testenv-1\/kube-apiserver\.log:2: testenv admin\.key/);
  });
});

Deno.test("credential scan: a run that registered fewer credentials than expected fails (it would prove nothing)", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(newLogPath("p", root)!, "hello\n");
    const r = await scan(root, "--min-secrets=1");
    assert.equal(r.code, 2);
    assert.match(r.output, /only 0 credentials registered/);
  });
});

Deno.test("credential scan: the rolling-hash search agrees with a plain substring search", () => {
  const secrets = Array.from({ length: 20 }, (_, i) => ({ label: `s${i}`, value: fakeToken() }));
  const index = new NeedleIndex(secrets.flatMap(needlesOf));
  const noise = b64url(crypto.getRandomValues(new Uint8Array(20_000)));
  assert.deepEqual(index.search(noise), []);
  const planted = noise.slice(0, 5000) + secrets[7]!.value + noise.slice(5000);
  assert.deepEqual(index.search(planted).map((h) => h.label), ["s7"]);
});
