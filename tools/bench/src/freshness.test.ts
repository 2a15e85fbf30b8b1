import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureFreshness, orQueries, uniqueWord } from './freshness.js';

describe('orQueries', () => {
  it('joins words with `or` into as few queries as fit the length, keeping every word once', () => {
    const words = Array.from({ length: 40 }, () => uniqueWord());
    const queries = orQueries(words, 60);
    expect(queries.every((query) => query.length <= 60)).toBe(true);
    expect(queries.flatMap((query) => query.split(' or '))).toEqual(words);
    // 10-letter words: 4 fit in 60 characters (4 × 10 + 3 × 4 = 52), a fifth would not.
    expect(queries).toHaveLength(10);
    expect(orQueries([])).toEqual([]);
  });

  it('makes words of letters only, different each time', () => {
    const words = new Set(Array.from({ length: 1000 }, () => uniqueWord()));
    expect(words.size).toBe(1000);
    for (const word of words) expect(word).toMatch(/^zq[a-z]{8}$/);
  });
});

describe('measureFreshness', () => {
  /** A story API that answers a write after `writeMs`, whose search finds a new title `lagMs` after that (never for story "lost"), and whose story "broken" refuses writes. */
  let server: Server;
  let apiUrl: string;
  const lagMs = 150;
  const writeMs = 30;
  const titles = new Map<string, { title: string; at: number }>();
  const patches: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method === 'PATCH') {
          const id = url.pathname.split('/').at(-1)!;
          patches.push(`${id} ${req.headers.authorization}`);
          if (id === 'broken') {
            res.statusCode = 422;
            res.end('{"errors":[]}');
            return;
          }
          const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { attributes: { title: string } } };
          setTimeout(() => {
            titles.set(id, { title: body.data.attributes.title, at: Date.now() });
            res.end('{}');
          }, writeMs);
          return;
        }
        const words = new Set((url.searchParams.get('query') ?? '').split(' or '));
        const now = Date.now();
        const data = [...titles.entries()].filter(([id, story]) => id !== 'lost' && words.has(story.title) && now - story.at >= lagMs).map(([id]) => ({ id }));
        res.setHeader('content-type', 'application/vnd.api+json');
        res.end(JSON.stringify({ data }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('measures from each write to the first search that finds it, at the asked rate, and counts misses and failed writes', async () => {
    const targets = [...Array.from({ length: 40 }, (_, i) => ({ storyId: `s${i}`, token: `author${i % 4}` })), { storyId: 'lost', token: 'a' }, { storyId: 'broken', token: 'a' }];
    const started = Date.now();
    const result = await measureFreshness({ apiUrl, targets, changesPerSecond: 100, readerToken: 'reader', timeoutMs: 1000 });
    const elapsed = Date.now() - started;

    expect(patches).toHaveLength(targets.length);
    expect(patches).toContain('s5 Bearer author1');
    expect(result.changes).toBe(42);
    expect(result.failedWrites).toBe(1);
    expect(result.firstError).toMatch(/PATCH \/stories\/broken: Error: 422/);
    expect(result.missed).toBe(1);
    // 41 writes 10 ms apart take about 0.4 s; then the last change is found after the lag, and the lost one times out.
    expect(result.changesPerSecond).toBeGreaterThan(70);
    expect(result.changesPerSecond).toBeLessThanOrEqual(101);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(result.p50Ms).toBeGreaterThanOrEqual(lagMs - 5);
    expect(result.p50Ms).toBeLessThan(lagMs + 100);
    expect(result.p99Ms).toBeLessThan(lagMs + 1000);
    expect(result.maxMs).toBeGreaterThanOrEqual(result.p99Ms);
    expect(result.searches).toBeGreaterThan(10);
    // Writes are timed to their answers, which the server holds back (upper bounds would measure the machine's load).
    expect(result.writeP50Ms).toBeGreaterThanOrEqual(writeMs - 1);
  });
});
