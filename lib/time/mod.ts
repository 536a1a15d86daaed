/**
 * Time: the injectable clock, an abortable sleep and Kubernetes MicroTime formatting.
 * @module
 */
export { type Clock, sleep, systemClock, type Timer } from "./clock.ts";
export { formatMicroTime } from "./micro_time.ts";
