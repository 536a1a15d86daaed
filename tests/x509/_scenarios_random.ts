// Seeded random chains: zero to three intermediates, each CA (the root included) with a random path
// length, extended key usage, name constraints, basicConstraints, key usage, critical extension and
// dates; a leaf with random SANs and usage; a random name; the intermediates shuffled, one sometimes
// missing, a forger's CA sometimes added; sometimes a second certificate of a CA (same name and key,
// other constraints), so that there are two paths. Only what kubeloop means to decide exactly as Go
// does: no IPv4-mapped ranges among the constraints (see _scenarios_names.ts).
import type { GeneralNameText } from "./_builder.ts";
import { type Changes, EXPIRED, type Issuer, NOW, type Scenario, type World } from "./_path_world.ts";

const NAME_CONSTRAINTS = [
  "dns:example.com",
  "dns:.example.com",
  "dns:api.example.com",
  "dns:other.test",
  "dns:",
  "dns:API.Example.COM",
  "dns:com",
  "email:example.com",
  "email:ops@example.com",
  "email:.example.com",
  "uri:.example.com",
  "uri:api.example.com",
  "dn:CN=x",
];
const IP_CONSTRAINTS = [
  "ip:10.0.0.0/8",
  "ip:10.1.0.0/16",
  "ip:192.168.0.0/16",
  "ip:fd00::/8",
  "ip:0.0.0.0/0",
  "ip:::/0",
  "ip:10.1.2.3/32",
];
const SANS = [
  "dns:api.example.com",
  "dns:www.other.test",
  "dns:*.example.com",
  "dns:example.com",
  "ip:10.1.2.3",
  "ip:192.168.1.1",
  "ip:fd00::1",
  "ip:::ffff:10.1.2.3",
  "email:ops@example.com",
  "email:OPS@API.example.com",
  "uri:https://api.example.com/x",
  "uri:spiffe://example.com/ns/x",
  "uri:urn:x",
  "uri:https://user@api.example.com:8443/",
  "dns:*.api.example.com",
  "dns:API.EXAMPLE.COM",
];
const NAMES = ["api.example.com", "x.example.com", "example.com", "www.other.test", "10.1.2.3", "fd00::1"];
const EKUS = [["serverAuth"], ["clientAuth"], ["any"], ["clientAuth", "serverAuth"], ["1.3.6.1.4.1.99999.2"]];

/** `count` random scenarios drawn from `random`. */
export async function randomScenarios(w: World, random: () => number, count: number): Promise<Scenario[]> {
  const chance = (p: number) => random() < p;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const some = <T>(list: readonly T[], max: number): T[] => {
    const n = 1 + Math.floor(random() * max);
    return [...new Set(Array.from({ length: n }, () => pick(list)))];
  };

  function caChanges(): Changes {
    const c: Record<string, unknown> = {};
    if (chance(0.3)) c.pathLen = pick([0, 1, 2, 3]);
    if (chance(0.25)) c.eku = pick(EKUS);
    if (chance(0.25)) {
      const pool = [...NAME_CONSTRAINTS, ...IP_CONSTRAINTS];
      c.nameConstraints = {
        ...(chance(0.7) && { permitted: some(pool, 3) }),
        ...(chance(0.5) && { excluded: some(pool, 2) }),
        critical: chance(0.5),
      };
      if (!("permitted" in (c.nameConstraints as object)) && !("excluded" in (c.nameConstraints as object))) {
        c.nameConstraints = { permitted: some(pool, 2) };
      }
    }
    if (chance(0.06)) {
      c.extensions = [{ oid: "1.3.6.1.4.1.99999.1", critical: true, value: Uint8Array.of(5, 0) }];
    }
    if (chance(0.06)) c.ca = pick([false, undefined]);
    if (chance(0.06)) c.keyUsage = ["digitalSignature"];
    else if (chance(0.1)) c.keyUsage = undefined;
    if (chance(0.04)) Object.assign(c, EXPIRED);
    return c as Changes;
  }

  const out: Scenario[] = [];
  for (let n = 1; n <= count; n++) {
    const depth = pick([0, 1, 1, 2, 2, 3]);
    const parts: string[] = [];
    const rootChanges = caChanges();
    parts.push(`root${describe(rootChanges)}`);
    const roots = [await w.selfSigned(rootChanges)];
    if (chance(0.12)) {
      // A second certificate of the root (same name and key), with other constraints: two paths.
      const other = caChanges();
      parts.push(`second root${describe(other)}`);
      roots.push(await w.selfSigned(other));
    }
    let issuer: Issuer = w.root;
    const cas: Uint8Array[] = [];
    for (let level = 1; level <= depth; level++) {
      const subject = {
        subject: `random intermediate ${level}`,
        key: level % 2 === 1 ? w.intKey : w.int2Key,
      };
      const changes = caChanges();
      parts.push(`int${level}${describe(changes)}`);
      cas.push(await w.ca(changes, subject, issuer));
      if (chance(0.12)) {
        const other = caChanges();
        parts.push(`second int${level}${describe(other)}`);
        cas.push(await w.ca(other, subject, issuer));
      }
      issuer = subject;
    }
    const leafChanges: Changes = {
      sans: some(SANS, 3),
      eku: chance(0.8) ? ["serverAuth"] : pick([undefined, ...EKUS]),
      ...(chance(0.04) && EXPIRED),
    };
    parts.push(`leaf${describe(leafChanges)}`);
    const leaf = await w.leaf(leafChanges, issuer);
    const intermediates = shuffle(cas, random);
    if (intermediates.length > 0 && chance(0.08)) {
      intermediates.splice(Math.floor(random() * intermediates.length), 1);
      parts.push("one intermediate missing");
    }
    if (chance(0.1)) {
      intermediates.push(await w.selfSigned({}, w.rogue));
      parts.push("a forger's root presented");
    }
    const leafNames = (leafChanges.sans ?? []).filter((s) => /^(dns|ip):[^*]*$/.test(s)).map((s) =>
      s.slice(s.indexOf(":") + 1)
    );
    const name = leafNames.length > 0 && chance(0.85) ? pick(leafNames) : pick(NAMES);
    out.push({
      id: `random ${n}: ${parts.join(" > ")} @ ${name}`,
      roots,
      intermediates,
      leaf,
      name,
      now: NOW,
    });
  }
  return out;
}

function describe(changes: Changes): string {
  const shown = Object.entries(changes).filter(([k]) => k !== "notBefore").map(([k, v]) =>
    `${k}=${k === "notAfter" ? "expired" : JSON.stringify(v as GeneralNameText)}`
  );
  return shown.length === 0 ? "" : `{${shown.join(", ")}}`;
}

function shuffle<T>(list: readonly T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
