// Scenarios of the constraints every CA on the path carries, the configured root included:
// basicConstraints and path length, key usage, unknown critical extensions, extended key usage nesting,
// certificate policies, and chains with more than one candidate path.
import { implicitPrimitive, oid, sequence } from "../../lib/x509/der_writer.ts";
import { ask } from "./_scenarios_basic.ts";
import type { Extension } from "./_builder.ts";
import type { Changes, Scenario, World } from "./_path_world.ts";

const unknown = (critical: boolean): Extension => ({
  oid: "1.3.6.1.4.1.99999.1",
  critical,
  value: Uint8Array.of(5, 0),
});
const policies = (...ids: string[]): Extension => ({
  oid: "2.5.29.32",
  critical: false,
  value: sequence(...ids.map((id) => sequence(oid(id)))),
});
/** policyConstraints requireExplicitPolicy 0: from this CA down, every certificate needs a policy. */
const requireExplicitPolicy: Extension = {
  oid: "2.5.29.36",
  critical: true,
  value: sequence(implicitPrimitive(0, Uint8Array.of(0))),
};
const mapping = (from: string, to: string): Extension => ({
  oid: "2.5.29.33",
  critical: true,
  value: sequence(sequence(oid(from), oid(to))),
});
const ANY_POLICY = "2.5.29.32.0";
const POLICY = "1.3.6.1.4.1.99999.7.1";
const NO_POLICIES =
  "certificate policies are not processed: a policy constraint below the configured CA refuses the chain " +
  "rather than being half-checked";

/** The constraints of the configured root and of the intermediates. */
export async function caScenarios(w: World): Promise<Scenario[]> {
  const root = await w.selfSigned();
  const int = await w.ca();
  const viaInt = () => w.leaf({}, w.int);
  /** root (with `rootChanges`) → intermediate (with `intChanges`) → leaf (with `leafChanges`). */
  const chain = async (
    id: string,
    rootChanges: Changes,
    intChanges: Changes = {},
    leafChanges: Changes = {},
  ) =>
    ask(id, {
      roots: [await w.selfSigned(rootChanges)],
      intermediates: [await w.ca(intChanges)],
      leaf: await w.leaf(leafChanges, w.int),
    });
  const deep: Uint8Array[] = [];
  let above = w.root;
  for (let i = 1; i <= 9; i++) {
    const subject = { subject: `kubeloop test intermediate level ${i}`, key: w.intKey };
    deep.push(await w.ca({}, subject, above));
    above = subject;
  }
  const selfIssued = { subject: w.int.subject, key: w.int2Key };
  return [
    await chain("the root's path length 0 above an intermediate", { pathLen: 0 }),
    ask("the root's path length 0, issuing the leaf itself", {
      roots: [await w.selfSigned({ pathLen: 0 })],
      leaf: await w.leaf(),
    }),
    ask("the root's path length 1 above two intermediates", {
      roots: [await w.selfSigned({ pathLen: 1 })],
      intermediates: [int, await w.ca({}, w.int2, w.int)],
      leaf: await w.leaf({}, w.int2),
    }),
    await chain("the root's path length 1 above one intermediate", { pathLen: 1 }),
    ask("an intermediate's path length 0 above another intermediate", {
      roots: [root],
      intermediates: [await w.ca({ pathLen: 0 }), await w.ca({}, w.int2, w.int)],
      leaf: await w.leaf({}, w.int2),
    }),
    ask("a self-issued intermediate (a re-keyed one) counts toward the root's path length, as in Go", {
      roots: [await w.selfSigned({ pathLen: 1 })],
      intermediates: [int, await w.ca({}, selfIssued, w.int)],
      leaf: await w.leaf({}, selfIssued),
    }),
    await chain("the root has an unknown critical extension", { extensions: [unknown(true)] }),
    await chain("the root has an unknown non-critical extension", { extensions: [unknown(false)] }),
    await chain("the intermediate has an unknown critical extension", {}, { extensions: [unknown(true)] }),
    await chain("the root's extended key usage is clientAuth only", { eku: ["clientAuth"] }),
    await chain("the root's extended key usage is serverAuth", { eku: ["serverAuth"] }),
    await chain("the root's extended key usage is anyExtendedKeyUsage", { eku: ["any"] }),
    await chain("the root's extended key usage is clientAuth, the leaf's any", { eku: ["clientAuth"] }, {}, {
      eku: ["any"],
    }),
    await chain("the intermediate's extended key usage is clientAuth only", {}, { eku: ["clientAuth"] }),
    await chain("the intermediate's extended key usage is serverAuth, the leaf has none", {}, {
      eku: ["serverAuth"],
    }, { eku: undefined }),
    await chain("the intermediate's extended key usage is an unknown purpose", {}, {
      eku: ["1.3.6.1.4.1.99999.2"],
    }),
    await chain("the root is not a CA (cA false)", { ca: false }),
    await chain("the root is X.509 v3 without basicConstraints", { ca: undefined }),
    await chain("the root is X.509 v1", { version: 1 }),
    await chain("the root's key usage lacks keyCertSign", { keyUsage: ["digitalSignature", "cRLSign"] }),
    await chain("the root has no key usage", { keyUsage: undefined }),
    await chain("the intermediate is not a CA (cA false)", {}, { ca: false }),
    await chain("the intermediate is X.509 v3 without basicConstraints", {}, { ca: undefined }),
    await chain("the intermediate is X.509 v1", {}, { version: 1 }),
    await chain("the intermediate's key usage lacks keyCertSign", {}, { keyUsage: ["digitalSignature"] }),
    ask("nine intermediates", {
      roots: [root],
      intermediates: deep,
      leaf: await w.leaf({}, above),
      stricter: "at most 8 intermediates are followed, so a hostile chain cannot make the search long",
    }),
    ask("two certificates of the intermediate: the first clientAuth only, the second good", {
      roots: [root],
      intermediates: [await w.ca({ eku: ["clientAuth"] }), int],
      leaf: await viaInt(),
    }),
    ask("two paths: through a root that excludes the name, and through another root", {
      roots: [
        await w.selfSigned({ nameConstraints: { excluded: ["dns:example.com"] } }),
        await w.selfSigned({}, w.int2),
      ],
      intermediates: [int, await w.ca({}, w.int, w.int2)],
      leaf: await viaInt(),
    }),
    ...await policyScenarios(w, root),
  ];
}

async function policyScenarios(w: World, root: Uint8Array): Promise<Scenario[]> {
  const withInt = async (
    id: string,
    intExtensions: Extension[],
    leafExtensions: Extension[],
    stricter?: string,
  ) =>
    ask(id, {
      roots: [root],
      intermediates: [await w.ca({ extensions: intExtensions })],
      leaf: await w.leaf({ extensions: leafExtensions }, w.int),
      ...(stricter !== undefined && { stricter }),
    });
  return [
    await withInt(
      "the intermediate requires an explicit policy, the leaf has none",
      [requireExplicitPolicy],
      [],
    ),
    await withInt(
      "the intermediate requires an explicit policy, and the path has one",
      [
        policies(POLICY),
        requireExplicitPolicy,
      ],
      [policies(POLICY)],
      NO_POLICIES,
    ),
    await withInt("the intermediate maps one policy to another", [
      policies(POLICY),
      mapping(POLICY, `${POLICY}.2`),
    ], [
      policies(`${POLICY}.2`),
    ]),
    await withInt("the intermediate maps anyPolicy", [policies(ANY_POLICY), mapping(ANY_POLICY, POLICY)], []),
    await withInt("certificate policies everywhere, no constraints", [policies(ANY_POLICY)], [
      policies(POLICY),
    ]),
    ask("the root requires an explicit policy (Go does not apply the anchor's)", {
      roots: [await w.selfSigned({ extensions: [requireExplicitPolicy] })],
      leaf: await w.leaf(),
    }),
  ];
}
