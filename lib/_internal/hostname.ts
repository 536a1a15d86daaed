/**
 * The machine's hostname, or `fallback` when it cannot be read. Without `--allow-sys=hostname` Deno
 * throws instead of returning one; identities built from it (lease holders, event reporting instances)
 * must still be produced, so callers pass a fallback that keeps them apart.
 */
export function hostnameOr(fallback: string): string {
  try {
    return Deno.hostname();
  } catch {
    return fallback;
  }
}
