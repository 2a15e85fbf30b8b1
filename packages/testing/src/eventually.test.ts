import { describe, expect, it } from 'vitest';
import { eventually, eventuallyValue } from './eventually.js';

describe('eventually', () => {
  it('returns once the check holds, after as many tries as it takes', async () => {
    let tries = 0;
    await eventually(() => ++tries === 3, { intervalMs: 1 });
    expect(tries).toBe(3);
  });

  it('fails after the timeout, naming what it waited for', async () => {
    await expect(eventually(() => false, { timeoutMs: 20, intervalMs: 5, what: 'the moon' })).rejects.toThrow(/timed out after 20 ms waiting for the moon/);
  });

  it('stops at once when the check throws', async () => {
    let tries = 0;
    const failing = () => {
      tries++;
      throw new Error('broken');
    };
    await expect(eventually(failing, { timeoutMs: 1_000 })).rejects.toThrow('broken');
    expect(tries).toBe(1);
  });
});

describe('eventuallyValue', () => {
  it('returns the first accepted value', async () => {
    let n = 0;
    await expect(eventuallyValue(async () => ++n, (value) => value >= 2, { intervalMs: 1 })).resolves.toBe(2);
  });

  it('shows the last value seen when it times out', async () => {
    await expect(eventuallyValue(async () => ({ count: 1 }), () => false, { timeoutMs: 20, intervalMs: 5, what: 'two' })).rejects.toThrow(/waiting for two; last value \{"count":1\}/);
  });
});
