/**
 * One place for everything a test run logs, and a registry of every credential it creates, so that
 * a final scan (tests/reliability/scan_logs.ts) can prove no credential reached any log.
 *
 * `KUBELOOP_TEST_LOGS=<root>` turns it on (tests/run.sh sets it for the whole run):
 * - `<root>/logs/`: captured output of every process the tests start (`captureOutput`), and the
 *   state directory of the local control plane with its component logs (`*.log`);
 * - `<root>/secrets/registry.jsonl` (mode 0600): one `{label, value}` line per credential created:
 *   TokenRequest tokens (`kubectl create token`), minted client keys, the control plane's private
 *   keys, and whatever a test registers itself (exec plugin output, for instance).
 * Unset, logs are not kept and registering does nothing.
 */
import { join } from "node:path";

/** The environment variable naming the root directory. */
export const TEST_LOGS_ENV = "KUBELOOP_TEST_LOGS";

/** `<root>/logs` when collection is on, created on first use. */
export function logsDir(root: string | undefined = collectionRoot()): string | undefined {
  if (!root) return undefined;
  const dir = join(root, "logs");
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The registry file under `root`. */
export function registryPath(root: string): string {
  return join(root, "secrets", "registry.jsonl");
}

/** The root from the environment, if collection is on. */
export function collectionRoot(): string | undefined {
  return Deno.env.get(TEST_LOGS_ENV) || undefined;
}

/**
 * A new log file path `<root>/logs/<name>-<random>.log` for one process' output, or undefined when
 * collection is off.
 */
export function newLogPath(name: string, root?: string): string | undefined {
  const dir = logsDir(root ?? collectionRoot());
  if (!dir) return undefined;
  const safe = name.replace(/[^a-zA-Z0-9_.-]/g, "-").slice(0, 60);
  return join(dir, `${safe}-${crypto.randomUUID().slice(0, 8)}.log`);
}

/**
 * Records a credential the tests created, so the final scan looks for it. `label` says what it is
 * ("TokenRequest token for ns/sa"); it is printed by the scan, the value never is.
 */
export function registerSecret(value: string, label: string, root?: string): void {
  const base = root ?? collectionRoot();
  if (!base || value.trim() === "") return;
  const path = registryPath(base);
  Deno.mkdirSync(join(base, "secrets"), { recursive: true, mode: 0o700 });
  Deno.writeTextFileSync(path, JSON.stringify({ label, value }) + "\n", { append: true, mode: 0o600 });
}

/** Registers the private keys (`*.key`) in a control plane's state directory, so the final scan looks for them. */
export async function registerControlPlaneKeys(dir: string, root?: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".key")) {
      registerSecret(await Deno.readTextFile(join(dir, entry.name)), `control plane ${entry.name}`, root);
    }
  }
}
