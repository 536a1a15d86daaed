/**
 * The typed resource refs (`CONFIG_MAPS`, `DEPLOYMENTS`, …) live in lib/resources, generated with the
 * kinds' types; re-exported here because every client call takes one.
 * @module
 */
export * from "../resources/refs.ts";
export { apiVersionOf } from "../resources/api_version.ts";
