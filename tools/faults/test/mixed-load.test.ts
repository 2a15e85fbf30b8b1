import { createServer } from 'node:http';
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
