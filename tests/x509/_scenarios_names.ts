// Scenarios of name constraints (RFC 5280 4.2.1.10) on the configured root and on intermediates:
// DNS names and IP ranges, permitted and excluded, critical or not; and the email and URI names Go
// checks as well.
import { ask } from "./_scenarios_basic.ts";
import type { GeneralNameText } from "./_builder.ts";
import type { Scenario, World } from "./_path_world.ts";

interface Constraints {
  readonly permitted?: readonly GeneralNameText[];
  readonly excluded?: readonly GeneralNameText[];
  readonly critical?: boolean;
}

const IRREGULAR =
  "an IP range with host bits set, or an IPv4-mapped IPv6 range, refuses the addresses of its " +
  "family: Go's sorted search can miss a range then, and this check must not find one Go would not";

/** Name constraints on the root, then on an intermediate. */
export async function nameScenarios(w: World): Promise<Scenario[]> {
  const root = await w.selfSigned();
  /** The root carries `nc`; it issued a leaf with `sans`, asked for `name` (the first SAN's value). */
  const underRoot = async (
    id: string,
    nc: Constraints,
    sans: GeneralNameText[],
    name?: string,
    stricter?: string,
  ) =>
    ask(id, {
      roots: [await w.selfSigned({ nameConstraints: nc })],
      leaf: await w.leaf({ sans }),
      name: name ?? sans[0]!.slice(sans[0]!.indexOf(":") + 1),
      ...(stricter !== undefined && { stricter }),
    });
  const underInt = async (id: string, nc: Constraints, sans: GeneralNameText[], name?: string) =>
    ask(id, {
      roots: [root],
      intermediates: [await w.ca({ nameConstraints: nc })],
      leaf: await w.leaf({ sans }, w.int),
      name: name ?? sans[0]!.slice(sans[0]!.indexOf(":") + 1),
    });
  const example = { permitted: ["dns:example.com"] };
  return [
    await underRoot("the root permits example.com: api.example.com", example, ["dns:api.example.com"]),
    await underRoot("the root permits example.com: evil.test", example, ["dns:evil.test"]),
    await underRoot(
      "the root permits example.com (not critical): evil.test",
      { ...example, critical: false },
      [
        "dns:evil.test",
      ],
    ),
    await underRoot("the root permits example.com: example.com itself", example, ["dns:example.com"]),
    await underRoot("the root permits example.com: api.notexample.com", example, ["dns:api.notexample.com"]),
    await underRoot("the root permits EXAMPLE.com: api.example.com", { permitted: ["dns:EXAMPLE.com"] }, [
      "dns:api.example.com",
    ]),
    await underRoot("the root permits .example.com: example.com", { permitted: ["dns:.example.com"] }, [
      "dns:example.com",
    ]),
    await underRoot("the root permits .example.com: api.example.com", { permitted: ["dns:.example.com"] }, [
      "dns:api.example.com",
    ]),
    await underRoot("the root excludes api.example.com", { excluded: ["dns:api.example.com"] }, [
      "dns:api.example.com",
    ]),
    await underRoot("the root excludes other.example.com: api.example.com", {
      excluded: ["dns:other.example.com"],
    }, [
      "dns:api.example.com",
    ]),
    await underRoot(
      "the root permits example.com and excludes api.example.com",
      { permitted: ["dns:example.com"], excluded: ["dns:api.example.com"] },
      ["dns:api.example.com"],
    ),
    await underRoot(
      "every SAN of the leaf is constrained, not only the name asked for",
      example,
      ["dns:api.example.com", "dns:evil.test"],
    ),
    await underRoot("a wildcard SAN under an excluded name", { excluded: ["dns:bad.example.com"] }, [
      "dns:*.example.com",
    ], "good.example.com"),
    await underRoot("a wildcard SAN under one permitted name", { permitted: ["dns:good.example.com"] }, [
      "dns:*.example.com",
    ], "good.example.com"),
    await underRoot("a SAN with a trailing dot under a constraint", example, [
      "dns:api.example.com",
      "dns:api.example.com.",
    ]),
    await underRoot("an empty excluded DNS constraint excludes every name", { excluded: ["dns:"] }, [
      "dns:api.example.com",
    ]),
    await underRoot("an empty permitted DNS constraint permits every name", { permitted: ["dns:"] }, [
      "dns:api.example.com",
    ]),
    await underRoot("the root permits 10.0.0.0/8: 10.1.2.3", { permitted: ["ip:10.0.0.0/8"] }, [
      "ip:10.1.2.3",
    ]),
    await underRoot("the root permits 10.0.0.0/8: 192.168.1.1", { permitted: ["ip:10.0.0.0/8"] }, [
      "ip:192.168.1.1",
    ]),
    await underRoot("the root excludes 10.1.0.0/16: 10.1.2.3", { excluded: ["ip:10.1.0.0/16"] }, [
      "ip:10.1.2.3",
    ]),
    await underRoot("the root permits fd00::/8: fd00::1", { permitted: ["ip:fd00::/8"] }, ["ip:fd00::1"]),
    await underRoot("IPv4 ranges only: an IPv6 SAN is not permitted", { permitted: ["ip:10.0.0.0/8"] }, [
      "ip:10.1.2.3",
      "ip:fd00::1",
    ]),
    await underRoot("DNS constraints only: IP SANs are free", example, [
      "dns:api.example.com",
      "ip:192.168.1.1",
    ]),
    await underRoot("IP constraints only: DNS SANs are free", { permitted: ["ip:10.0.0.0/8"] }, [
      "dns:evil.test",
      "ip:10.1.2.3",
    ]),
    await underRoot("a critical directoryName constraint is not understood", { permitted: ["dn:CN=x"] }, [
      "dns:api.example.com",
    ]),
    await underRoot(
      "a non-critical directoryName constraint is ignored",
      { permitted: ["dn:CN=x"], critical: false },
      ["dns:api.example.com"],
    ),
    await underRoot("an email domain constraint permits the leaf's address", {
      permitted: ["email:example.com"],
    }, [
      "dns:api.example.com",
      "email:ops@example.com",
    ]),
    await underRoot("an email constraint excludes the leaf's address", {
      excluded: ["email:ops@example.com"],
    }, [
      "dns:api.example.com",
      "email:ops@example.com",
    ]),
    await underRoot(
      "an email domain constraint and a quoted local part",
      { permitted: ["email:example.com"] },
      [
        "dns:api.example.com",
        'email:"ops team"@example.com',
      ],
      undefined,
      "under a name constraint, only plain local@domain email addresses are read (no quoted or " +
        "escaped local parts), so that none is read one way here and another way in Go",
    ),
    await underRoot("a URI constraint permits the leaf's URI host", { permitted: ["uri:.example.com"] }, [
      "dns:api.example.com",
      "uri:https://api.example.com/x",
    ]),
    await underRoot(
      "a URI constraint does not permit the leaf's URI host",
      { permitted: ["uri:other.test"] },
      [
        "dns:api.example.com",
        "uri:https://api.example.com/x",
      ],
    ),
    await underRoot("a URI without a host under DNS constraints", example, [
      "dns:api.example.com",
      "uri:urn:kubeloop:x",
    ]),
    await underInt("the intermediate permits example.com: evil.test", example, ["dns:evil.test"]),
    await underInt("the intermediate permits example.com (not critical): evil.test", {
      ...example,
      critical: false,
    }, [
      "dns:evil.test",
    ]),
    await underInt("the intermediate excludes 10.0.0.0/8 (not critical): 10.1.2.3", {
      excluded: ["ip:10.0.0.0/8"],
      critical: false,
    }, ["ip:10.1.2.3"]),
    ask("the root's constraints apply to the intermediate's own SANs", {
      roots: [await w.selfSigned({ nameConstraints: example })],
      intermediates: [await w.ca({ sans: ["dns:evil.test"] })],
      leaf: await w.leaf({}, w.int),
    }),
    ask("an intermediate's constraints do not apply to its own SANs", {
      roots: [root],
      intermediates: [await w.ca({ sans: ["dns:evil.test"], nameConstraints: example })],
      leaf: await w.leaf({}, w.int),
    }),
    ask("constraints of the root and the intermediate both apply", {
      roots: [await w.selfSigned({ nameConstraints: example })],
      intermediates: [await w.ca({ nameConstraints: { excluded: ["dns:api.example.com"] } })],
      leaf: await w.leaf({}, w.int),
    }),
    await underRoot("IPv4 ranges only: an IPv4-mapped IPv6 SAN is not permitted", {
      permitted: ["ip:10.0.0.0/8"],
    }, [
      "ip:::ffff:10.1.2.3",
    ], "10.1.2.3"),
    await underRoot("an IPv4-mapped range among IPv6 ranges Go searches past", {
      permitted: ["ip:::/0", "ip:::ffff:10.0.0.0/104"],
    }, ["ip:fd00::1"]),
    await underRoot(
      "an IPv4-mapped range among IPv6 ranges",
      {
        permitted: ["ip:::ffff:10.0.0.0/104", "ip:fd00::/8"],
      },
      ["ip:fd00::1"],
      undefined,
      IRREGULAR,
    ),
    await underRoot(
      "a permitted range with host bits set",
      { permitted: ["ip:10.0.0.5/8"] },
      [
        "ip:10.0.0.1",
      ],
      undefined,
      IRREGULAR,
    ),
    ask("a leaf without SANs under constraints", {
      roots: [root],
      intermediates: [await w.ca({ nameConstraints: example })],
      leaf: await w.leaf({ sans: undefined }, w.int),
    }),
  ];
}
