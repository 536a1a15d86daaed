/**
 * Fault operations of the local control plane's control endpoint (tests/testenv/faults.go): kill and
 * restart kube-apiserver, stop and restart etcd. Each resolves with the endpoint's Unix ms times.
 * The control plane is shared by the whole test run: a test that stops something starts it again.
 */
import { testEnv } from "./testenv.ts";

async function control<T>(path: string): Promise<T> {
  const res = await fetch(`${testEnv.control}${path}`, { method: "POST" });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path} failed: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** SIGKILLs kube-apiserver and waits until the process is gone. */
export function killApiserver(): Promise<{ killedAt: number }> {
  return control("/apiserver/kill");
}

/** Starts kube-apiserver again (same flags, same etcd) and waits until /readyz answers 200. */
export function startApiserver(): Promise<{ startedAt: number; readyAt: number }> {
  return control("/apiserver/start");
}

/** Stops the embedded etcd; kube-apiserver keeps running and answers with errors. */
export function stopEtcd(): Promise<{ stoppedAt: number }> {
  return control("/etcd/stop");
}

/** Starts etcd again on the same data and ports, and waits until kube-apiserver's /readyz is 200. */
export function startEtcd(): Promise<{ startedAt: number; readyAt: number }> {
  return control("/etcd/start");
}
