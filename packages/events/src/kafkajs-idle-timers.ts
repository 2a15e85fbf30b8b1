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
}

/** How soon a request held back for a client-side throttle is tried again once it has passed (kafkajs's own value). */
const RECHECK_AFTER_THROTTLE_MS = 10;

const require = createRequire(import.meta.url);

/** Whether this process already looked for the method (the replacement is made once). */
let attempted = false;

/**
 * kafkajs 2.2.4 keeps every broker connection's request queue checking for held-back requests on
 * a timer even when none are held back: with nothing pending it arms a timeout of a negative
 * delay (run after 1 ms), whose check arms the next one, a thousand wake-ups a second per
 * connection for as long as the process runs. Measured here: 28–30 ms of CPU per second in every
 * idle service (about 3 % of a core each), and the same wake-ups between requests under load.
 * Known upstream (kafkajs issue #1556), not fixed in a release.
 *
 * This replaces that method of the queue's class once per process: a check is armed only while
 * requests are held back, for when the client-side throttle ends (or shortly, when they wait for
 * a free in-flight slot, which a completed request also checks). Requests that can go out at once
 * are sent by `push` itself, as before. Only for kafkajs's request queue as this file describes
 * it: if the installed kafkajs has no such module or method, nothing is changed and the process
 * starts as usual (this file's unit test then fails, so an upgrade of kafkajs gets a look here).
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
  if (RequestQueue.prototype === undefined || typeof RequestQueue.prototype.scheduleCheckPendingRequests !== 'function') return;
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
