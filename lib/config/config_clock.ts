/**
 * The part of the project Clock (lib/time) that config loading uses: it only asks the time,
 * to age cached tokens and exec credentials. Any `Clock` (or a FakeClock) satisfies it.
 */
export interface ConfigClock {
  /** Milliseconds since the epoch. */
  now(): number;
}
