/**
 * Every file of a generated project but the generated types (which the writer derives from the CRD),
 * by project-relative path. Pure: no I/O, so the templates are tested as text.
 * @module
 */
import type { Project } from "./project.ts";
import { controllerTs } from "./templates/controller.ts";
import { crdKustomization, crdYaml } from "./templates/crd.ts";
import { denoJson } from "./templates/deno_json.ts";
import { dockerfile } from "./templates/dockerfile.ts";
import { e2eTestTs } from "./templates/e2e_test.ts";
import { mainTs } from "./templates/main.ts";
import {
  deploymentYaml,
  kustomizationYaml,
  namespaceYaml,
  serviceAccountYaml,
} from "./templates/manifests.ts";
import { rbacYaml } from "./templates/rbac.ts";
import { gitignore, readme } from "./templates/readme.ts";
import { unitTestTs } from "./templates/unit_test.ts";

/** The files of `p`, path → content. */
export function projectFiles(p: Project): Map<string, string> {
  return new Map([
    ["README.md", readme(p)],
    ["deno.json", denoJson(p)],
    [".gitignore", gitignore()],
    ["Dockerfile", dockerfile(p)],
    [p.files.crd, crdYaml(p)],
    ["crds/Kustomization", crdKustomization(p)],
    ["main.ts", mainTs(p)],
    [p.files.controller, controllerTs(p)],
    [`tests/${p.stem}_controller_test.ts`, unitTestTs(p)],
    ["tests/e2e_test.ts", e2eTestTs(p)],
    ["manifests/kustomization.yaml", kustomizationYaml()],
    ["manifests/namespace.yaml", namespaceYaml(p)],
    ["manifests/service_account.yaml", serviceAccountYaml(p)],
    ["manifests/rbac.yaml", rbacYaml(p)],
    ["manifests/deployment.yaml", deploymentYaml(p)],
  ]);
}
