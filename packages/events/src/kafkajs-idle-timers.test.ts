import { createRequire } from 'node:module';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { REQUEST_TIMEOUT_CHECK_MS, stopIdleRequestQueueTimers } from './kafkajs-idle-timers.js';

interface Pushed {
  entry: { correlationId: number; resolve(value: unknown): void; reject(error: unknown): void };
  expectResponse: boolean;
  sendRequest(): void;
}

interface Queue {
  push(request: Pushed): void;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  scheduleRequestTimeoutCheck(): void;
  destroy(): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (options: Record<string, unknown>) => Queue;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function queue(maxInFlightRequests: number | null = null, enforceRequestTimeout = false): Queue {
  return new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout, clientId: 'test', broker: 'localhost:9092', logger: silent, isConnected: () => true });
}

function request(correlationId: number, sent: number[]): Pushed {
  return { entry: { correlationId, resolve() {}, reject() {} }, expectResponse: true, sendRequest: () => sent.push(correlationId) };
}

describe('kafkajs request queue without idle timers', () => {
  beforeAll(() => stopIdleRequestQueueTimers());
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('arms no timer while nothing waits (kafkajs 2.2.4 re-armed a 1 ms one forever)', () => {
    const idle = queue();
    idle.checkPendingRequests();
    const sent: number[] = [];
    idle.push(request(1, sent));
    idle.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends a request held back by a client-side throttle once the throttle is over, then goes quiet', () => {
    const throttled = queue();
    const sent: number[] = [];
    throttled.maybeThrottle(50);
    throttled.push(request(1, sent));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(20);
    expect(sent).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends a request held back for an in-flight slot when one is answered', () => {
    const busy = queue(1);
    const sent: number[] = [];
    busy.push(request(1, sent));
    busy.push(request(2, sent));
    expect(sent).toEqual([1]);
    busy.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
  });

  it('looks for timed-out requests once a second, not ten times, and still times them out', () => {
    const connected = queue(null, true);
    const failures: unknown[] = [];
    const sent: number[] = [];
    connected.scheduleRequestTimeoutCheck();
    const waiting = request(1, sent);
    waiting.entry.reject = (error) => void failures.push(error);
    connected.push(waiting);
    const start = Date.now();
    vi.advanceTimersToNextTimer();
    expect(Date.now() - start).toBe(REQUEST_TIMEOUT_CHECK_MS);
    expect(failures).toEqual([]);
    vi.advanceTimersByTime(30_000);
    expect(failures).toHaveLength(1);
    connected.destroy();
  });
});
