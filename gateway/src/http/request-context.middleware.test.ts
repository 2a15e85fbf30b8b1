import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@inkwell/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMetrics } from './http.metrics.js';
import { createRequestContext } from './request-context.middleware.js';
import type { GatewayRequest } from './request-state.js';

describe('the request context', () => {
  let draining = false;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const context = createRequestContext({ logger: createLogger('test', { level: 'silent' }), metrics: createHttpMetrics(), draining: () => draining });
    server = createServer((req, res) => context(req as GatewayRequest, res, () => res.end('ok')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const headersOf = (): Promise<IncomingHttpHeaders> =>
    new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/', headers: { 'X-Request-Id': 'abc-1' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      }).on('error', reject);
    });

  it('echoes the request id and keeps the connection open while serving', async () => {
    const headers = await headersOf();
    expect(headers['x-request-id']).toBe('abc-1');
    expect(headers.connection).toBe('keep-alive');
  });

  it('closes the connection after each answer once the gateway drains', async () => {
    draining = true;
    const headers = await headersOf();
    expect(headers.connection).toBe('close');
    expect(headers['x-request-id']).toBe('abc-1');
  });
});
