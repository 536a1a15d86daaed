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
      /expirationTimestamp "soon" is not a time/,
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
