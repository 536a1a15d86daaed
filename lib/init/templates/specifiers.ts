/**
 * The module specifiers generated code imports kubeloop by, with their quotes. Templates write
 * `from ${KUBELOOP}` rather than the literal text, so no tool that scans this repository's sources for
 * import statements mistakes a line of a template for an import of ours.
 * @module
 */

/** `"@kubeloop/kubeloop"`, quoted. */
export const KUBELOOP = JSON.stringify("@kubeloop/kubeloop");

/** `"@kubeloop/kubeloop/testing"`, quoted. */
export const TESTING = JSON.stringify("@kubeloop/kubeloop/testing");
