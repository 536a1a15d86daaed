/**
 * kubeloop: Kubernetes controllers in TypeScript on Deno. Each area also has its own entry point
 * (`lib/<area>/mod.ts`); this module gathers them.
 * @module
 */
export * from "./time/mod.ts";
export * from "./log/mod.ts";
export * from "./metrics/mod.ts";
export * from "./x509/mod.ts";
export * from "./http/mod.ts";
export * from "./config/mod.ts";
export * from "./client/mod.ts";
export * from "./resources/mod.ts";
export * from "./watch/mod.ts";
export * from "./cache/mod.ts";
export * from "./queue/mod.ts";
export * from "./observe/mod.ts";
export * from "./controller/mod.ts";
export * from "./leader/mod.ts";
export * from "./events/mod.ts";
export * from "./auth/mod.ts";
