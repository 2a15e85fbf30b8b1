import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';
import { MixedLoad } from '../src/mixed-load.js';

describe('MixedLoad.holdWhile: the load as a load balancer in front of the gateway sends it', () => {
  it('sends nothing while held, then sends again once released', async () => {
    let received = 0;
    const server = createServer((req, res) => {
      received++;
      req.resume();
      res.setHeader('content-type', 'application/vnd.api+json');
      res.end('{"data":null}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const actor = { id: '1', token: 't', storyId: '2', chapterId: '3', shelfId: '4' };
    const load = new MixedLoad({ apiUrl: `http://127.0.0.1:${port}/api/v1`, actors: [actor, { ...actor, id: '5' }], concurrency: 2 });
    let held = true;
    let looked = 0;
    load.holdWhile(() => {
      looked++;
      return held;
    });
    try {
      load.start();
      // Both workers have looked many times whether they may send: nothing reached the server.
      await eventually(() => looked >= 40, { timeoutMs: 10_000, intervalMs: 10, what: 'the held workers to look 40 times' });
      expect(received).toBe(0);
      expect(load.records).toHaveLength(0);

      held = false;
      await eventually(() => load.records.length >= 10, { timeoutMs: 10_000, intervalMs: 10, what: 'the released load to make 10 requests' });
      await load.stop();
      expect(received).toBe(load.records.length);
      expect(load.records.every((record) => record.status === 200)).toBe(true);
    } finally {
      await load.stop();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('MixedLoad: stories that pass', () => {
  it('writes, publishes and deletes stories while the others vote on them and shelve them', async () => {
    // A stand-in API: every write succeeds, a new story or item gets the next id.
    const seen: { method: string; path: string; body: string }[] = [];
    let ids = 1000;
    const status = (req: IncomingMessage) => {
      if (req.method === 'POST') return 201;
      if (req.method === 'DELETE') return 204;
      return 200;
    };
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString() });
        const code = status(req);
        res.writeHead(code, { 'content-type': 'application/vnd.api+json' });
        res.end(code === 204 ? undefined : JSON.stringify({ data: { type: 'x', id: String(++ids) } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const actors = ['1', '2', '3'].map((id) => ({ id, token: `t${id}`, storyId: `${id}00`, chapterId: `${id}01`, shelfId: `${id}02` }));
    const load = new MixedLoad({ apiUrl: `http://127.0.0.1:${port}/api/v1`, actors, concurrency: 3, seed: 7 });
    const deleted = () => seen.filter((request) => request.method === 'DELETE' && /^\/api\/v1\/stories\/\d+$/.test(request.path));
    try {
      load.start();
      await eventually(() => deleted().length >= 3, { timeoutMs: 20_000, intervalMs: 10, what: 'three passing stories deleted' });
      await load.stop();
    } finally {
      await load.stop();
      server.closeAllConnections();
      server.close();
    }
    const lasting = new Set(actors.map((actor) => actor.storyId));
    for (const { path } of deleted()) {
      const id = path.split('/').pop()!;
      // Never one of the lasting stories (their comments are checked for loss afterwards).
      expect(lasting.has(id)).toBe(false);
      const at = (method: string, suffix: string) => seen.findIndex((request) => request.method === method && request.path === `/api/v1/stories/${id}${suffix}`);
      const chapter = at('POST', '/chapters');
      const publish = at('PATCH', '');
      expect(chapter).toBeGreaterThan(-1);
      expect(publish).toBeGreaterThan(chapter);
      expect(at('DELETE', '')).toBeGreaterThan(publish);
    }
    // While published, the others used them: votes on them and items naming them.
    const passingIds = new Set(deleted().map(({ path }) => path.split('/').pop()!));
    const votes = seen.filter((request) => [...passingIds].some((id) => request.path === `/api/v1/stories/${id}/rating`));
    const shelved = seen.filter((request) => request.path.endsWith('/items') && [...passingIds].some((id) => request.body.includes(`"id":"${id}"`)));
    expect(votes.length).toBeGreaterThan(0);
    expect(shelved.length).toBeGreaterThan(0);
  });
});
