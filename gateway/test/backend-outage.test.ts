import { createServer, type Server, type Socket } from 'node:net';
import { createTestUser, freePort, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, eventually, expectError, JsonApiClient, ok } from './support/json-api-client.js';

// docs/api/foundation.md, "Readiness and backend outages": one backend down takes only its routes down.
const DATABASE = 'inkwell_test_gateway_outage';

let stack: GatewayStack;
let reader: TestUser;
let api: JsonApiClient;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  reader = await createTestUser(stack.system, { scopes: ['read_pms', 'write_pms', 'read_notifications'] });
  api = new JsonApiClient(stack.system.apiUrl, () => reader.token);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

interface Readiness {
  status: string;
  dependencies: Record<string, string>;
  down: string[];
}

async function readyz(origin: string): Promise<{ status: number; body: Readiness }> {
  const response = await fetch(`${origin}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness };
}

/** `/readyz` of `origin` once it reports `dependency` in `state` (polled, at most 15 s). */
function readyzOnce(origin: string, dependency: string, state: string): Promise<{ status: number; body: Readiness }> {
  return eventually(() => readyz(origin), (answer) => answer.body.dependencies[dependency] === state, `/readyz reports ${dependency} ${state}`, 15_000);
}

describe('a backend going down', () => {
  it('before: the gateway is ready and lists every backend and redis as up', async () => {
    const answer = await eventually(() => readyz(stack.origin), (candidate) => candidate.body.down.length === 0 && !Object.values(candidate.body.dependencies).includes('unknown'), 'every dependency checked');
    expect(answer).toEqual({
      status: 200,
      body: { status: 'ok', dependencies: { users: 'up', messaging: 'up', blog: 'up', stories: 'up', bookshelves: 'up', webhooks: 'up', redis: 'up' }, down: [] },
    });
    ok(await api.as(reader.token).GET('/users/{id}/private-messages', { params: { path: { id: 'me' } } }));
  });

  it('after the messaging service stops: its routes answer 503 with Retry-After, the rest keep working, the gateway stays ready', async () => {
    await stack.process('messaging').stop();

    const ready = await readyzOnce(stack.origin, 'messaging', 'down');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', down: ['messaging'], dependencies: { messaging: 'down', users: 'up', stories: 'up', redis: 'up' } });

    const messages = answer(await api.as(reader.token).GET('/users/{id}/private-messages', { params: { path: { id: 'me' } } }));
    expectError(messages, 503, 'unavailable');
    expect(messages.headers.get('retry-after')).toBe('5');
    expect(messages.body.errors).toHaveLength(1);
    expect(messages.body.errors?.[0]).toMatchObject({ status: '503', code: 'unavailable', title: 'Service unavailable', detail: 'A backing service is unavailable. Please try again later.' });
    // The notifications inbox is the messaging service's too: down with it, at once.
    const inbox = answer(await api.as(reader.token).GET('/users/{id}/notifications', { params: { path: { id: 'me' } } }));
    expectError(inbox, 503, 'unavailable');
    expect(inbox.headers.get('retry-after')).toBe('5');

    const stories = ok(await api.as(reader.token).GET('/stories'));
    expect(Array.isArray(stories.data)).toBe(true);
    ok(await api.as(reader.token).GET('/users/{id}', { params: { path: { id: reader.id } } }));

    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/^gateway_dependency_up\{dependency="messaging"\} 0$/m);
    expect(metrics).toMatch(/^gateway_dependency_up\{dependency="stories"\} 1$/m);
    expect(metrics).toMatch(/^gateway_backend_unavailable_total\{backend="messaging",reason="known_down"\} [1-9]\d*$/m);
  });
});

describe('a backend that accepts connections but never answers', () => {
  const sockets = new Set<Socket>();
  let silent: Server;

  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
  });

  // With a 10-minute call deadline, only the health check (800 ms) can tell that blog is gone:
  // this test ends within its own 30 s timeout only because the gateway refuses calls to a backend known to be down.
  it('is reported down and answered with 503 without waiting for the call deadline', async () => {
    const address = silent.address() as { port: number };
    const gateway = await stack.startGateway({ BLOG_SERVICE_ADDR: `127.0.0.1:${address.port}`, GRPC_DEADLINE_MS: '600000' });
    const ready = await eventually(() => readyz(gateway.origin), (answer) => answer.body.dependencies.blog === 'down' && answer.body.dependencies.stories === 'up', 'blog down, stories up', 15_000);
    expect(ready.status).toBe(200);
    expect(ready.body.down).toContain('blog');

    const other = new JsonApiClient(`${gateway.origin}/api/v1`, () => reader.token).as(reader.token);
    const posts = answer(await other.GET('/blog-posts'));
    expect(posts.status).toBe(503);
    expect(posts.headers.get('retry-after')).toBe('5');
    ok(await other.GET('/stories'));
  }, 30_000);
});
