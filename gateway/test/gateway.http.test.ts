import { createTestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, eventually, JsonApiClient, ok } from './support/json-api-client.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

interface JsonApiBody {
  data?: { id: string; type: string; attributes: Record<string, unknown>; links: { self: string } };
  links?: { self: string };
  errors?: { status: string; code: string; title: string; detail: string }[];
}

let stack: GatewayStack;
let token: string;
let client: JsonApiClient;

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_test');
  token = (await createTestUser(stack.system)).token;
  client = new JsonApiClient(stack.system.apiUrl, () => token);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** GET /users/:id through the typed client (checked against the API document), with the valid token unless `as` is null (none). */
const user = (id: string, as: string | null = token, requestId?: string) => client.as(as).GET('/users/{id}', { params: { path: { id }, ...(requestId === undefined ? {} : { header: { 'X-Request-Id': requestId } }) } });

/** A raw request, for what the API document cannot express (other methods, unknown paths, non-API paths); with a valid token unless `init.headers` says otherwise (`{}` for none). */
async function get(path: string, init: RequestInit = {}): Promise<{ response: Response; body: JsonApiBody }> {
  const response = await fetch(`${stack.origin}${path}`, { ...init, headers: init.headers ?? { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { response, body: text === '' ? {} : (JSON.parse(text) as JsonApiBody) };
}

describe('gateway over HTTP with the real users service', () => {
  it('GET /api/v1/users/1 answers the seeded user as a JSON:API document', async () => {
    const result = await user('1');
    const body = ok(result);
    expect(result.response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(body.links.self).toBe(`${stack.origin}/api/v1/users/1`);
    expect(body.data).toMatchObject({ id: '1', type: 'user', links: { self: `${stack.origin}/api/v1/users/1` } });
    const attributes = body.data.attributes;
    expect(attributes).toMatchObject({ name: 'ada', bio: 'Writes **long** space operas, one chapter a week.', num_followers: expect.any(Number), num_following: expect.any(Number), num_stories: expect.any(Number), num_blog_posts: expect.any(Number) });
    expect(attributes.bio_html).toContain('<strong>long</strong>');
    expect(attributes.date_joined).toMatch(ISO_UTC);
    expect(attributes).not.toHaveProperty('email');
    expect(attributes).not.toHaveProperty('password');
  });

  it('answers an unknown user with a JSON:API 404 not_found', async () => {
    const { status, headers, body } = answer(await user('999999'));
    expect(status).toBe(404);
    expect(headers.get('content-type')).toBe('application/vnd.api+json');
    expect(body.errors?.[0]).toMatchObject({ status: '404', code: 'not_found' });
  });

  it('answers a non-numeric id with 404 without asking the users service', async () => {
    const { status, body } = answer(await user('abc'));
    expect(status).toBe(404);
    expect(body.errors?.[0]?.code).toBe('not_found');
  });

  it('answers `me` without credentials with 401 and a Bearer challenge', async () => {
    const { status, headers, body } = answer(await user('me', null));
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Bearer realm="inkwell"');
    expect(body.errors?.[0]?.code).toBe('invalid_token');
  });

  it('answers POST on a GET/PATCH path with 405 and Allow: GET, PATCH', async () => {
    const { response, body } = await get('/api/v1/users/1', { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json', authorization: `Bearer ${token}` }, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PATCH');
    expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(body.errors?.[0]?.code).toBe('method_not_allowed');
  });

  it('answers unknown paths, inside and outside the API, with a JSON:API 404', async () => {
    for (const path of ['/api/v1/nothing-here', '/api/v1', '/nothing-here', '/api/v1/users/%E0%A4%A', '/elsewhere/%E0%A4%A', '/API/v1/users/1']) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toBe('application/vnd.api+json');
      expect(body.errors?.[0]?.code, path).toBe('not_found');
    }
  });

  it('echoes a sane X-Request-Id and generates one otherwise, on every kind of response', async () => {
    const echoed = await user('1', token, 'e2e-request-42');
    expect(echoed.response.headers.get('x-request-id')).toBe('e2e-request-42');
    const replaced = await user('abc', token, 'x'.repeat(200));
    expect(replaced.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const health = await fetch(`${stack.origin}/healthz`);
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves /healthz', async () => {
    const response = await fetch(`${stack.origin}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('exposes request metrics by route pattern, never by raw path, on its metrics port only', async () => {
    ok(await user('1'));
    const metrics = await fetch(stack.metricsUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/api\/v1\/users\/:id",status="200"\} \d+$/m);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{.*route="\/api\/v1\/users\/:id".*\} \d+$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('route="/api/v1/users/1"');
    expect(text).not.toContain('route="/api/v1/users/abc"');

    // The public port has no /metrics, with a token or without; the metrics port serves nothing else.
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
      const { response, body } = await get('/metrics', { headers });
      expect(response.status).toBe(404);
      expect(body.errors?.[0]?.code).toBe('not_found');
    }
    expect((await fetch(new URL('/api/v1/users/1', stack.metricsUrl))).status).toBe(404);
  });

  it("marks every API answer as the caller's own, varying by Authorization: successes, 304s, cached answers and errors alike", async () => {
    const fetched = await user('1');
    const etag = fetched.response.headers.get('etag') ?? '';
    const browse = () => get('/api/v1/stories?page[size]=2');
    const answers: [string, Response][] = [
      ['200', fetched.response],
      ['304', (await get('/api/v1/users/1', { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } })).response],
      // The browse list twice: the second answer comes from the gateway's shared cache (docs/api/foundation.md, "Caching at the edge").
      ['200 list', (await browse()).response],
      ['200 list again', (await browse()).response],
      ['404', (await user('999999')).response],
      ['404 unknown path', (await get('/api/v1/nothing-here')).response],
      ['400', (await get('/api/v1/stories?sort=nope')).response],
      ['401 without a token', (await get('/api/v1/users/1', { headers: {} })).response],
      ['401 with an unknown token', (await get('/api/v1/users/1', { headers: { authorization: 'Bearer iwk_pat_unknown' } })).response],
      ['405', (await get('/api/v1/users/1', { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json', authorization: `Bearer ${token}` }, body: '{}' })).response],
    ];
    expect(answers.map(([, response]) => response.status)).toEqual([200, 304, 200, 200, 404, 404, 400, 401, 401, 405]);
    for (const [what, response] of answers) {
      expect(response.headers.get('cache-control'), what).toBe('private, no-cache');
      expect(response.headers.get('vary'), what).toBe('Authorization');
    }
    // The API document is the same for everyone (no token needed), and outside the API answers keep their own rules.
    const document = await fetch(`${stack.origin}/api/v1/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.headers.get('cache-control')).toBe('public, max-age=300');
    expect(document.headers.get('vary')).toBeNull();
    const health = await fetch(`${stack.origin}/healthz`);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(health.headers.get('vary')).toBeNull();
  });

  it('stays ready when the users service is gone, reports it down, and answers its routes 503 with Retry-After', async () => {
    expect((await fetch(`${stack.origin}/readyz`)).status).toBe(200);

    await stack.process('users').stop();

    const readyz = async () => {
      const response = await fetch(`${stack.origin}/readyz`);
      return { status: response.status, body: (await response.json()) as { dependencies: Record<string, string> } };
    };
    const { status, body } = await eventually(readyz, (answer) => answer.body.dependencies.users === 'down', 'users reported down', 10_000);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', down: ['users'], dependencies: { users: 'down', stories: 'up' } });

    // The caller's own record: never served from the public cache (docs/api/foundation.md,
    // "Caching at the edge"), so it needs the users service. Another user's public profile may
    // still be answered from the cache during the outage.
    const own = answer(await user('me'));
    expect(own.status).toBe(503);
    expect(own.headers.get('retry-after')).toBe('5');
    expect(own.body.errors?.[0]).toMatchObject({ status: '503', code: 'unavailable' });
    expect(JSON.stringify(own.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('stops cleanly on SIGTERM', async () => {
    const gateway = stack.process('gateway');
    await gateway.stop(5_000);
    expect(gateway.child.exitCode).toBe(0);
  });
});
