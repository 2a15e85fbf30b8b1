import { createAppToken, createTestUser, eventually, eventuallyValue, startWebhookReceiver, type ReceivedDelivery, type TestUser, type WebhookReceiver } from '@inkwell/testing';
import * as oauth from 'oauth4webapi';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, expectError, JsonApiClient, ok, walkPages } from './support/json-api-client.js';
import { authorizationRequest, authorizeThroughPages, discover, INSECURE, REDIRECT_URI, registerApp, signIn, type RegisteredClient } from './support/oauth-flow.js';
import { elementText, hiddenFields, WebClient } from './support/web-client.js';

/**
 * Webhooks through the gateway (docs/api/webhooks.md, "REST endpoints"): the whole stack with the
 * webhooks service allowed to reach 127.0.0.1, a real receiver on loopback verifying with the
 * `standardwebhooks` library as it is published, the owner managing endpoints with a personal
 * token and on the developer page, and everyone else refused.
 */
let stack: GatewayStack;
let owner: TestUser;
let stranger: TestUser;
let web: WebClient;
let app: RegisteredClient;
let client: JsonApiClient;
/** Every receiver started, closed at the end: one per endpoint, so that each sees only its endpoint's deliveries. */
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_webhooks', {
    RATE_LIMIT_ANONYMOUS_MAX: '100000',
    RATE_LIMIT_TOKEN_MAX: '100000',
    CREDENTIALS_ADDRESS_MAX: '100000',
    // The webhooks process may deliver to this test's receivers (docs/api/webhooks.md, "Outbound safety").
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  });
  [owner, stranger] = await Promise.all([createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }), createTestUser(stack.system, { scopes: ['read_user'] })]);
  web = new WebClient(stack.origin);
  await signIn(web, owner.name, owner.password);
  app = await registerApp(web, 'Hooked app', 'public');
  client = new JsonApiClient(stack.system.apiUrl, () => owner.token);
}, 240_000);

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await stack?.stop();
});

type Endpoint = { id: string; type: string; attributes: Record<string, unknown>; links?: { self: string } };
type Payload = { id: string; type: string; timestamp: string; data: { type: string; id: string; links: { self: string } } };

const api = (token = owner.token) => client.as(token);
/** The path parameters of the app's endpoint list, or of one endpoint `id`. */
function path(): { params: { path: { app_id: string } } };
function path(id: string): { params: { path: { app_id: string; id: string } } };
function path(id?: string) {
  return { params: { path: id === undefined ? { app_id: app.clientId } : { app_id: app.clientId, id } } };
}

/** A new receiver on loopback. */
async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

/** Registers an endpoint of the owner's app for a receiver of its own; the answer's endpoint (with its secret) and the receiver. */
async function createEndpoint(events: ('story.published' | 'story.updated')[]): Promise<{ endpoint: Endpoint; receiver: WebhookReceiver }> {
  const receiver = await newReceiver();
  const created = await api().POST('/apps/{app_id}/webhooks', { ...path(), body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events } } } });
  return { endpoint: ok(created, 201).data as Endpoint, receiver };
}

/** A published story of the owner (one published chapter, then published); its id. */
async function publishStory(title: string): Promise<string> {
  const story = ok(await api().POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data;
  const chapter = { data: { type: 'chapter' as const, attributes: { title: 'One', content: 'Once upon a time.', published: true } } };
  ok(await api().POST('/stories/{id}/chapters', { params: { path: { id: story.id } }, body: chapter }), 201);
  ok(await api().PATCH('/stories/{id}', { params: { path: { id: story.id } }, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }));
  return story.id;
}

/** The deliveries `receiver` got for the event `eventId`, waiting until there are `count` of them. */
async function deliveriesOf(receiver: WebhookReceiver, eventId: string, count: number): Promise<ReceivedDelivery[]> {
  const of = () => receiver.received.filter((delivery) => delivery.headers['webhook-id'] === eventId);
  await eventually(() => of().length >= count, { timeoutMs: 30_000, what: `${count} deliveries of event ${eventId}` });
  return of();
}

/** The first delivery to `receiver` of a payload of `type` about `resourceId`, once it arrived. */
async function deliveryAbout(receiver: WebhookReceiver, type: string, resourceId: string): Promise<ReceivedDelivery> {
  const find = () => receiver.received.find((delivery) => {
    const payload = JSON.parse(delivery.body) as Payload;
    return payload.type === type && payload.data.id === resourceId;
  });
  await eventually(() => find() !== undefined, { timeoutMs: 30_000, what: `the ${type} delivery of ${resourceId}` });
  return find()!;
}

/** The endpoint's delivery log, as the owner. */
async function log(endpointId: string, status?: 'pending' | 'succeeded' | 'failed') {
  return ok(await api().GET('/apps/{app_id}/webhooks/{id}/deliveries', { params: { path: { app_id: app.clientId, id: endpointId }, query: status === undefined ? {} : { 'filter[status]': status } } })).data;
}

describe('webhooks through the API', () => {
  it('creates an endpoint whose secret is shown once, and delivers a published story, signed so that standardwebhooks verifies it', async () => {
    const { endpoint, receiver } = await createEndpoint(['story.published']);
    const secret = endpoint.attributes.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({
      type: 'webhook_endpoint',
      attributes: { url: receiver.url, events: ['story.published'], active: true, disabled_at: null, previous_secret_expires_at: null },
      links: { self: `${stack.system.apiUrl}/apps/${app.clientId}/webhooks/${endpoint.id}` },
    });
    // Never again: not on GET, not in the list.
    const read = ok(await api().GET('/apps/{app_id}/webhooks/{id}', path(endpoint.id))).data as Endpoint;
    expect(read.attributes).not.toHaveProperty('secret');
    expect(read.attributes.events).toEqual(['story.published']);
    const listed = ok(await api().GET('/apps/{app_id}/webhooks', path())).data as Endpoint[];
    expect(listed.find((candidate) => candidate.id === endpoint.id)?.attributes).not.toHaveProperty('secret');

    const storyId = await publishStory('Hooked on a feeling');
    const delivery = await deliveryAbout(receiver, 'story.published', storyId);
    const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as Payload;
    expect(payload).toEqual({ id: delivery.headers['webhook-id'], type: 'story.published', timestamp: expect.any(String), data: { type: 'story', id: storyId, links: { self: `${stack.system.apiUrl}/stories/${storyId}` } } });
    // The reference resolves with a token of one's own.
    expect(ok(await api().GET('/stories/{id}', { params: { path: { id: storyId } } })).data.id).toBe(storyId);
  });

  it('logs each delivery, filters the log by status, and redelivers an event with the same id and body', async () => {
    const { endpoint, receiver } = await createEndpoint(['story.published']);
    const secret = endpoint.attributes.secret as string;
    const storyId = await publishStory('Told twice');
    const first = await deliveryAbout(receiver, 'story.published', storyId);
    const eventId = first.headers['webhook-id']!;

    const succeeded = await eventuallyValue(() => log(endpoint.id), (entries) => entries.length === 1 && entries[0]!.attributes.status === 'succeeded', { timeoutMs: 30_000, what: 'the delivery logged as succeeded' });
    expect(succeeded[0]).toMatchObject({
      type: 'webhook_delivery',
      attributes: { event_id: eventId, event_type: 'story.published', status: 'succeeded', attempts: 1, last_response_code: 204, last_error: '', next_attempt_at: null },
      relationships: { endpoint: { data: { type: 'webhook_endpoint', id: endpoint.id } } },
    });
    expect(succeeded[0]!.attributes.latency_ms).toEqual(expect.any(Number));
    expect(await log(endpoint.id, 'succeeded')).toHaveLength(1);
    expect(await log(endpoint.id, 'failed')).toEqual([]);
    expectError(await client.call('GET', `/apps/${app.clientId}/webhooks/${endpoint.id}/deliveries?filter[status]=lost`), 400, 'invalid_parameter', { parameter: 'filter[status]' });

    const redelivered = await api().POST('/apps/{app_id}/webhooks/{id}/deliveries/redeliver', { ...path(endpoint.id), body: { data: { type: 'webhook_delivery', attributes: { event_id: eventId } } } });
    expect(ok(redelivered).data).toMatchObject({ type: 'webhook_delivery', attributes: { event_id: eventId } });
    const [, again] = await deliveriesOf(receiver, eventId, 2);
    expect(again!.body).toBe(first.body);
    expect(new Webhook(secret).verify(again!.body, again!.headers)).toMatchObject({ id: eventId });
    const missing = await api().POST('/apps/{app_id}/webhooks/{id}/deliveries/redeliver', { ...path(endpoint.id), body: { data: { type: 'webhook_delivery', attributes: { event_id: '00000000-0000-4000-8000-000000000000' } } } });
    expectError(answer(missing), 404, 'not_found');
  });

  it('rotates the secret: both secrets verify during the grace period, only the new one after a rotation without grace', async () => {
    const { endpoint, receiver } = await createEndpoint(['story.published']);
    const original = endpoint.attributes.secret as string;
    const storyId = await publishStory('Turned over');
    const eventId = (await deliveryAbout(receiver, 'story.published', storyId)).headers['webhook-id']!;
    const redeliver = async (count: number) => {
      ok(await api().POST('/apps/{app_id}/webhooks/{id}/deliveries/redeliver', { ...path(endpoint.id), body: { data: { type: 'webhook_delivery', attributes: { event_id: eventId } } } }));
      return (await deliveriesOf(receiver, eventId, count))[count - 1]!;
    };

    const rotated = ok(await api().POST('/apps/{app_id}/webhooks/{id}/rotate-secret', { ...path(endpoint.id), body: { data: { type: 'webhook_secret_rotation' } } })).data as Endpoint;
    const second = rotated.attributes.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(original);
    expect(rotated.attributes.previous_secret_expires_at).toEqual(expect.any(String));
    const during = await redeliver(2);
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [second, original]) expect(new Webhook(secret).verify(during.body, during.headers)).toMatchObject({ id: eventId });

    const leaked = await api().POST('/apps/{app_id}/webhooks/{id}/rotate-secret', { ...path(endpoint.id), body: { data: { type: 'webhook_secret_rotation', attributes: { grace_period_seconds: 0 } } } });
    const third = (ok(leaked).data as Endpoint).attributes.secret as string;
    const after = await redeliver(3);
    expect(new Webhook(third).verify(after.body, after.headers)).toMatchObject({ id: eventId });
    for (const secret of [second, original]) expect(() => new Webhook(secret).verify(after.body, after.headers)).toThrow();
    expect((ok(await api().GET('/apps/{app_id}/webhooks/{id}', path(endpoint.id))).data as Endpoint).attributes).not.toHaveProperty('secret');
    const tooLong = await api().POST('/apps/{app_id}/webhooks/{id}/rotate-secret', { ...path(endpoint.id), body: { data: { type: 'webhook_secret_rotation', attributes: { grace_period_seconds: 604_801 } } } });
    expectError(answer(tooLong), 422, 'validation_failed', { pointer: '/data/attributes/grace_period_seconds' });
  });

  it('changes and deletes endpoints, and refuses bad URLs and event types where they were sent', async () => {
    const { endpoint, receiver } = await createEndpoint(['story.published']);
    const changed = await api().PATCH('/apps/{app_id}/webhooks/{id}', { ...path(endpoint.id), body: { data: { type: 'webhook_endpoint', id: endpoint.id, attributes: { events: ['story.updated', 'story.published'], active: false } } } });
    expect((ok(changed).data as Endpoint).attributes).toMatchObject({ url: receiver.url, events: ['story.updated', 'story.published'], active: false });
    const ftp = await api().POST('/apps/{app_id}/webhooks', { ...path(), body: { data: { type: 'webhook_endpoint', attributes: { url: 'ftp://hooks.example.com/x', events: ['story.published'] } } } });
    expectError(answer(ftp), 422, 'validation_failed', { pointer: '/data/attributes/url' });
    const unknownEvent = await client.call('POST', `/apps/${app.clientId}/webhooks`, { body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events: ['story.liked'] } } } });
    expectError(unknownEvent, 422, 'validation_failed', { pointer: '/data/attributes/events' });
    const noEvents = await client.call('POST', `/apps/${app.clientId}/webhooks`, { body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url } } } });
    expectError(noEvents, 422, 'validation_failed', { pointer: '/data/attributes/events' });

    // The app's endpoints, oldest first, in pages of one by cursor as in one default page.
    const all = ok(await api().GET('/apps/{app_id}/webhooks', path())).data as Endpoint[];
    expect(all.length).toBeGreaterThan(2);
    expect(all.map((one) => one.id)).toEqual([...all.map((one) => one.id)].sort((a, b) => Number(a) - Number(b)));
    const paged = await walkPages((next) => api().GET('/apps/{app_id}/webhooks', { params: { path: { app_id: app.clientId }, query: { 'page[size]': 1 } }, ...next }));
    expect(paged.map((one) => one.id)).toEqual(all.map((one) => one.id));
    expectError(await client.call('GET', `/apps/${app.clientId}/webhooks?page[size]=11`), 400, 'invalid_parameter', { parameter: 'page[size]' });

    expect(answer(await api().DELETE('/apps/{app_id}/webhooks/{id}', path(endpoint.id))).status).toBe(204);
    expectError(answer(await api().GET('/apps/{app_id}/webhooks/{id}', path(endpoint.id))), 404, 'not_found');
  });

  it('hides the app from a personal token of anyone else (404) and refuses every OAuth app token, even its own (403)', async () => {
    const { endpoint, receiver } = await createEndpoint(['story.published']);
    expectError(answer(await api(stranger.token).GET('/apps/{app_id}/webhooks', path())), 404, 'not_found');
    expectError(answer(await api(stranger.token).GET('/apps/{app_id}/webhooks/{id}', path(endpoint.id))), 404, 'not_found');
    const intruder = await api(stranger.token).POST('/apps/{app_id}/webhooks', { ...path(), body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events: ['story.published'] } } } });
    expectError(answer(intruder), 404, 'not_found');
    expectError(answer(await api(stranger.token).DELETE('/apps/{app_id}/webhooks/{id}', path(endpoint.id))), 404, 'not_found');
    expectError(await client.call('GET', '/apps/no-such-app/webhooks'), 404, 'not_found');

    // The owner's own app, authorized by the owner with every scope it asked for: still an app.
    const as = await discover(stack.origin);
    const publicClient: oauth.Client = { client_id: app.clientId, token_endpoint_auth_method: 'none' };
    const request = await authorizationRequest(as, app.clientId, 'read_user write_stories');
    const { redirect } = await authorizeThroughPages(web, request.url, owner.name, owner.password);
    const params = oauth.validateAuthResponse(as, publicClient, redirect, request.state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, publicClient, await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE));
    const appOnly = (await createAppToken(stack.system, { scopes: ['read_user'] })).token;
    for (const token of [tokens.access_token, appOnly]) {
      expectError(answer(await api(token).GET('/apps/{app_id}/webhooks', path())), 403, 'forbidden');
      const created = await api(token).POST('/apps/{app_id}/webhooks', { ...path(), body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events: ['story.published'] } } } });
      expectError(answer(created), 403, 'forbidden');
      expectError(answer(await api(token).POST('/apps/{app_id}/webhooks/{id}/rotate-secret', { ...path(endpoint.id), body: { data: { type: 'webhook_secret_rotation' } } })), 403, 'forbidden');
    }
    // Nothing changed: the owner's endpoint is as it was.
    expect((ok(await api().GET('/apps/{app_id}/webhooks/{id}', path(endpoint.id))).data as Endpoint).attributes.active).toBe(true);
  });
});

describe('the developer page', () => {
  it('adds an endpoint showing its secret once, rotates it, lists recent deliveries and redelivers one', async () => {
    const receiver = await newReceiver();
    const page = await web.get(`/developer`);
    expect(page.text).toContain(`/developer/webhooks?client_id=${app.clientId}`);
    const list = await web.get(`/developer/webhooks?client_id=${app.clientId}`);
    expect(list.status).toBe(200);

    const fields = hiddenFields(list.text, '/developer/webhooks');
    fields.set('url', receiver.url);
    fields.append('event', 'story.published');
    const added = await web.post('/developer/webhooks', fields);
    expect(added.status).toBe(201);
    const secret = elementText(added.text, 'webhook-secret');
    expect(secret).toMatch(/^whsec_/);
    const again = await web.get(`/developer/webhooks?client_id=${app.clientId}`);
    expect(again.text).not.toContain(secret);

    const storyId = await publishStory('Seen on the page');
    const delivery = await deliveryAbout(receiver, 'story.published', storyId);
    const eventId = delivery.headers['webhook-id']!;
    // The page's endpoint is the newest of the app's: the one the secret verifies.
    expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toMatchObject({ id: eventId });
    const endpoints = ok(await api().GET('/apps/{app_id}/webhooks', path())).data as Endpoint[];
    const endpointId = endpoints.at(-1)!.id;

    const logPage = await web.get(`/developer/webhooks?client_id=${app.clientId}&endpoint_id=${endpointId}`);
    expect(logPage.text).toContain(`data-event-id="${eventId}"`);
    const redeliver = hiddenFields(logPage.text.slice(logPage.text.indexOf(`data-event-id="${eventId}"`)), '/developer/webhooks/redeliver');
    expect(redeliver.get('event_id')).toBe(eventId);
    const sent = await web.post('/developer/webhooks/redeliver', redeliver);
    expect(sent.status).toBe(303);
    await deliveriesOf(receiver, eventId, 2);

    const row = logPage.text.slice(logPage.text.indexOf(`data-endpoint-id="${endpointId}"`));
    const rotated = await web.post('/developer/webhooks/rotate', hiddenFields(row, '/developer/webhooks/rotate'));
    expect(rotated.status).toBe(200);
    const newSecret = elementText(rotated.text, 'webhook-secret');
    expect(newSecret).not.toBe(secret);

    const removed = await web.post('/developer/webhooks/delete', hiddenFields(row, '/developer/webhooks/delete'));
    expect(removed.status).toBe(303);
    expectError(answer(await api().GET('/apps/{app_id}/webhooks/{id}', path(endpointId))), 404, 'not_found');
    // Someone else's app is not found, and a form without the session's CSRF token is refused.
    const stranger404 = await web.get('/developer/webhooks?client_id=no-such-app');
    expect(stranger404.status).toBe(404);
    expect((await web.post('/developer/webhooks', { client_id: app.clientId, url: receiver.url, event: 'story.published', csrf_token: 'forged' })).status).toBe(403);
  });
});

describe('a webhooks service outage', () => {
  it('answers 503 on the webhook routes only; the rest of the API and readiness are unaffected', async () => {
    await stack.process('webhooks').stop();
    const down = await eventuallyValue(async () => answer(await api().GET('/apps/{app_id}/webhooks', path())), (result) => result.status === 503, { timeoutMs: 15_000, what: 'the webhook routes answering 503' });
    expectError(down, 503, 'unavailable');
    expect(ok(await api().GET('/users/{id}', { params: { path: { id: 'me' } } })).data.id).toBe(owner.id);
    const ready = await fetch(`${stack.origin}/readyz`);
    expect(ready.status).toBe(200);
  });
});
