import { AppError, ErrorCode } from '@inkwell/errors';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { DependencyMonitor, DependencyState } from '../health/dependency.monitor.js';
import { guardBackends } from './backend.guard.js';
import type { GrpcBackends } from './grpc.backends.js';

/** A monitor whose states the test sets, recording rechecks. */
function fakeMonitor(states: Record<string, DependencyState>) {
  const rechecked: string[] = [];
  const monitor: DependencyMonitor = {
    states: () => states,
    isDown: (name) => states[name] === 'down',
    recheck: (name) => rechecked.push(name),
    checkAll: async () => {},
    start: () => {},
    close: () => {},
  };
  return { monitor, rechecked };
}

/** Clients whose `getThing` RPC counts its calls and answers what `answer` gives. */
function fakeBackends(answer: (backend: string) => Promise<unknown>) {
  const calls: string[] = [];
  const client = (backend: string) => ({
    getThing: (request: unknown) => {
      calls.push(backend);
      return answer(backend).then((value) => ({ value, request }));
    },
    checkHealth: async () => true,
    close: () => {},
  });
  const backends = { users: client('users'), stories: client('stories'), messaging: client('messaging'), blog: client('blog'), bookshelves: client('bookshelves') };
  return { backends: backends as unknown as GrpcBackends, calls };
}

type Thing = { getThing(request: unknown): Promise<{ value: unknown; request: unknown }> };

describe('guardBackends', () => {
  it('refuses the calls of a backend found down at once, with UNAVAILABLE, and leaves the others alone', async () => {
    const { monitor } = fakeMonitor({ messaging: 'down', stories: 'up' });
    const { backends, calls } = fakeBackends(async (backend) => backend);
    const registry = new Registry();
    const guarded = guardBackends(backends, { monitor, registry });
    await expect((guarded.messaging as unknown as Thing).getThing({ id: 1 })).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE, expected: true });
    await expect((guarded.stories as unknown as Thing).getThing({ id: 2 })).resolves.toEqual({ value: 'stories', request: { id: 2 } });
    expect(calls).toEqual(['stories']);
    expect(await registry.getSingleMetricAsString('gateway_backend_unavailable_total')).toContain('gateway_backend_unavailable_total{backend="messaging",reason="known_down"} 1');
  });

  it('calls a backend whose state is unknown, and has a failed call rechecked and counted', async () => {
    const { monitor, rechecked } = fakeMonitor({ blog: 'unknown' });
    const { backends } = fakeBackends(async () => {
      throw new AppError(ErrorCode.UNAVAILABLE, 'connect ECONNREFUSED');
    });
    const registry = new Registry();
    const guarded = guardBackends(backends, { monitor, registry });
    await expect((guarded.blog as unknown as Thing).getThing({})).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE, expected: false });
    expect(rechecked).toEqual(['blog']);
    expect(await registry.getSingleMetricAsString('gateway_backend_unavailable_total')).toContain('gateway_backend_unavailable_total{backend="blog",reason="unavailable"} 1');
  });

  it('passes other failures through without a recheck', async () => {
    const { monitor, rechecked } = fakeMonitor({});
    const { backends } = fakeBackends(async () => {
      throw new AppError(ErrorCode.NOT_FOUND, 'no such thing');
    });
    const guarded = guardBackends(backends, { monitor, registry: new Registry() });
    await expect((guarded.users as unknown as Thing).getThing({})).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect(rechecked).toEqual([]);
  });
});
