import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDependencyMonitor, type DependencyMonitor, type DependencyMonitorOptions } from './dependency.monitor.js';
import { createReadinessCheck } from './readiness.check.js';
import { eventually } from '@inkwell/testing';

const monitors: DependencyMonitor[] = [];
function monitor(...args: Parameters<typeof createDependencyMonitor>): DependencyMonitor {
  const created = createDependencyMonitor(...args);
  monitors.push(created);
  return created;
}
afterEach(() => {
  for (const created of monitors.splice(0)) created.close();
});

describe('createDependencyMonitor', () => {
  it('knows nothing before the first round, then says which dependencies answer', async () => {
    const checked = monitor(
      [
        { name: 'users', check: async () => true },
        { name: 'messaging', check: async () => false },
        { name: 'redis', check: () => Promise.reject(new Error('ECONNREFUSED')) },
      ],
      { intervalMs: 60_000 },
    );
    expect(checked.states()).toEqual({ users: 'unknown', messaging: 'unknown', redis: 'unknown' });
    expect(checked.isDown('messaging')).toBe(false);
    await checked.checkAll();
    expect(checked.states()).toEqual({ users: 'up', messaging: 'down', redis: 'down' });
    expect(checked.isDown('messaging')).toBe(true);
    expect(checked.isDown('users')).toBe(false);
  });

  it('counts a hanging check as down after the timeout', async () => {
    const checked = monitor([{ name: 'users', check: () => new Promise<boolean>(() => {}) }], { intervalMs: 60_000, timeoutMs: 50 });
    const started = performance.now();
    await checked.checkAll();
    expect(checked.isDown('users')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('follows a dependency going down and coming back on its own, and exports the state as a gauge', async () => {
    let up = true;
    const registry = new Registry();
    const checked = monitor([{ name: 'stories', check: async () => up }], { intervalMs: 20, registry });
    checked.start();
    await eventually(() => checked.states().stories === 'up');
    expect(await registry.getSingleMetricAsString('gateway_dependency_up')).toContain('gateway_dependency_up{dependency="stories"} 1');
    up = false;
    await eventually(() => checked.isDown('stories'));
    expect(await registry.getSingleMetricAsString('gateway_dependency_up')).toContain('gateway_dependency_up{dependency="stories"} 0');
    up = true;
    await eventually(() => checked.states().stories === 'up');
  });

  it('logs each change of state once: down as a warning, back up at info', async () => {
    const states = [true, false, false, false, true, true];
    const lines: string[] = [];
    const record = (level: string) => (fields: { dependency: string }) => lines.push(`${level} ${fields.dependency}`);
    const logger = { warn: record('warn'), info: record('info') } as unknown as DependencyMonitorOptions['logger'];
    const checked = monitor([{ name: 'users', check: async () => states.shift() ?? true }], { intervalMs: 60_000, logger });
    for (let round = 0; round < 6; round += 1) await checked.checkAll();
    expect(lines).toEqual(['warn users', 'info users']);
  });

  it('checks a dependency found down again between the rounds, and one that is up only with them', async () => {
    vi.useFakeTimers();
    try {
      let up = false;
      const calls = { users: 0, stories: 0 };
      const checked = monitor(
        [
          { name: 'users', check: async () => (calls.users++, up) },
          { name: 'stories', check: async () => (calls.stories++, true) },
        ],
        { intervalMs: 60_000, downIntervalMs: 250 },
      );
      checked.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(checked.isDown('users')).toBe(true);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(calls).toEqual({ users: 5, stories: 1 });
      up = true;
      await vi.advanceTimersByTimeAsync(250);
      expect(checked.states().users).toBe('up');
      // Up again: no checks but the rounds (the next one is 60 s after the first).
      await vi.advanceTimersByTimeAsync(10_000);
      expect(calls).toEqual({ users: 6, stories: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps one recheck going for a dependency down through many rounds', async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const checked = monitor([{ name: 'users', check: async () => (calls++, false) }], { intervalMs: 1_000, downIntervalMs: 250 });
      checked.start();
      await vi.advanceTimersByTimeAsync(30_000);
      const before = calls;
      await vi.advanceTimersByTimeAsync(10_000);
      // Four rechecks and one round a second at most, however long it has been down.
      expect(calls - before).toBeLessThanOrEqual(50);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rechecks one dependency on demand, sharing a check that is already running', async () => {
    let calls = 0;
    let release: (up: boolean) => void = () => {};
    const checked = monitor(
      [
        {
          name: 'blog',
          check: () => {
            calls++;
            return new Promise<boolean>((resolve) => (release = resolve));
          },
        },
      ],
      { intervalMs: 60_000 },
    );
    checked.recheck('blog');
    checked.recheck('blog');
    expect(calls).toBe(1);
    release(false);
    await eventually(() => checked.isDown('blog'));
    checked.recheck('blog');
    expect(calls).toBe(2);
  });
});

describe('createReadinessCheck', () => {
  it('is ready with a backend down, lists every state, and is not ready only while draining', async () => {
    const checked = monitor(
      [
        { name: 'stories', check: async () => true },
        { name: 'messaging', check: async () => false },
      ],
      { intervalMs: 60_000 },
    );
    await checked.checkAll();
    const readiness = createReadinessCheck(checked);
    expect(readiness.status()).toEqual({ ready: true, draining: false, dependencies: { stories: 'up', messaging: 'down' }, down: ['messaging'] });
    readiness.drain();
    expect(readiness.status()).toMatchObject({ ready: false, draining: true, down: ['messaging'] });
  });
});
