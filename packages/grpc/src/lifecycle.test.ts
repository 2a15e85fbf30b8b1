import { createLogger } from '@inkwell/logging';
import { describe, expect, it } from 'vitest';
import { serviceClosers, shutdownOnSignals, type Closer, type StandardParts } from './lifecycle.js';

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

/** Standard parts that record their closing under the names the log gives them; `failing` rejects instead. */
function recordingParts(closed: string[], failing?: string): StandardParts {
  const close = (name: string) => async () => {
    if (name === failing) throw new Error('broken');
    closed.push(name);
  };
  return {
    server: { shutdown: async (graceMs?: number, notServingFirstMs?: number) => void closed.push(`grpc server (NOT_SERVING ${notServingFirstMs} ms, then ${graceMs} ms)`) },
    events: { stop: close('kafka work') },
    metricsServer: { close: close('metrics server') },
    eventMetrics: { close: close('event metrics') },
    pool: { end: close('database pool') },
  };
}

describe('serviceClosers', () => {
  it('stops serving first (NOT_SERVING for 1 s while still answering, then 5 s for in-flight calls), closes the pool last but for what comes after it, and puts each extra where it says', async () => {
    const { closed, exits, shutdown } = recorded((closed) =>
      serviceClosers(recordingParts(closed), {
        beforeServer: [step(closed, 'timer')],
        afterEventWork: [step(closed, 'search client')],
        beforePool: [step(closed, 'redis')],
        afterPool: [step(closed, 'workers')],
      }),
    );
    await shutdown.run('SIGTERM');
    expect(closed).toEqual(['timer', 'grpc server (NOT_SERVING 1000 ms, then 5000 ms)', 'kafka work', 'search client', 'metrics server', 'event metrics', 'redis', 'database pool', 'workers']);
    expect(exits).toEqual([0]);
  });

  it('still closes the rest when a standard part fails', async () => {
    const { closed, exits, shutdown } = recorded((closed) => serviceClosers(recordingParts(closed, 'kafka work')));
    await shutdown.run('SIGTERM');
    expect(closed).toEqual(['grpc server (NOT_SERVING 1000 ms, then 5000 ms)', 'metrics server', 'event metrics', 'database pool']);
    expect(exits).toEqual([1]);
  });
});
