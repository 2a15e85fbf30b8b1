import { createLogger } from '@inkwell/logging';
import { describe, expect, it } from 'vitest';
import { shutdownOnSignals, type Closer } from './lifecycle.js';

const logger = createLogger('lifecycle-test');

/** A shutdown that records what it closed and how it exited, without touching the process. */
function recorded(closers: (closed: string[]) => Closer[], deadlineMs?: number) {
  const closed: string[] = [];
  const exits: number[] = [];
  const shutdown = shutdownOnSignals({ logger, closers: closers(closed), signals: [], exit: (code) => exits.push(code), ...(deadlineMs === undefined ? {} : { deadlineMs }) });
  return { closed, exits, shutdown };
}

const step = (closed: string[], name: string): Closer => ({ name, close: async () => void closed.push(name) });

describe('shutdownOnSignals', () => {
  it('closes in the given order, once however often it is asked, then exits with 0', async () => {
    const { closed, exits, shutdown } = recorded((closed) => [step(closed, 'server'), step(closed, 'consumers'), step(closed, 'pool')]);
    await Promise.all([shutdown.run('SIGTERM'), shutdown.run('SIGINT')]);
    await shutdown.run('SIGTERM');
    expect(closed).toEqual(['server', 'consumers', 'pool']);
    expect(exits).toEqual([0]);
  });

  it('still closes the rest after a failing step, and exits with 1', async () => {
    const { closed, exits, shutdown } = recorded((closed) => [{ name: 'relay', close: () => Promise.reject(new Error('broken')) }, step(closed, 'pool')]);
    await shutdown.run('SIGTERM');
    expect(closed).toEqual(['pool']);
    expect(exits).toEqual([1]);
  });

  it('exits with 1 at the deadline when a step hangs', async () => {
    const { closed, exits, shutdown } = recorded((closed) => [{ name: 'stuck', close: () => new Promise<void>(() => {}) }, step(closed, 'pool')], 50);
    await shutdown.run('SIGTERM');
    expect(closed).toEqual([]);
    expect(exits).toEqual([1]);
  });
});
