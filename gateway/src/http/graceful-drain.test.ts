import { Agent, createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@inkwell/logging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { drainableHttpServer, drainHttpServer, type DrainableServer, type DrainStep } from './graceful-drain.js';
import { createHttpMetrics } from './http.metrics.js';
import { createRequestContext } from './request-context.middleware.js';
import type { GatewayRequest } from './request-state.js';

describe('drainHttpServer: the order of a drain', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A server that records what the drain asks of it; `finish()` ends its last connection. */
  function fakeServer(calls: string[]): DrainableServer & { finish(): void } {
    let closed: (() => void) | undefined;
    return {
      stopListening(callback) {
        calls.push('stopListening');
        closed = callback;
      },
      closeIdleConnections: () => void calls.push('closeIdleConnections'),
      closeAllConnections: () => void calls.push('closeAllConnections'),
      finish: () => closed?.(),
    };
  }

  it('turns readiness off first, keeps listening for the delay, then stops listening', async () => {
    const calls: string[] = [];
    const server = fakeServer(calls);
    const steps: DrainStep[] = [];
    const drained = drainHttpServer({ server, readinessOff: () => void calls.push('readinessOff'), delayMs: 2_000, graceMs: 10_000, onStep: (step) => void steps.push(step) });
    expect(calls).toEqual(['readinessOff']);
    vi.advanceTimersByTime(1_999);
    expect(calls).toEqual(['readinessOff']);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(['readinessOff', 'stopListening']);
    server.finish();
    await drained;
    vi.advanceTimersByTime(10_000);
    expect(calls).toEqual(['readinessOff', 'stopListening']);
    expect(steps).toEqual(['readiness off', 'listener closed', 'connections closed']);
  });

  it('closes the connections still open when the grace period ends', async () => {
    const calls: string[] = [];
    const server = fakeServer(calls);
    const drained = drainHttpServer({ server, readinessOff: () => void calls.push('readinessOff'), delayMs: 2_000, graceMs: 10_000 });
    vi.advanceTimersByTime(10_000);
    expect(calls).toEqual(['readinessOff', 'stopListening', 'closeAllConnections']);
    server.finish();
    await drained;
  });

  it('without a delay (a test system\'s stop), closes idle connections as it stops listening', () => {
    const calls: string[] = [];
    void drainHttpServer({ server: fakeServer(calls), readinessOff: () => void calls.push('readinessOff'), delayMs: 0, graceMs: 10_000 });
    vi.advanceTimersByTime(0);
    expect(calls).toEqual(['readinessOff', 'stopListening', 'closeIdleConnections']);
  });

  it('never waits longer than the grace period before it stops listening', () => {
    const calls: string[] = [];
    void drainHttpServer({ server: fakeServer(calls), readinessOff: () => void calls.push('readinessOff'), delayMs: 30_000, graceMs: 5_000 });
    vi.advanceTimersByTime(5_000);
    expect(calls).toEqual(['readinessOff', 'stopListening', 'closeAllConnections']);
  });
});

/** Sends GET `path` to 127.0.0.1:`port` through `agent`, resolving with the status and headers. */
function sendThrough(agent: Agent, port: number, path = '/'): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('drainHttpServer on a real server with keep-alive clients', () => {
  it('answers every request sent on open keep-alive connections during the drain, then refuses new connections', async () => {
    let draining = false;
    const context = createRequestContext({ logger: createLogger('test', { level: 'silent' }), metrics: createHttpMetrics(), draining: () => draining });
    let releaseSlow: () => void = () => {};
    const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
    const server = createServer((req, res) =>
      context(req as GatewayRequest, res, () => {
        if (req.url === '/slow') void slowReleased.then(() => res.end('slow'));
        else res.end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const send = (path: string) => sendThrough(agent, port, path);
    try {
      // Four keep-alive connections, idle when the drain starts.
      await Promise.all([send('/'), send('/'), send('/'), send('/')]);
      expect(agent.freeSockets[`127.0.0.1:${port}:`]).toHaveLength(4);

      const steps: DrainStep[] = [];
      let listenerClosed: () => void = () => {};
      const listenerClosedNow = new Promise<void>((resolve) => (listenerClosed = resolve));
      const drained = drainHttpServer({
        server: drainableHttpServer(server),
        readinessOff: () => (draining = true),
        // Long enough for the requests below to reach the server on a busy machine before it stops listening.
        delayMs: 4_000,
        graceMs: 30_000,
        onStep: (step) => {
          steps.push(step);
          if (step === 'listener closed') listenerClosed();
        },
      });

      // Sent on the idle connections after the signal: answered, each telling the client to go elsewhere.
      const slow = [send('/slow'), send('/slow')];
      const fast = await Promise.all([send('/'), send('/')]);
      expect(fast.map((answer) => [answer.status, answer.headers.connection])).toEqual([
        [200, 'close'],
        [200, 'close'],
      ]);

      // Requests in progress when the listener closes still get their answers.
      await listenerClosedNow;
      releaseSlow();
      const slowAnswers = await Promise.all(slow);
      expect(slowAnswers.map((answer) => [answer.status, answer.headers.connection])).toEqual([
        [200, 'close'],
        [200, 'close'],
      ]);
      await drained;
      expect(steps).toEqual(['readiness off', 'listener closed', 'connections closed']);
      await expect(send('/')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  it('leaves an idle keep-alive connection open when it stops listening: a request written to it then is answered', async () => {
    let draining = false;
    const context = createRequestContext({ logger: createLogger('test', { level: 'silent' }), metrics: createHttpMetrics(), draining: () => draining });
    const server = createServer((req, res) => context(req as GatewayRequest, res, () => res.end('ok')));
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = () => sendThrough(agent, port);
    try {
      await send();
      expect(agent.freeSockets[`127.0.0.1:${port}:`]).toHaveLength(1);
      let listenerClosed: () => void = () => {};
      const listenerClosedNow = new Promise<void>((resolve) => (listenerClosed = resolve));
      const drained = drainHttpServer({
        server: drainableHttpServer(server),
        readinessOff: () => (draining = true),
        delayMs: 1,
        graceMs: 30_000,
        onStep: (step) => step === 'listener closed' && listenerClosed(),
      });
      await listenerClosedNow;
      // The listener is closed, the connection idle since before the signal: still answered, then closed.
      expect(await send()).toMatchObject({ status: 200, headers: { connection: 'close' } });
      await drained;
    } finally {
      agent.destroy();
      server.closeAllConnections();
    }
  });
});
