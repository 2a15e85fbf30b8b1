import { describe, expect, it } from 'vitest';
import { createReadinessCheck } from './readiness.check.js';

function counter(answer: () => Promise<boolean>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    check: () => {
      calls++;
      return answer();
    },
  };
}

describe('createReadinessCheck', () => {
  it('is ready when every dependency answers, and names the ones that do not', async () => {
    const ready = createReadinessCheck([
      { name: 'users', check: async () => true },
      { name: 'redis', check: async () => true },
    ]);
    expect(await ready.status()).toEqual({ ready: true, down: [], draining: false });

    const partly = createReadinessCheck([
      { name: 'users', check: async () => false },
      { name: 'stories', check: async () => true },
      { name: 'redis', check: () => Promise.reject(new Error('ECONNREFUSED')) },
    ]);
    expect(await partly.status()).toEqual({ ready: false, down: ['users', 'redis'], draining: false });
  });

  it('counts a hanging dependency as down after the timeout', async () => {
    const check = createReadinessCheck([{ name: 'users', check: () => new Promise<boolean>(() => {}) }], { timeoutMs: 50 });
    const started = performance.now();
    expect(await check.status()).toMatchObject({ ready: false, down: ['users'] });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('reuses a result for cacheMs and shares one round between concurrent probes', async () => {
    const users = counter(async () => true);
    const check = createReadinessCheck([{ name: 'users', check: users.check }], { cacheMs: 100 });
    await Promise.all([check.status(), check.status(), check.status()]);
    await check.status();
    expect(users.calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    await check.status();
    expect(users.calls).toBe(2);
  });

  it('notices a dependency going down once the cache expires', async () => {
    let up = true;
    const check = createReadinessCheck([{ name: 'users', check: async () => up }], { cacheMs: 30 });
    expect((await check.status()).ready).toBe(true);
    up = false;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await check.status()).toMatchObject({ ready: false, down: ['users'] });
  });

  it('reports not ready while draining, whatever the dependencies say', async () => {
    const check = createReadinessCheck([{ name: 'users', check: async () => true }]);
    expect((await check.status()).ready).toBe(true);
    check.drain();
    expect(await check.status()).toMatchObject({ ready: false, draining: true });
  });
});
