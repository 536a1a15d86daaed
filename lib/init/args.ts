/**
 * The generator's command line, parsed and checked before anything is written. Every mistake is a
 * {@linkcode UsageError} that names the flag (or the project directory) at fault.
 * @module
 */
import { basename, resolve } from "node:path";
import { isApiVersion, isDnsLabel, isDnsSubdomain, isUpperCamel, pluralOf } from "./names.ts";

/** A mistake in the command line: reported with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What to generate, as the command line asked for it. */
export interface InitArgs {
  /** The project directory (must not exist, or be empty). */
  readonly dir: string;
  /** Its base name: names the Deployment, the ServiceAccount, the namespace prefix and the binary. */
  readonly name: string;
  /** API group of the custom resource, e.g. "example.com". */
  readonly group: string;
  /** API version, e.g. "v1alpha1". */
  readonly version: string;
  /** Kind, e.g. "Widget". */
  readonly kind: string;
  /** Resource name, e.g. "widgets". */
  readonly plural: string;
  /** Namespaced (true) or cluster-scoped (false). */
  readonly namespaced: boolean;
  /** `--package` as given: a `jsr:` specifier or a local kubeloop checkout; undefined for the default. */
  readonly package: string | undefined;
}

/** The usage text of `--help` and of usage errors. */
export const USAGE =
  `Creates a Kubernetes controller project on kubeloop: a CRD, its generated types, a controller,
a unit test on FakeApi, an end-to-end test on a local control plane, manifests and a Dockerfile.

usage: init DIR --group GROUP --kind KIND [--version VERSION] [--plural PLURAL]
            [--namespaced=true|false] [--package SPEC]

  DIR           the new project's directory (must not exist, or be empty); its base name names the
                controller's Deployment, ServiceAccount and namespace, so it must be a DNS label
  --group       API group of the custom resource, a DNS subdomain with a dot (example.com)
  --kind        the resource's kind, UpperCamelCase (Widget)
  --version     API version (default v1alpha1)
  --plural      resource name (default: the lowercased kind + "s", "ies" for a trailing consonant + y,
                "es" after s, x, z, ch, sh)
  --namespaced  true for namespaced objects (default), false for cluster-scoped ones
  --package     where the project gets kubeloop: a jsr: specifier (default jsr:@kubeloop/kubeloop@^VERSION
                of this kubeloop), or the path or file: URL of a local kubeloop checkout (or its lib/)
  --help        this text
`;

const VALUED = ["group", "version", "kind", "plural", "package", "namespaced"] as const;
type Valued = typeof VALUED[number];

/**
 * Parses `args` (Deno.args of the init command). Returns "help" for `--help`; otherwise the checked
 * arguments, or throws a UsageError naming the flag at fault.
 */
export function parseInitArgs(args: readonly string[]): InitArgs | "help" {
  const values = new Map<Valued, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    if (!arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = (eq < 0 ? arg : arg.slice(0, eq)).replace(/^--?/, "");
    if (!(VALUED as readonly string[]).includes(flag)) throw new UsageError(`unknown flag "${arg}"`);
    const name = flag as Valued;
    if (values.has(name)) throw new UsageError(`--${name} is given twice`);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined && name === "namespaced") {
      // A bare --namespaced means true; "--namespaced false" is read as a value, not as the directory.
      const next = args[i + 1];
      value = next === "true" || next === "false" ? args[++i]! : "true";
    }
    if (value === undefined) {
      const next = args[++i];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`--${name} needs a value`);
      value = next;
    }
    values.set(name, value);
  }
  if (positional.length !== 1) {
    throw new UsageError(
      positional.length === 0
        ? "the project directory is missing"
        : `expected one project directory, got ${positional.length}: ${positional.join(" ")}`,
    );
  }
  const dir = positional[0]!;
  return {
    dir,
    name: projectName(dir),
    ...resourceNames(values),
    namespaced: namespacedFlag(values.get("namespaced")),
    package: values.get("package"),
  };
}

function projectName(dir: string): string {
  const name = basename(resolve(dir));
  if (!isDnsLabel(name)) {
    throw new UsageError(
      `project directory "${dir}": its name "${name}" names Kubernetes objects, so it must be a DNS label ` +
        "(lowercase letters, digits and dashes, starting and ending with a letter or digit, at most 63)",
    );
  }
  return name;
}

function resourceNames(
  values: ReadonlyMap<Valued, string>,
): Pick<InitArgs, "group" | "version" | "kind" | "plural"> {
  const group = required(values, "group");
  if (!isDnsSubdomain(group) || !group.includes(".")) {
    throw new UsageError(
      `--group "${group}" is not a DNS subdomain with a dot ` +
        "(lowercase labels joined by dots, e.g. example.com)",
    );
  }
  if (/(^|\.)(k8s|kubernetes)\.io$/.test(group)) {
    throw new UsageError(`--group "${group}": groups under k8s.io and kubernetes.io are Kubernetes' own`);
  }
  const kind = required(values, "kind");
  if (!isUpperCamel(kind)) {
    throw new UsageError(
      `--kind "${kind}" is not UpperCamelCase (a capital letter, then ASCII letters and digits, e.g. Widget)`,
    );
  }
  const version = values.get("version") ?? "v1alpha1";
  if (!isApiVersion(version)) {
    throw new UsageError(`--version "${version}" is not an API version (v1, v1beta1, v2alpha3, …)`);
  }
  const plural = values.get("plural") ?? pluralOf(kind);
  if (!isDnsLabel(plural) || !/^[a-z]/.test(plural)) {
    throw new UsageError(`--plural "${plural}" is not a lowercase DNS label starting with a letter`);
  }
  return { group, version, kind, plural };
}

function required(values: ReadonlyMap<Valued, string>, name: Valued): string {
  const value = values.get(name);
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function namespacedFlag(value: string | undefined): boolean {
  if (value === undefined || value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`--namespaced must be true or false, got "${value}"`);
}
