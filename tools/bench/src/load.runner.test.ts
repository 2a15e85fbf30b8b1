import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from './load.runner.js';

describe('runLoad', () => {
  let server: Server;
  let apiUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      const slow = req.url?.includes('slow');
      setTimeout(() => {
        res.statusCode = req.url?.includes('fail') ? 500 : 200;
        res.end('{"data":[]}');
      }, slow ? 20 : 0);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('cycles through the requests with their tokens and measures whole answers', async () => {
    const result = await runLoad({ apiUrl, requests: [{ path: '/slow/a', token: 't1' }, { path: '/slow/b', token: 't2' }], concurrency: 2, durationMs: 300, warmupMs: 50 });
    expect(result.errors).toBe(0);
    expect(result.requests).toBeGreaterThan(5);
    expect(result.p50Ms).toBeGreaterThanOrEqual(19);
    expect(result.requestsPerSecond).toBeLessThanOrEqual(110);
    expect(seen).toContain('/api/v1/slow/a Bearer t1');
    expect(seen).toContain('/api/v1/slow/b Bearer t2');
  });

  it('warms up with at least one pass over every request, unmeasured', async () => {
    seen.length = 0;
    const requests = Array.from({ length: 30 }, (_, i) => ({ path: `/warm/${i}`, token: 't' }));
    const result = await runLoad({ apiUrl, requests, concurrency: 3, durationMs: 1, warmupMs: 0 });
    expect(new Set(seen.map((line) => line.split(' ')[0])).size).toBe(30);
    expect(result.requests).toBeLessThan(30);
  });

  it('counts answers other than 200 as errors and keeps the first', async () => {
    const result = await runLoad({ apiUrl, requests: [{ path: '/fail', token: 't' }], concurrency: 1, durationMs: 100, warmupMs: 0 });
    expect(result.errors).toBe(result.requests);
    expect(result.firstError).toMatch(/^500 \/fail/);
  });
});
