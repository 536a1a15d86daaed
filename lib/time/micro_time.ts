/**
 * Formats epoch milliseconds as a Kubernetes `MicroTime` (RFC 3339 with exactly six fractional digits),
 * e.g. `2026-01-01T00:00:00.000000Z`. The API server rejects MicroTime fields written with fewer digits
 * in some versions, so the padding is deliberate.
 */
export function formatMicroTime(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`Cannot format MicroTime: ${ms} is not a finite number`);
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, -1)}000Z`;
}
