import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@inkwell/errors';
import { createLogger } from '@inkwell/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMetrics } from '../../http/http.metrics.js';
import { createRequestContext } from '../../http/request-context.middleware.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { REFUSED_BODY_DRAIN } from '../../http/request-body.js';
import { createApiLinks } from '../../jsonapi/api-links.js';
import { resourceDocument, resourceObject, type JsonValue } from '../../jsonapi/document.builder.js';
import { RouteTable } from '../../routing/route-table.js';
import { defineRoute, ok } from '../../routing/route.types.js';
import { createApiDispatchPolicy } from './api-dispatch.policy.js';

const links = createApiLinks('https://api.inkwell.example');
/** A promise with its resolve function. */
function settled(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
/** Settled when the slow route has started, and when its request's signal aborted. */
const slowStarted = settled();
const slowAborted = settled();
const routes = [
  defineRoute({
    method: 'GET',
    path: '/users/:id',
    params: { id: 'user' },
    handler: async ({ params, selfLink, caller }) => ok(resourceDocument(resourceObject('user', params.id, { request_id: caller.requestId }, { self: links.to(`/users/${params.id}`) }), selfLink)),
  }),
  defineRoute({
    method: 'POST',
    path: '/things',
    handler: async ({ body, query }) => ok(resourceDocument(resourceObject('thing', '1', { body: (body ?? null) as JsonValue, filter: query.get('filter[x]') }), 'self'), 201),
  }),
  defineRoute({ method: 'GET', path: '/things/:id', handler: async () => Promise.reject(AppError.notFound('thing')) }),
  defineRoute({
    method: 'GET',
    path: '/slow',
    handler: async ({ signal }) => {
      slowStarted.resolve();
      await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      slowAborted.resolve();
      return ok(resourceDocument(null, 'self'));
    },
  }),
  defineRoute({ method: 'DELETE', path: '/things/:id', handler: async () => Promise.reject(new Error('pg: password authentication failed for user inkwell')) }),
];

let server: Server;
let origin: string;

beforeAll(async () => {
  const logger = createLogger('gateway-test');
  const context = createRequestContext({ logger, metrics: createHttpMetrics() });
  const dispatch = createApiDispatchPolicy({ table: new RouteTable('/api/v1', routes), links, logger, maxBodyBytes: 1024 }).policy({});
  server = createServer((req: GatewayRequest, res) => {
    context(req, res, () => {
      // The seam the auth policy will use: it replaces the anonymous caller.
      const user = req.headers['x-test-user'];
      if (typeof user === 'string' && req.inkwell) req.inkwell.caller = { ...req.inkwell.caller, userId: user, scopes: [] };
      dispatch(req, res, () => {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: { data?: { id: string; attributes: Record<string, unknown>; links?: { self: string } }; links?: { self: string }; errors?: { status: string; code: string; detail: string }[] };
}

/** A raw HTTP request (fetch would refuse some of the bodies and headers under test). */
function call(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer; chunks?: Buffer[] } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text === '' ? {} : JSON.parse(text) });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close the connection while a too-large body is still being sent.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end(options.body);
  });
}

describe('api-dispatch: routing', () => {
  it('answers a route with its document, links on PUBLIC_BASE_URL and the JSON:API media type', async () => {
    const answer = await call('GET', '/api/v1/users/5?include=x');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/vnd.api+json');
    expect(answer.json.data?.links?.self).toBe('https://api.inkwell.example/api/v1/users/5');
    expect(answer.json.links?.self).toBe('https://api.inkwell.example/api/v1/users/5?include=x');
  });

  it('echoes a sane X-Request-Id and hands it to the handler as the caller request id', async () => {
    const answer = await call('GET', '/api/v1/users/5', { headers: { 'X-Request-Id': 'client-id-1' } });
    expect(answer.headers['x-request-id']).toBe('client-id-1');
    expect(answer.json.data?.attributes.request_id).toBe('client-id-1');
    const generated = await call('GET', '/api/v1/users/5', { headers: { 'X-Request-Id': 'bad id!' } });
    expect(generated.headers['x-request-id']).not.toBe('bad id!');
    expect(generated.json.data?.attributes.request_id).toBe(generated.headers['x-request-id']);
  });

  it('answers unknown paths and non-numeric ids with a JSON:API 404', async () => {
    for (const path of ['/api/v1/users/abc', '/api/v1/nothing', '/api/v1']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-type']).toBe('application/vnd.api+json');
      expect(answer.json.errors?.[0]?.code).toBe('not_found');
    }
  });

  it('answers a known path with another method 405 and Allow', async () => {
    const answer = await call('PUT', '/api/v1/things/1');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, DELETE');
    expect(answer.json.errors?.[0]?.code).toBe('method_not_allowed');
  });

  it('resolves me to the caller, and answers 401 with a Bearer challenge without one', async () => {
    const mine = await call('GET', '/api/v1/users/me', { headers: { 'X-Test-User': '77' } });
    expect(mine.json.data?.id).toBe('77');
    expect(mine.json.links?.self).toBe('https://api.inkwell.example/api/v1/users/me');

    const anonymous = await call('GET', '/api/v1/users/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="inkwell"');
    expect(anonymous.json.errors?.[0]?.code).toBe('invalid_token');
    const withToken = await call('GET', '/api/v1/users/me', { headers: { Authorization: 'Bearer app-only' } });
    expect(withToken.headers['www-authenticate']).toBe('Bearer realm="inkwell", error="invalid_token"');
  });

  it('maps handler AppErrors through the error table and never leaks unknown errors', async () => {
    const missing = await call('GET', '/api/v1/things/3');
    expect(missing.status).toBe(404);
    expect(missing.json.errors?.[0]).toMatchObject({ code: 'not_found', detail: 'The thing does not exist.' });
    const broken = await call('DELETE', '/api/v1/things/3');
    expect(broken.status).toBe(500);
    expect(broken.json.errors?.[0]?.code).toBe('internal');
    expect(JSON.stringify(broken.json)).not.toContain('password');
  });
});

describe('api-dispatch: request bodies', () => {
  const json = { 'Content-Type': 'application/vnd.api+json' };

  it('parses JSON:API and JSON bodies (with a charset) and passes the query through', async () => {
    const answer = await call('POST', '/api/v1/things?filter[x]=1', { headers: json, body: '{"data":{"type":"thing"}}' });
    expect(answer.status).toBe(201);
    expect(answer.json.data?.attributes).toEqual({ body: { data: { type: 'thing' } }, filter: '1' });
    const plain = await call('POST', '/api/v1/things', { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '[1]' });
    expect(plain.json.data?.attributes.body).toEqual([1]);
  });

  it('passes no body as undefined', async () => {
    const answer = await call('POST', '/api/v1/things');
    expect(answer.status).toBe(201);
    expect(answer.json.data?.attributes.body).toBeNull();
  });

  it('answers 415 for other content types', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"']) {
      const answer = await call('POST', '/api/v1/things', { headers: { 'Content-Type': type }, body: '{}' });
      expect(answer.status, type).toBe(415);
      expect(answer.json.errors?.[0]?.code).toBe('unsupported_media_type');
    }
    const untyped = await call('POST', '/api/v1/things', { body: '{}' });
    expect(untyped.status).toBe(415);
  });

  it('answers 400 invalid_body for malformed JSON', async () => {
    const answer = await call('POST', '/api/v1/things', { headers: json, body: '{"data":' });
    expect(answer.status).toBe(400);
    expect(answer.json.errors?.[0]?.code).toBe('invalid_body');
  });

  it('answers 413 for a declared or streamed body over the limit, keeping the connection once the body is read', async () => {
    const declared = await call('POST', '/api/v1/things', { headers: json, body: Buffer.alloc(2048, 0x20) });
    expect(declared.status).toBe(413);
    expect(declared.json.errors?.[0]?.code).toBe('payload_too_large');
    expect(declared.headers.connection).toBe('keep-alive');

    const streamed = await call('POST', '/api/v1/things', { headers: { ...json, 'Transfer-Encoding': 'chunked' }, chunks: Array.from({ length: 8 }, () => Buffer.alloc(512, 0x20)) });
    expect(streamed.status).toBe(413);
  });

  it('closes the connection after a 413 when the refused body is larger than it reads away', async () => {
    const huge = await call('POST', '/api/v1/things', { headers: json, body: Buffer.alloc(REFUSED_BODY_DRAIN.maxBytes + 1024 * 1024, 0x20) });
    expect(huge.status).toBe(413);
    expect(huge.headers.connection).toBe('close');
  });

  it('accepts a body of exactly the limit', async () => {
    const body = `"${'a'.repeat(1022)}"`;
    const answer = await call('POST', '/api/v1/things', { headers: json, body });
    expect(answer.status).toBe(201);
  });
});

describe('a client that goes away', () => {
  it('aborts the signal of its request, so the backend calls made for it are cancelled', async () => {
    const req = httpRequest(`${origin}/api/v1/slow`);
    req.on('error', () => undefined);
    req.end();
    await slowStarted.promise;
    req.destroy();
    await slowAborted.promise;
  });
});
