/**
 * Doc examples for tests/tooling/run_sh_test.ts: run.sh runs them with `deno test --doc` and counts them.
 * @module
 */

/**
 * Passes when run.sh gave the examples the control plane's kubeconfig.
 *
 * @example Sees the kubeconfig of the control plane
 * ```ts
 * const kubeconfig = Deno.env.get("KUBECONFIG") ?? "";
 * if (!kubeconfig.endsWith("/fake-kubeconfig")) throw new Error(`KUBECONFIG is "${kubeconfig}"`);
 * ```
 *
 * @example Fails
 * ```ts
 * throw new Error("this example fails");
 * ```
 *
 * @example Is not run
 * ```ts ignore
 * throw new Error("never run");
 * ```
 */
export const answer = 42;
