// The rotation protocol, transition by transition and over simulated years: pure, no keys, no sockets.
import assert from "node:assert/strict";
import {
  INITIAL_ROTATION_STATE,
  nextAction,
  type RotationState,
  step,
} from "../../lib/webhook_certs/rotation_state.ts";
import { type StoredRotation, trustBundle } from "../../lib/webhook_certs/stored_rotation.ts";
import { rotationPolicy } from "../../lib/webhook_certs/rotation_policy.ts";
import { CONFIG, DAY, fakeCa, fakeServing, HOSTS, Replica, T0, World, type Write } from "./_world.ts";

const P = CONFIG.policy;
const at = (now: number, leading = true) => ({ now, leading });

function stable(now = T0): StoredRotation {
  const signer = fakeCa(now);
  return { phase: "stable", signer, serving: fakeServing(signer, now) };
}

/** A world whose Secret and caBundles agree on `stored`. */
function settled(stored: StoredRotation, now = T0): World {
  const world = new World();
  world.now = now;
  world.secret = { stored, resourceVersion: "7" };
  world.bundles = trustBundle(stored);
  return world;
}

Deno.test("first start: a CA, then a serving certificate it signs, then a create; the leader publishes the CA", () => {
  const world = new World();
  const r = new Replica(world);
  assert.deepEqual(nextAction(r.state), { kind: "read" });
  r.turn();
  assert.equal(nextAction(r.state).kind, "generateCa");
  r.turn();
  const issue = nextAction(r.state);
  assert.equal(issue.kind, "issueServing");
  r.turn();
  assert.equal(nextAction(r.state).kind, "create");
  r.turn();
  const stored = world.secret!.stored;
  assert.equal(stored.phase, "stable");
  assert.equal(stored.serving!.issuer, stored.signer.cert);
  assert.deepEqual(nextAction(r.state), { kind: "readBundles", bundle: [stored.signer.cert] });
  r.turn();
  assert.deepEqual(nextAction(r.state), { kind: "publishBundles", bundle: [stored.signer.cert] });
  r.turn();
  const wait = r.untilWait();
  assert.deepEqual(world.bundles, [stored.signer.cert]);
  assert.equal(wait.until, T0 + P.checkPeriodMs, "then a check every period");
});

Deno.test("two replicas racing to create the Secret: one create wins, the other reads and serves the winner's", () => {
  const world = new World();
  const a = new Replica(world, false);
  const b = new Replica(world, true);
  // Both find no Secret and generate their own chain before either creates.
  for (let i = 0; i < 3; i++) {
    a.turn();
    b.turn();
  }
  assert.equal(nextAction(a.state).kind, "create");
  assert.equal(nextAction(b.state).kind, "create");
  a.turn(); // a (not leading: creating is the one write any replica makes) wins
  const winner = world.secret!.stored;
  b.turn(); // b's create answers AlreadyExists
  assert.equal(b.state.phase.kind, "reading");
  assert.match(b.notices.at(-1)!.message, /Another replica created the Secret first/);
  b.turn(); // reads the winner's
  assert.equal(b.state.phase.kind, "verifying");
  assert.deepEqual(nextAction(b.state), { kind: "readBundles", bundle: [winner.signer.cert] });
  b.untilWait();
  assert.deepEqual(world.bundles, [winner.signer.cert], "the leader publishes the winner's CA, not its own");
  assert.equal(world.writes.filter((w) => w.kind === "secret").length, 1, "exactly one Secret write");
  // The non-leader, having created, writes nothing else.
  assert.equal(a.untilWait().kind, "wait");
  assert.ok(!a.actions.some((x) => x.kind === "publishBundles" || x.kind === "update"));
});

Deno.test("a replica that does not lead never updates the Secret or a caBundle, whatever it reads", () => {
  const due = stable(T0 - 300 * DAY); // its CA and its serving certificate are due
  const signer = fakeCa(T0);
  const cases: StoredRotation[] = [
    due,
    { phase: "staged", signer, next: fakeCa(T0), serving: fakeServing(signer, T0), publishedAt: T0 - DAY },
    { phase: "switched", signer, previous: "CA-old", serving: fakeServing(signer, T0), since: T0 - DAY },
    { phase: "stable", signer },
    { phase: "stable", signer: { ...signer, notAfter: T0 - 1 }, serving: fakeServing(signer, T0) },
  ];
  for (const stored of cases) {
    const world = settled(stored);
    world.bundles = [];
    const r = new Replica(world, false);
    for (let i = 0; i < 20; i++) r.turn();
    assert.deepEqual(new Set(r.actions.map((x) => x.kind)), new Set(["read", "wait"]), stored.phase);
  }
  const world = new World();
  world.override = {
    kind: "malformed",
    reason: 'data["ca.key"] is not a PEM private key',
    resourceVersion: "3",
  };
  const r = new Replica(world, false);
  for (let i = 0; i < 6; i++) r.turn();
  assert.deepEqual(new Set(r.actions.map((x) => x.kind)), new Set(["read", "wait"]));
  assert.match(r.notices[0]!.message, /the leader replaces it/);
});

Deno.test("a CA rotation: the new CA is published and read back before anything it signed is served", () => {
  const signer = fakeCa(T0);
  const stored: StoredRotation = { phase: "stable", signer, serving: fakeServing(signer, T0 + 240 * DAY) };
  const world = settled(stored, T0 + 244 * DAY); // past 2/3 of the CA's year, the serving certificate fresh
  const r = new Replica(world);
  r.untilWait();
  const staged = world.secret!.stored;
  assert.equal(staged.phase, "staged");
  assert.equal(staged.signer.cert, stored.signer.cert, "the old CA still signs");
  assert.equal(staged.serving, stored.serving, "the serving certificate is unchanged");
  assert.deepEqual(world.bundles, [stored.signer.cert, staged.next.cert], "both CAs published");
  assert.equal(staged.publishedAt, world.now, "recorded once read back");
  const writes = world.writes.map((w) => w.kind);
  assert.deepEqual(writes, ["secret", "bundles", "secret"], "staged, both CAs, publishedAt");

  // Nothing switches before the propagation time has passed.
  const wait = r.untilWait();
  assert.equal(wait.until, world.now + P.propagationMs);
  r.turn(); // the wait
  r.untilWait();
  const switched = world.secret!.stored;
  assert.equal(switched.phase, "switched");
  assert.equal(switched.signer.cert, staged.next.cert);
  assert.equal(switched.serving!.issuer, staged.next.cert, "serving now from the new CA");
  assert.equal(switched.previous, stored.signer.cert);
  assert.deepEqual(world.bundles, [stored.signer.cert, staged.next.cert], "the old CA stays trusted");

  // The old CA leaves the caBundles only after the overlap.
  for (let i = 0; i < 20 && world.secret!.stored.phase === "switched"; i++) r.turn();
  const dropped = world.writes.findLast((w) => w.kind === "secret")!;
  assert.ok(
    dropped.at - world.writes.find((w) => w.kind === "secret" && w.stored.phase === "switched")!.at >=
      P.overlapMs,
  );
  r.untilWait();
  assert.deepEqual(world.bundles, [staged.next.cert]);
  assert.equal(world.secret!.stored.phase, "stable");
});

Deno.test("the switch waits for the caBundles: while they do not read back both CAs, no serving certificate changes", () => {
  const signer = fakeCa(T0);
  const next = fakeCa(T0);
  const stored: StoredRotation = { phase: "staged", signer, next, serving: fakeServing(signer, T0) };
  const world = settled(stored, T0 + DAY);
  world.bundles = [signer.cert]; // the publish keeps failing
  world.faults.set("publishBundles", 1_000);
  const r = new Replica(world);
  for (let i = 0; i < 200; i++) r.turn();
  assert.ok(!r.actions.some((a) => a.kind === "issueServing"), "nothing issued from the new CA");
  assert.equal(world.secret!.stored.serving!.issuer, signer.cert);
  // Someone reverts the caBundles after the publish was recorded: confirmed again before the switch.
  world.faults.clear();
  world.secret = { stored: { ...stored, publishedAt: world.now }, resourceVersion: "99" };
  world.bundles = [signer.cert];
  r.state = INITIAL_ROTATION_STATE;
  r.untilWait();
  const last = world.writes.filter((w) => w.kind === "secret").map((w) => w.kind === "secret" && w.stored);
  assert.ok(
    last.some((s) => s && s.phase === "staged" && s.publishedAt === undefined),
    "publishedAt cleared",
  );
  assert.equal((world.secret.stored as { publishedAt?: number }).publishedAt, world.now, "and set again");
});

Deno.test("a failed caBundle patch is retried with doubling delays up to the check period, then succeeds", () => {
  const stored = stable(T0);
  const world = settled(stored);
  world.bundles = [];
  world.faults.set("publishBundles", 9);
  const r = new Replica(world);
  const delays: number[] = [];
  while (world.bundles.length === 0) {
    const before = world.now;
    const action = r.turn();
    if (action.kind === "wait") delays.push(world.now - before);
  }
  assert.deepEqual(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  assert.ok(r.notices.some((n) => n.level === "warn" && /Writing the caBundles failed/.test(n.message)));
  r.untilWait();
  assert.deepEqual(world.bundles, [stored.signer.cert]);
  assert.equal(r.state.failures, 0, "reset once they read back");
});

Deno.test("caBundles that do not read back what was written: a failure with backoff, never a hot loop", () => {
  const world = settled(stable(T0));
  world.bundles = [];
  world.ignorePublishes = true;
  const r = new Replica(world);
  for (let i = 0; i < 40; i++) r.turn();
  const publishes = r.actions.filter((a) => a.kind === "publishBundles").length;
  const waits = r.actions.filter((a) => a.kind === "wait").length;
  assert.ok(publishes <= waits + 1, `${publishes} publishes, ${waits} waits`);
  assert.ok(world.now - T0 >= 60_000, "the delays grew to the check period");
  assert.ok(r.notices.some((n) => /do not read back what was written/.test(String(n.error))));
});

Deno.test("expiry in the past at start: an expired CA is replaced at once; an expired serving certificate reissued", () => {
  const old = stable(T0 - 400 * DAY);
  const world = settled(old);
  const r = new Replica(world);
  r.untilWait();
  const now = world.secret!.stored;
  assert.equal(now.phase, "stable");
  assert.notEqual(now.signer.cert, old.signer.cert);
  assert.ok(now.signer.notAfter > T0 && now.serving!.issuer === now.signer.cert);
  assert.deepEqual(world.bundles, [now.signer.cert], "no overlap with a CA nobody can use");

  const signer = fakeCa(T0 - 100 * DAY);
  const expiredServing = fakeServing(signer, T0 - 100 * DAY, HOSTS, 10 * DAY);
  const world2 = settled({ phase: "stable", signer, serving: expiredServing });
  const r2 = new Replica(world2);
  r2.untilWait();
  const s2 = world2.secret!.stored;
  assert.equal(s2.signer.cert, signer.cert, "the CA is kept");
  assert.notEqual(s2.serving!.cert, expiredServing.cert);
  assert.equal(world2.writes.filter((w) => w.kind === "bundles").length, 0, "no caBundle change");
});

Deno.test("a restart in any phase of a rotation resumes from the Secret and completes it with the same promises", () => {
  // Reference: one uninterrupted rotation; then the same with a restart after each of its turns.
  const run = (restartAt: number | undefined) => {
    const world = settled(stable(T0), T0 + 244 * DAY);
    const r = new Replica(world);
    for (let i = 0; i < 400; i++) {
      if (i === restartAt) r.restart();
      r.turn();
      const s = world.secret!.stored;
      if (s.phase === "stable" && s.signer.notBefore > T0 && world.bundles.length === 1) break;
    }
    return world;
  };
  const reference = run(undefined);
  const turns = reference.writes.length * 12;
  for (let k = 0; k < turns; k++) {
    const world = run(k);
    const s = world.secret!.stored;
    assert.equal(s.phase, "stable", `restart at turn ${k}`);
    assert.deepEqual(world.bundles, [s.signer.cert], `restart at turn ${k}`);
    checkPromises(world.writes, `restart at turn ${k}`);
  }
});

Deno.test("three simulated years with one leader: rotations on schedule, every promise kept at every write", () => {
  const world = new World();
  // Checked every 10 minutes, so three years take 160,000 turns rather than a million.
  const policy = rotationPolicy({ checkPeriodMs: 600_000, overlapMs: 900_000 });
  const r = new Replica(world, true, { ...CONFIG, policy });
  while (world.now < T0 + 3 * 365 * DAY) r.turn();
  const secrets = world.writes.filter((w): w is Write & { kind: "secret" } => w.kind === "secret");
  const cas = new Set(secrets.map((w) => w.stored.signer.cert));
  const servings = new Set(secrets.map((w) => w.stored.serving?.cert));
  assert.equal(cas.size, 5, "the first CA and one rotation every 243 days");
  // The first, one renewal every 60 days (18), one from each new CA (4).
  assert.ok(servings.size >= 21 && servings.size <= 24, `serving certificates (${servings.size})`);
  for (const w of secrets) {
    const s = w.stored.serving!;
    assert.ok(
      w.at < s.notBefore + (s.notAfter - s.notBefore) * (2 / 3) + policy.checkPeriodMs,
      "never served late",
    );
  }
  checkPromises(world.writes, "three years", policy);
  assert.ok(r.notices.every((n) => n.level !== "error"));
});

Deno.test("malformed: the leader replaces it; foreign: nobody touches it; a conflict reads again", () => {
  const world = new World();
  world.override = {
    kind: "malformed",
    reason: 'data["ca.crt"] is not a PEM certificate',
    resourceVersion: "3",
  };
  const r = new Replica(world);
  r.untilWait();
  assert.equal(world.secret!.stored.phase, "stable");
  assert.match(r.notices[0]!.message, /unusable \(data\["ca.crt"\] is not a PEM certificate\); replacing/);

  const foreign = new World();
  foreign.override = { kind: "foreign", reason: "no kubeloop.dev/webhook-certificates annotation" };
  const f = new Replica(foreign);
  for (let i = 0; i < 10; i++) f.turn();
  assert.deepEqual(new Set(f.actions.map((a) => a.kind)), new Set(["read", "wait"]));
  assert.equal(f.notices[0]!.level, "error");

  const s: RotationState = {
    phase: { kind: "updating", stored: stable(), resourceVersion: "1" },
    failures: 0,
  };
  assert.deepEqual(step(s, { kind: "conflict" }, CONFIG, at(T0)).state.phase, { kind: "reading" });
});

Deno.test("the serving certificate is reissued for new names, and when leadership is lost nothing more is written", () => {
  const world = settled(stable(T0), T0 + DAY);
  const r = new Replica(world, true, { ...CONFIG, hosts: [...HOSTS, "127.0.0.1"] });
  r.untilWait();
  assert.deepEqual(world.secret!.stored.serving!.hosts, [...HOSTS, "127.0.0.1"]);

  const due = settled(stable(T0), T0 + 244 * DAY);
  const l = new Replica(due);
  l.turn(); // read
  l.leading = false; // the Lease is lost while the caBundles are read
  l.untilWait();
  assert.ok(!l.actions.some((a) => a.kind === "generateCa" || a.kind === "update"));
});

Deno.test("an input the phase cannot receive is reported as a bug and recovered from by reading again", () => {
  const t = step(INITIAL_ROTATION_STATE, { kind: "published" }, CONFIG, at(T0));
  assert.equal(t.notice?.level, "error");
  assert.match(t.notice!.message, /Rotation bug: input "published" in phase "reading"/);
  assert.deepEqual(t.state.phase, { kind: "waiting", until: T0 + P.retryMs });
});

/**
 * The promises, checked on the log of writes from the first publish on:
 * - a Secret write that changes the serving certificate's CA happens only when the caBundles have held that
 *   CA for at least the propagation time;
 * - a CA leaves the caBundles only when no serving certificate it signed has been in the Secret for at
 *   least the overlap;
 * - the caBundles always hold the CA of the Secret's serving certificate, from the first publish on.
 */
function checkPromises(writes: readonly Write[], label: string, policy = P): void {
  let bundles: readonly string[] = [];
  const since = new Map<string, number>(); // CA → when it entered the caBundles
  let servingCa: string | undefined;
  const lastServedBy = new Map<string, number>(); // CA → last time a certificate it signed was stored
  for (const w of writes) {
    if (w.kind === "bundles") {
      for (const ca of bundles) {
        if (w.bundle.includes(ca)) continue;
        assert.ok(
          w.at - (lastServedBy.get(ca) ?? -Infinity) >= policy.overlapMs,
          `${label}: ${ca} dropped early`,
        );
        since.delete(ca);
      }
      for (const ca of w.bundle) if (!since.has(ca)) since.set(ca, w.at);
      bundles = w.bundle;
      if (servingCa) assert.ok(bundles.includes(servingCa), `${label}: serving CA not trusted`);
      continue;
    }
    const ca = w.stored.serving?.issuer;
    if (ca === undefined) continue;
    if (servingCa !== undefined && ca !== servingCa && bundles.length > 0) {
      const trusted = since.get(ca);
      assert.ok(
        trusted !== undefined && w.at - trusted >= policy.propagationMs,
        `${label}: switched to ${ca} early`,
      );
    }
    if (servingCa !== undefined && ca !== servingCa) lastServedBy.set(servingCa, w.at);
    servingCa = ca;
    lastServedBy.set(ca, w.at);
  }
}
