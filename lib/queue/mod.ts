/**
 * Work queues for controllers: a fair, stingy FIFO of keys ({@link WorkQueue}), delayed adds
 * ({@link DelayingQueue}) and rate-limited retries ({@link RateLimitingQueue}).
 * @module
 */
export {
  type AddOptions,
  type GetOptions,
  LOW_PRIORITY,
  type ShutDownOptions,
  WorkQueue,
  type WorkQueueOptions,
} from "./work_queue.ts";
export { DelayingQueue, type DelayingQueueOptions } from "./delaying_queue.ts";
export { RateLimitingQueue, type RateLimitingQueueOptions } from "./rate_limiting_queue.ts";
export {
  type BucketOptions,
  bucketRateLimiter,
  defaultControllerRateLimiter,
  type DefaultControllerRateLimiterOptions,
  type ExponentialFailureOptions,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
} from "./rate_limiters.ts";
export { type InFlightStats, noopQueueMetrics, type QueueMetrics } from "./queue_metrics.ts";
export type { Clock, Timer } from "../time/clock.ts";
