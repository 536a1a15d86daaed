// docs/controllers.md lists the built-in kinds kubeloop ships types for, so a reader knows when to generate
// more; the list is held to CORE_KINDS here, so neither can change without the other.
import assert from "node:assert/strict";
import { CORE_KINDS } from "../../lib/codegen/mod.ts";

Deno.test("docs/controllers.md names exactly the typed built-in kinds", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/controllers.md", import.meta.url));
  const sentence = doc.replace(/\s+/g, " ").match(/The typed built-in kinds are ([^.]+)\./)?.[1];
  assert.ok(sentence, "the sentence listing the kinds is there");
  const listed = sentence.split(/, | and /).map((k) => k.trim()).sort();
  assert.deepEqual(listed, CORE_KINDS.map((k) => k.kind).sort());
});
