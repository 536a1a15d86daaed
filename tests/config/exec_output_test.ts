import assert from "node:assert/strict";
import { ConfigError, type ExecConfig, ExecCredentialSource } from "../../lib/config/mod.ts";
import { scriptedRunner } from "./_helpers.ts";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";
const exec: ExecConfig = {
  apiVersion: V1,
  command: "/bin/plugin",
  args: [],
  env: [],
  provideClusterInfo: false,
};

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(() => assert.fail("expected a rejection"), (e: unknown) => e);
  assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
  return error;
}

Deno.test("bad plugin output is an ExecFailed error that says what is wrong", async () => {
  const cases: [string, RegExp][] = [
    ["not json", /its output is not JSON/],
    [JSON.stringify({ apiVersion: V1, kind: "Other", status: { token: "t" } }), /not an ExecCredential/],
    [
      JSON.stringify({ apiVersion: V1BETA1, kind: "ExecCredential", status: { token: "t" } }),
      /answered with apiVersion/,
    ],
    [JSON.stringify({ apiVersion: V1, kind: "ExecCredential" }), /has no status/],
    [JSON.stringify({ apiVersion: V1, kind: "ExecCredential", status: {} }), /neither a token nor/],
    [
      JSON.stringify({ apiVersion: V1, kind: "ExecCredential", status: { clientCertificateData: "C" } }),
      /both/,
    ],
    [
      JSON.stringify({
        apiVersion: V1,
        kind: "ExecCredential",
        status: { token: "t", expirationTimestamp: "soon" },
      }),
      /expirationTimestamp is not an RFC 3339 time/,
    ],
  ];
  for (const [stdout, message] of cases) {
    const { run } = scriptedRunner({ code: 0, stdout, stderr: "" });
    const error = await rejection(
      new ExecCredentialSource(exec, { user: "u", runCommand: run }).get(),
    );
    assert.equal(error.reason, "ExecFailed", stdout);
    assert.match(error.message, message, stdout);
  }
});

Deno.test("bad plugin output is never quoted in the error, since it may be a raw token", async () => {
  const secret = "SECRET-TOKEN-abc123";
  const cases: [string, RegExp][] = [
    [secret, /its output is not JSON \(19 characters; the output is not shown/],
    [`{"token": "${secret}"`, /its output is not JSON/],
    [
      JSON.stringify({ apiVersion: secret, kind: "ExecCredential", status: { token: "t" } }),
      /an invalid apiVersion/,
    ],
    [JSON.stringify({ kind: "ExecCredential", status: { token: secret } }), /answered with no apiVersion/],
    [
      JSON.stringify({
        apiVersion: V1,
        kind: "ExecCredential",
        status: { token: "t", expirationTimestamp: secret },
      }),
      /status\.expirationTimestamp is not an RFC 3339 time/,
    ],
  ];
  for (const [stdout, message] of cases) {
    const { run } = scriptedRunner({ code: 0, stdout, stderr: "" });
    const error = await rejection(new ExecCredentialSource(exec, { user: "u", runCommand: run }).get());
    assert.match(error.message, message, stdout);
    assert.doesNotMatch(error.message, /SECRET/, stdout);
  }
  const { run } = scriptedRunner({ code: 0, stdout: " \n", stderr: "" });
  const empty = await rejection(new ExecCredentialSource(exec, { user: "u", runCommand: run }).get());
  assert.match(empty.message, /its output is not JSON \(it printed nothing;/);
});

Deno.test("a wrong but well-formed apiVersion is named, to help fix the exec config", async () => {
  const stdout = JSON.stringify({ apiVersion: V1BETA1, kind: "ExecCredential", status: { token: "t" } });
  const { run } = scriptedRunner({ code: 0, stdout, stderr: "" });
  const error = await rejection(new ExecCredentialSource(exec, { user: "u", runCommand: run }).get());
  assert.match(
    error.message,
    /answered with apiVersion "client\.authentication\.k8s\.io\/v1beta1", but client\.authentication\.k8s\.io\/v1 was configured$/,
  );
});
