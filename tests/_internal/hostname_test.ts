import assert from "node:assert/strict";
import { hostnameOr } from "../../lib/_internal/hostname.ts";

Deno.test({
  name: "hostnameOr returns the machine's hostname when it may be read",
  permissions: { sys: ["hostname"] },
  fn() {
    assert.equal(hostnameOr("fallback"), Deno.hostname());
    assert.notEqual(hostnameOr("fallback"), "");
  },
});

Deno.test({
  name: "hostnameOr returns the fallback instead of throwing without --allow-sys=hostname",
  permissions: { sys: false },
  fn() {
    assert.throws(() => Deno.hostname(), Deno.errors.NotCapable);
    assert.equal(hostnameOr("candidate-7f3a"), "candidate-7f3a");
  },
});
