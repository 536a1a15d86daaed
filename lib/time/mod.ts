/**
 * Time: the injectable clock and an abortable sleep.
 * @module
 */
export { type Clock, sleep, systemClock, type Timer } from "./clock.ts";
