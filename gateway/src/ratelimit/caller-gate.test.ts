import { describe, expect, it, vi } from 'vitest';
import { CallerGate } from './caller-gate.js';

const open = () => new AbortController().signal;
/** A gate whose byte pacing never holds anyone up, unless a test sets its own rate. */
const gateOf = (inFlight: number, waiting: number, bytesPerSecond = Number.MAX_SAFE_INTEGER, now?: () => number) => new CallerGate({ inFlight, waiting, bytesPerSecond, ...(now === undefined ? {} : { now }) });

describe('CallerGate', () => {
  it('lets a caller work on at most its share at once, the rest in order as earlier ones finish', async () => {
    const gate = gateOf(2, 10);
    const first = await gate.enter('u:1', open());
    const second = await gate.enter('u:1', open());
    const started: string[] = [];
    const third = gate.enter('u:1', open()).then((release) => (started.push('third'), release));
    const fourth = gate.enter('u:1', open()).then((release) => (started.push('fourth'), release));
    await Promise.resolve();
    expect(started).toEqual([]);
    expect(gate.running('u:1')).toBe(2);
    first!(0);
    first!(0);
    expect(await third).toBeTypeOf('function');
    expect(started).toEqual(['third']);
    second!(0);
    (await fourth)!(0);
    (await third)!(0);
    expect(started).toEqual(['third', 'fourth']);
    expect(gate.running('u:1')).toBe(0);
  });

  it("never makes another caller wait for one caller's line", async () => {
    const gate = gateOf(1, 10);
    await gate.enter('u:1', open());
    void gate.enter('u:1', open());
    expect(await gate.enter('u:2', open())).toBeTypeOf('function');
  });

  it("refuses a request when the caller's line is full, and lets a waiting request whose client left go", async () => {
    const gate = gateOf(1, 1);
    const running = await gate.enter('u:1', open());
    const client = new AbortController();
    const waiting = gate.enter('u:1', client.signal);
    expect(await gate.enter('u:1', open())).toBeUndefined();
    client.abort();
    expect(await waiting).toBeUndefined();
    const next = gate.enter('u:1', open());
    running!(0);
    expect(await next).toBeTypeOf('function');
  });

  it("makes a caller pay for its answers' bytes in time before its next request, and nobody else", async () => {
    vi.useFakeTimers();
    try {
      const gate = gateOf(4, 10, 1_000_000, () => Date.now());
      (await gate.enter('u:1', open()))!(2_000_000);
      let started = false;
      const next = gate.enter('u:1', open()).then((release) => ((started = true), release));
      // Another caller starts at once.
      expect(await gate.enter('u:2', open())).toBeTypeOf('function');
      await vi.advanceTimersByTimeAsync(1_999);
      expect(started).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await next).toBeTypeOf('function');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('CallerGate waiting', () => {
  it('refuses a request that waited its longest in line, and reports its line', async () => {
    vi.useFakeTimers();
    try {
      const expired: unknown[] = [];
      const gate = new CallerGate({ inFlight: 1, waiting: 10, bytesPerSecond: Number.MAX_SAFE_INTEGER, maxWaitMs: 1_000, onExpired: (caller, line) => expired.push({ caller, ...line }) });
      await gate.enter('u:1', open());
      const waiting = gate.enter('u:1', open());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await waiting).toBeUndefined();
      // Reported with what held it: the one request running.
      expect(expired).toEqual([{ caller: 'u:1', running: 1, waiting: 1, pacedForMs: expect.any(Number) }]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('CallerGate wake-ups', () => {
  it('starts a paced request within a quarter second of its time, even when its clock stepped back and forth meanwhile', async () => {
    vi.useFakeTimers();
    try {
      let clock = 0;
      const gate = gateOf(1, 10, 1_000, () => clock);
      (await gate.enter('u:1', open()))!(100); // paced: the next one starts at 100 ms
      let started = false;
      void gate.enter('u:1', open()).then(() => (started = true));
      clock = -10_000; // the clock steps back 10 s: at its timer the line seems paced for 10 s more
      await vi.advanceTimersByTimeAsync(100);
      expect(started).toBe(false);
      clock = 200; // and is put right again, with no timer of the line due for 10 s
      await vi.advanceTimersByTimeAsync(250);
      expect(started).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
