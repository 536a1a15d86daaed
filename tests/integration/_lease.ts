/** Reading a Lease with kubectl, and timing a leadership handover between two processes. */
import { eventually, kubectl } from "../_util/testenv.ts";
import { sampleSum, scrape } from "./_metrics.ts";
import type { ManagerProcess } from "./_process.ts";

/** The Lease fields leader election writes. */
export interface LeaseSpecView {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  renewTime?: string;
}

/** The Lease's spec as kubectl returns it, or undefined when it does not exist. */
export async function leaseSpec(namespace: string, name: string): Promise<LeaseSpecView | undefined> {
  const r = await kubectl(["get", "lease", name, "-n", namespace, "-o", "json"]);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as { spec?: LeaseSpecView }).spec ?? {};
}

/** `leader_election_master_status{name}` of a process: 1 leading, 0 stopped, undefined never led. */
export async function masterStatus(process: ManagerProcess, lease: string): Promise<number | undefined> {
  return sampleSum(await scrape(process.metricsUrl), "leader_election_master_status", { name: lease });
}

/** Waits until `process` reports itself leader on its /metrics; resolves with Date.now() at that point. */
export function waitUntilLeading(process: ManagerProcess, lease: string, timeoutMs: number): Promise<number> {
  return eventually(async () => (await masterStatus(process, lease)) === 1 ? Date.now() : undefined, {
    timeoutMs,
    intervalMs: 50,
    message: () => `${process.identity} did not become leader; output:\n${process.output().slice(-4000)}`,
  });
}

/** Writes one measurement line to stderr, so a test run shows the handover times it observed. */
export function reportTiming(message: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`  measured: ${message}\n`));
}
