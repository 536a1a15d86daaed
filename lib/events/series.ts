import { ApiError } from "../client/api_error.ts";
import { EVENTS } from "../resources/refs.ts";
import type { Logger } from "../log/logger.ts";
import type { Clock, Timer } from "../time/clock.ts";
import { formatMicroTime } from "../time/micro_time.ts";
import { describe } from "./event_object.ts";
import type { Event, EventsClient, EventSeries } from "./types.ts";

/** One Event and its repeats, as the recorder tracks it. */
export interface Series {
  /** Identifies isomorphic events: object, reason, type, action and note. */
  key: string;
  /** Where the Event lives. */
  namespace: string;
  /** Server name once created; undefined while the create is pending or after it failed. */
  name: string | undefined;
  /** The Event as last created. */
  event: Event;
  /** Occurrences so far. */
  count: number;
  /** Clock time of the latest occurrence. */
  lastObserved: number;
  /** Clock time of the latest write attempt. */
  lastWrite: number;
  /** Count last written to the server. */
  written: number;
  /** The pending series patch, if one is scheduled. */
  timer: Timer | undefined;
}

/** What became of a series update: written (or nothing to write), or try again at the next interval. */
export type SeriesOutcome = "done" | "retry";

/**
 * Writes a series to the API server: the first occurrence as a new Event, repeats as a merge patch of
 * `series`. Failures are logged, never thrown; the caller decides what to do with the outcome.
 */
export class SeriesWriter {
  #client: EventsClient;
  #clock: Clock;
  #logger: Logger;
  #seq = 0;

  /** Creates the instance. */
  constructor(client: EventsClient, options: { clock: Clock; logger: Logger }) {
    this.#client = client;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  /** Creates the first occurrence; false when that failed (already logged). */
  async create(s: Series, signal: AbortSignal): Promise<boolean> {
    try {
      const created = await this.#client.create(EVENTS, s.event, { namespace: s.namespace, signal });
      s.name = created.metadata.name ?? s.event.metadata.name;
      return true;
    } catch (error) {
      this.#logger.warn("Cannot write event", { ...describe(s.event), error: String(error) });
      return false;
    }
  }

  /**
   * Brings the server's `series` up to the current count. Only a NotFound (the Event expired or was
   * deleted) writes the Event anew: any other failure (5xx, 429, a timeout) may well have left the
   * Event in place, so creating another would show the same occurrences twice. Those keep the
   * unwritten count and return "retry".
   */
  async patch(s: Series, signal: AbortSignal): Promise<SeriesOutcome> {
    if (s.count === s.written) return "done";
    const count = s.count;
    const series: EventSeries = { count, lastObservedTime: formatMicroTime(s.lastObserved) };
    s.lastWrite = this.#clock.now();
    if (s.name === undefined) return await this.#recreate(s, series, signal, "never written");
    try {
      await this.#client.patch(EVENTS, s.name, { series }, { type: "merge", namespace: s.namespace, signal });
      s.written = count;
      return "done";
    } catch (error) {
      if (error instanceof ApiError && error.isNotFound) {
        return await this.#recreate(s, series, signal, error);
      }
      this.#logger.warn("Cannot update event series; retrying at the next interval", {
        ...describe(s.event),
        error: String(error),
      });
      return "retry";
    }
  }

  async #recreate(s: Series, series: EventSeries, signal: AbortSignal, why: unknown): Promise<SeriesOutcome> {
    this.#logger.debug("Event of a series is gone; creating it anew", {
      ...describe(s.event),
      why: String(why),
    });
    s.name = undefined;
    s.event = {
      ...s.event,
      metadata: { name: `${s.event.metadata.name}.${(this.#seq++).toString(16)}`, namespace: s.namespace },
      series,
    };
    if (!await this.create(s, signal)) return "retry";
    s.written = series.count;
    return "done";
  }
}
