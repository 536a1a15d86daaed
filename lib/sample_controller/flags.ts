import { type ControllerFlags, defaultFlags, FlagError } from "./controller_flags.ts";
import { type Draft, specs } from "./_flag_specs.ts";

export {
  type ControllerFlags,
  defaultFlags,
  FlagError,
  type LogFormat,
  type LogLevel,
} from "./controller_flags.ts";

/** The outcome of parsing: run, or print help or the version and exit 0. */
export type ParsedCommand =
  | { kind: "run"; flags: ControllerFlags }
  | { kind: "help" }
  | { kind: "version" };

/**
 * Parses the command line like Go's `flag` package, so sample-controller's invocations keep working: each flag
 * may be written with one or two dashes, as `-name=value` or `-name value`; boolean flags take no separate
 * value (`--leader-elect`, `--leader-elect=false`); the last occurrence wins. Unlike Go, a stray positional
 * argument is an error rather than silently ignored. Throws {@link FlagError} naming the flag.
 */
export function parseFlags(args: readonly string[]): ParsedCommand {
  const flags: Draft = defaultFlags();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      if (i + 1 < args.length) throw new FlagError(`unexpected argument "${args[i + 1]}"`, "");
      break;
    }
    const match = /^--?([^=-][^=]*)(?:=([\s\S]*))?$/.exec(arg);
    if (!match) throw new FlagError(`unexpected argument "${arg}" (flags start with - or --)`, "");
    const name = match[1] ?? "";
    const as = arg.startsWith("--") ? `--${name}` : `-${name}`;
    if (name === "help" || name === "h") return { kind: "help" };
    if (name === "version") return { kind: "version" };
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw new FlagError(`unknown flag ${as} (see --help)`, as);
    let value = match[2];
    if (value === undefined) {
      if (spec.value === "bool") value = "true";
      else {
        const next = args[i + 1];
        if (next === undefined) throw new FlagError(`flag ${as} needs a value`, as);
        value = next;
        i++;
      }
    }
    spec.apply(flags, value, as);
  }
  if (flags.shards !== undefined && flags.leaderElect) {
    throw new FlagError(
      "--shards and --leader-elect exclude each other: shards share the work, a leader does it all",
      "--shards",
    );
  }
  if (flags.shards !== undefined && flags.webhookCertSecret !== undefined) {
    // The rotation needs one writer, the Lease holder (or a single replica); shards have no leader.
    throw new FlagError(
      "--webhook-cert-secret and --shards exclude each other: self-managed certificates are rotated by one " +
        "leader (--leader-elect), and sharded replicas have none",
      "--webhook-cert-secret",
    );
  }
  const certificate = flags.webhookCertPath !== undefined || flags.webhookCertSecret !== undefined;
  if (flags.webhookCertPath !== undefined && flags.webhookCertSecret !== undefined) {
    throw new FlagError(
      "flags --webhook-cert-path and --webhook-cert-secret exclude each other: certificates from files, or " +
        "self-managed in a Secret",
      "--webhook-cert-secret",
    );
  }
  if (flags.webhookBindAddress !== "0" && !certificate && flags.webhookUrl === undefined) {
    throw new FlagError(
      "flag --webhook-bind-address needs --webhook-cert-path (a certificate the API server trusts, e.g. from " +
        "cert-manager), --webhook-cert-secret (self-managed certificates) or --webhook-url (a development " +
        "control plane)",
      "--webhook-bind-address",
    );
  }
  if (flags.webhookBindAddress === "0" && (flags.webhookUrl !== undefined || certificate)) {
    const as = flags.webhookUrl !== undefined
      ? "--webhook-url"
      : flags.webhookCertPath !== undefined
      ? "--webhook-cert-path"
      : "--webhook-cert-secret";
    throw new FlagError(`flag ${as} needs --webhook-bind-address`, as);
  }
  return { kind: "run", flags };
}

/** The `--help` text. */
export function usage(program: string): string {
  const lines = [
    `Usage: ${program} [flags]`,
    "",
    "Runs the Foo controller (samplecontroller.k8s.io/v1alpha1), a drop-in for Kubernetes' sample-controller.",
    "Flags may be written with one or two dashes: -kubeconfig=PATH or --kubeconfig PATH.",
    "",
  ];
  for (const spec of specs) {
    const head = spec.value === "bool" ? `  --${spec.name}` : `  --${spec.name} VALUE`;
    lines.push(head.padEnd(38) + spec.help);
  }
  lines.push("  --help".padEnd(38) + "Print this help and exit.");
  lines.push("  --version".padEnd(38) + "Print the version and exit.");
  lines.push("", "Exit codes: 0 clean shutdown, 1 runtime failure, 2 bad flag or configuration.");
  return lines.join("\n") + "\n";
}
