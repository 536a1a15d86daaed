/**
 * The names a generated project is made of, derived once from the command line so every template spells
 * them the same way.
 * @module
 */
import { constantName } from "../codegen/mod.ts";
import type { InitArgs } from "./args.ts";
import { lowerCamel, snakeCase } from "./names.ts";
import type { PackageSource } from "./package_source.ts";

/** Everything the templates need. */
export interface Project {
  /** Project name (the directory's base name): Deployment, ServiceAccount, Lease, field manager, binary. */
  readonly name: string;
  /** API group, e.g. "example.com". */
  readonly group: string;
  /** API version, e.g. "v1alpha1". */
  readonly version: string;
  /** Kind, e.g. "Widget". */
  readonly kind: string;
  /** Resource name, e.g. "widgets". */
  readonly plural: string;
  /** Namespaced kind (true) or cluster-scoped (false). */
  readonly namespaced: boolean;
  /** Where kubeloop comes from. */
  readonly pkg: PackageSource;
  /** The kind in lowerCamelCase, for variables ("widget"). */
  readonly variable: string;
  /** The kind in snake_case, for file names ("widget"). */
  readonly stem: string;
  /** The typed ResourceRef constant the type generator names ("WIDGETS"). */
  readonly refName: string;
  /** The CRD's name, `<plural>.<group>`. */
  readonly crdName: string;
  /** The namespace the controller is deployed to, `<name>-system`. */
  readonly namespace: string;
  /** The finalizer the controller puts on each object, `<group>/finalizer`. */
  readonly finalizer: string;
  /** Project-relative paths of the files templates refer to each other by. */
  readonly files: {
    readonly crd: string;
    readonly types: string;
    readonly controller: string;
  };
}

/** The project `args` ask for, taking kubeloop from `pkg`. */
export function projectOf(args: InitArgs, pkg: PackageSource): Project {
  const stem = snakeCase(args.kind);
  const crdName = `${args.plural}.${args.group}`;
  return {
    name: args.name,
    group: args.group,
    version: args.version,
    kind: args.kind,
    plural: args.plural,
    namespaced: args.namespaced,
    pkg,
    variable: lowerCamel(args.kind),
    stem,
    refName: constantName(args.kind, args.plural),
    crdName,
    namespace: `${args.name}-system`,
    finalizer: `${args.group}/finalizer`,
    files: {
      crd: `crds/${crdName}.yaml`,
      types: `src/${stem}_types.ts`,
      controller: `src/${stem}_controller.ts`,
    },
  };
}
