import { createRequire } from 'node:module';

/**
 * The part of kafkajs's per-connection request queue (kafkajs/src/network/requestQueue) that
 * {@link stopIdleRequestQueueTimers} replaces. Internal to kafkajs: not in its typings.
 */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  enforceRequestTimeout: boolean;
  requestTimeout: number;
  inflight: Map<number, { sentAt: number; requestTimeout: number; timeoutRequest(): void }>;
  requestTimeoutIntervalId: ReturnType<typeof setInterval> | undefined;
  isConnected(): boolean;
  destroy(): void;
  scheduleRequestTimeoutCheck(): void;
}

/** How soon a request held back for a client-side throttle is tried again once it has passed (kafkajs's own value). */
const RECHECK_AFTER_THROTTLE_MS = 10;

/**
 * How often a connection looks for requests past their timeout (kafkajs: every 100 ms, for
 * timeouts of 30 s and more). A request times out at most a second late.
 */
export const REQUEST_TIMEOUT_CHECK_MS = 1_000;

const require = createRequire(import.meta.url);

/** Whether this process already looked for the method (the replacement is made once). */
let attempted = false;

/**
 * kafkajs 2.2.4 keeps every broker connection's request queue checking for held-back requests on
 * a timer even when none are held back: with nothing pending it arms a timeout of a negative
 * delay (run after 1 ms), whose check arms the next one, a thousand wake-ups a second per
 * connection for as long as the process runs. Measured here: 28–30 ms of CPU per second in every
 * idle service (about 3 % of a core each), and the same wake-ups between requests under load.
 * Known upstream (kafkajs issue #1556), not fixed in a release. Besides, every connected queue
 * looks for timed-out requests every 100 ms, ten wake-ups a second per connection for request
 * timeouts of 30 s and more.
 *
 * This replaces those two methods of the queue's class once per process: a check for held-back
 * requests is armed only while there are some, for when the client-side throttle ends (or
 * shortly, when they wait for a free in-flight slot, which a completed request also checks);
 * requests that can go out at once are sent by `push` itself, as before. The timeout check runs
 * every {@link REQUEST_TIMEOUT_CHECK_MS} (a request times out at most that much late). Only for
 * kafkajs's request queue as this file describes it: if the installed kafkajs has no such module
 * or methods, nothing is changed and the process starts as usual (this file's unit test then
 * fails, so an upgrade of kafkajs gets a look here).
 */
export function stopIdleRequestQueueTimers(): void {
  if (attempted) return;
  attempted = true;
  let RequestQueue: { prototype?: Partial<RequestQueueInternals> };
  try {
    RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype?: Partial<RequestQueueInternals> };
  } catch {
    return;
  }
  if (RequestQueue.prototype === undefined || typeof RequestQueue.prototype.scheduleCheckPendingRequests !== 'function' || typeof RequestQueue.prototype.scheduleRequestTimeoutCheck !== 'function') return;
  RequestQueue.prototype.scheduleRequestTimeoutCheck = function scheduleRequestTimeoutCheck(this: RequestQueueInternals) {
    if (!this.enforceRequestTimeout) return;
    this.destroy();
    this.requestTimeoutIntervalId = setInterval(
      () => {
        for (const request of this.inflight.values()) {
          if (Date.now() - request.sentAt > request.requestTimeout) request.timeoutRequest();
        }
        if (!this.isConnected()) this.destroy();
      },
      Math.min(this.requestTimeout, REQUEST_TIMEOUT_CHECK_MS),
    );
  };
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : RECHECK_AFTER_THROTTLE_MS,
    );
  };
}
