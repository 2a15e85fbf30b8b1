import { randomBytes, randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createKafka, namespaced, type EventPayloadInit } from '@inkwell/events';
import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import { UsersService } from '@inkwell/proto/users';
import { DeliveryStatus, WebhookService } from '@inkwell/proto/webhooks';
import { createTestUser, dropSchemas, ensureDatabase, eventually, SERVICES, stackEnv, startSystem, startWebhookReceiver, type RunningSystem, type WebhookReceiver } from '@inkwell/testing';
import type { Producer } from 'kafkajs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The delivery service in a whole running system (docs/api/webhooks.md): events written to the
 * real Kafka topics, a real users service answering who authorized what, and real receivers on
 * loopback (allowlisted for this system only).
 */
describe('webhook deliveries', () => {
  let system: RunningSystem;
  let users: GrpcClient<typeof UsersService>;
  let webhooks: GrpcClient<typeof WebhookService>;
  let producer: Producer;
  let owner: { id: string };
  let appId: string;

  beforeAll(async () => {
    const stack = stackEnv();
    const databaseUrl = await ensureDatabase(stack.databaseUrl, 'webhooks_deliveries_test');
    await dropSchemas(databaseUrl, SERVICES.map((service) => service.schema));
    system = await startSystem({
      stack: { ...stack, databaseUrl },
      ports: 'free',
      seedDemoData: false,
      readyTimeoutMs: 120_000,
      // A retry schedule of milliseconds, so that a receiver that was down is caught up at once.
      env: { LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_DELAY_MS: '200', WEBHOOK_POLL_INTERVAL_MS: '50' },
    });
    const signer = system.keys.signer('gateway');
    users = createGrpcClient(UsersService, system.addresses.users!, { signer, defaultDeadlineMs: 15_000 });
    webhooks = createGrpcClient(WebhookService, system.addresses.webhooks!, { signer, defaultDeadlineMs: 15_000 });
    const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: 'webhooks-test', logger: createLogger('webhooks-test'), namespace: system.kafkaNamespace });
    producer = kafka.producer();
    await producer.connect();
    send = async (topic, key, payload) => {
      const eventId = randomUUID();
      const envelope = create(EventEnvelopeSchema, { eventId, key, type: payload.case, occurredAt: timestampFromDate(new Date()), payload });
      await producer.send({ topic: namespaced(kafka, topic), messages: [{ key, value: Buffer.from(toBinary(EventEnvelopeSchema, envelope)) }] });
      return eventId;
    };
    owner = await createTestUser(system);
    const { client } = await users.createClient({ name: 'hook app', redirectUris: ['http://127.0.0.1/callback'], confidential: true }, as(owner.id));
    appId = client!.id;
  }, 240_000);

  afterAll(async () => {
    await producer?.disconnect();
    users?.close();
    webhooks?.close();
    await system?.stop();
  });

  let send: (topic: string, key: string, payload: EventPayloadInit) => Promise<string>;

  const as = (userId: string) => ({ caller: { requestId: 'webhooks-test', userId, scopes: [] } });

  /** A user who authorized the app with `scopes` (an authorization code exchanged for an access token); returns the user and the token. */
  async function authorizedUser(scopes: string[]): Promise<{ id: string; token: string }> {
    const user = await createTestUser(system);
    const code = randomBytes(16).toString('hex');
    const { authorizationCode } = await users.saveAuthorizationCode(
      { code, clientId: appId, redirectUri: 'http://127.0.0.1/callback', scopes, expiresAt: timestampFromDate(new Date(Date.now() + 60_000)) },
      as(user.id),
    );
    const token = randomBytes(24).toString('hex');
    await users.saveTokens({ accessToken: token, accessExpiresAt: timestampFromDate(new Date(Date.now() + 3_600_000)), clientId: appId, scopes, authorizationCodeId: authorizationCode!.id }, as(user.id));
    return { id: user.id, token };
  }

  async function endpoint(receiver: WebhookReceiver, eventTypes: string[]): Promise<{ id: string; secret: string }> {
    const { endpoint: created, secret } = await webhooks.createEndpoint({ appId, url: receiver.url, eventTypes: { eventTypes } }, as(owner.id));
    return { id: created!.id, secret };
  }

  const message = (recipientId: string) => ({ case: 'messageSent' as const, value: { messageId: String(Date.now()), senderId: owner.id, recipientId } });
  const bodiesOf = (receiver: WebhookReceiver) => receiver.received.map((entry) => JSON.parse(entry.body) as { id: string; type: string; data: { type: string; id: string; links: { self: string } } });

  it('delivers a public event, signed so that standardwebhooks verifies it, with a thin reference', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { secret } = await endpoint(receiver, ['story.published']);
      const eventId = await send(Topics.storiesStory, '41', { case: 'storyUpdated', value: { story: { storyId: '41', authorId: owner.id, title: 'T', published: true }, previousPublished: false } });
      await eventually(() => receiver.received.length === 1, { timeoutMs: 30_000, what: 'the delivery' });
      const [delivery] = receiver.received;
      expect(new Webhook(secret).verify(delivery!.body, delivery!.headers)).toMatchObject({ id: eventId, type: 'story.published' });
      expect(delivery!.headers['webhook-id']).toBe(eventId);
      expect(bodiesOf(receiver)[0]!.data).toEqual({ type: 'story', id: '41', links: { self: `${system.apiUrl}/stories/41` } });
    } finally {
      await receiver.close();
    }
  });

  it('delivers a private message event only for users who granted read_pms, and stops at once when the grant is revoked', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      await endpoint(receiver, ['private_message.received']);
      const reader = await authorizedUser(['read_pms']);
      const other = await authorizedUser(['read_stories']);
      const stranger = await createTestUser(system);
      // One key: the three events are consumed in this order, so once the last is delivered the others were handled.
      await send(Topics.messagingMessage, 'pm', message(other.id));
      await send(Topics.messagingMessage, 'pm', message(stranger.id));
      const delivered = await send(Topics.messagingMessage, 'pm', message(reader.id));
      await eventually(() => receiver.received.length >= 1, { timeoutMs: 30_000, what: 'the private delivery' });
      expect(bodiesOf(receiver).map((body) => body.id)).toEqual([delivered]);

      await users.revokeToken({ token: reader.token, clientId: '' }, as(reader.id));
      const stillAuthorized = await authorizedUser(['read_pms']);
      await send(Topics.messagingMessage, 'pm', message(reader.id));
      const afterRevocation = await send(Topics.messagingMessage, 'pm', message(stillAuthorized.id));
      await eventually(() => receiver.received.length >= 2, { timeoutMs: 30_000, what: 'the delivery after the revocation' });
      expect(bodiesOf(receiver).map((body) => body.id)).toEqual([delivered, afterRevocation]);
      expect(bodiesOf(receiver).map((body) => body.type)).toEqual(['private_message.received', 'private_message.received']);
    } finally {
      await receiver.close();
    }
  });

  it('gets every event to a receiver that was down, once each, and logs the attempts', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { id: endpointId } = await endpoint(receiver, ['story.published']);
      receiver.setDown(true);
      const sent: string[] = [];
      for (let story = 100; story < 105; story++) {
        sent.push(await send(Topics.storiesStory, String(story), { case: 'storyUpdated', value: { story: { storyId: String(story), authorId: owner.id, published: true }, previousPublished: false } }));
      }
      const failedTwice = async () => {
        const { deliveries } = await webhooks.listDeliveries({ appId, endpointId }, as(owner.id));
        return deliveries.length === 5 && deliveries.every((delivery) => delivery.attempts >= 2 && delivery.lastResponseCode === 503);
      };
      await eventually(failedTwice, { timeoutMs: 30_000, what: 'every delivery to have failed twice' });
      receiver.setDown(false);
      await eventually(() => receiver.received.length >= 5, { timeoutMs: 30_000, what: 'every event after the receiver came back' });
      // Successes are written to the log in groups (docs/api/webhooks.md): the log follows the receiver shortly after.
      const allSucceeded = async () => (await webhooks.listDeliveries({ appId, endpointId }, as(owner.id))).deliveries.every((delivery) => delivery.status === DeliveryStatus.SUCCEEDED);
      await eventually(allSucceeded, { timeoutMs: 10_000, what: 'every delivery logged as succeeded' });
      const { deliveries } = await webhooks.listDeliveries({ appId, endpointId }, as(owner.id));
      expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(5).fill(DeliveryStatus.SUCCEEDED));
      const ids = bodiesOf(receiver).map((body) => body.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual([...sent].sort());
    } finally {
      await receiver.close();
    }
  });

  it('drops a private delivery already queued when the user revokes the app before it is sent', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { id: endpointId } = await endpoint(receiver, ['private_message.received']);
      const reader = await authorizedUser(['read_pms']);
      receiver.setDown(true);
      await send(Topics.messagingMessage, 'queued', message(reader.id));
      const failedOnce = async () => (await webhooks.listDeliveries({ appId, endpointId }, as(owner.id))).deliveries.some((delivery) => delivery.attempts >= 1);
      await eventually(failedOnce, { timeoutMs: 30_000, what: 'the queued delivery to have failed once' });
      await users.revokeToken({ token: reader.token, clientId: '' }, as(reader.id));
      const logEmpty = async () => (await webhooks.listDeliveries({ appId, endpointId }, as(owner.id))).deliveries.length === 0;
      await eventually(logEmpty, { timeoutMs: 30_000, what: 'the revoked delivery to be dropped from the log' });
      receiver.setDown(false);
      const later = await authorizedUser(['read_pms']);
      const control = await send(Topics.messagingMessage, 'queued', message(later.id));
      await eventually(() => receiver.received.length >= 1, { timeoutMs: 30_000, what: 'the control delivery' });
      expect(bodiesOf(receiver).map((body) => body.id)).toEqual([control]);
    } finally {
      await receiver.close();
    }
  });

  it('signs with the old and the new secret during a rotation, and redelivers an event with the same id', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { id: endpointId, secret: first } = await endpoint(receiver, ['blog_post.published']);
      const rotated = await webhooks.rotateSecret({ appId, id: endpointId }, as(owner.id));
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.endpoint?.previousSecretExpiresAt).toBeDefined();
      const eventId = await send(Topics.blogPost, '7', { case: 'blogPostCreated', value: { blogPost: { blogPostId: '7', authorId: owner.id, title: 'Hello' } } });
      await eventually(() => receiver.received.length === 1, { timeoutMs: 30_000, what: 'the delivery' });
      const [delivery] = receiver.received;
      expect(new Webhook(first).verify(delivery!.body, delivery!.headers)).toMatchObject({ id: eventId, type: 'blog_post.published' });
      expect(new Webhook(rotated.secret).verify(delivery!.body, delivery!.headers)).toMatchObject({ id: eventId });

      const { delivery: again } = await webhooks.redeliver({ appId, endpointId, eventId }, as(owner.id));
      expect(again?.status).toBe(DeliveryStatus.PENDING);
      await eventually(() => receiver.received.length === 2, { timeoutMs: 30_000, what: 'the redelivery' });
      expect(receiver.received[1]!.body).toBe(delivery!.body);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(eventId);

      await webhooks.rotateSecret({ appId, id: endpointId, gracePeriodSeconds: 0 }, as(owner.id));
      const { endpoint: current } = await webhooks.getEndpoint({ appId, id: endpointId }, as(owner.id));
      expect(current?.previousSecretExpiresAt).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });

  it('pauses an endpoint (its pending deliveries fail), changes what it takes, and deletes it with its log', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { id: endpointId } = await endpoint(receiver, ['story.published']);
      receiver.setDown(true);
      await send(Topics.storiesStory, '300', { case: 'storyUpdated', value: { story: { storyId: '300', authorId: owner.id, published: true }, previousPublished: false } });
      const pendingAfterAFailure = async () => (await webhooks.listDeliveries({ appId, endpointId, status: DeliveryStatus.PENDING }, as(owner.id))).deliveries.some((delivery) => delivery.attempts >= 1);
      await eventually(pendingAfterAFailure, { timeoutMs: 30_000, what: 'a pending delivery that failed once' });

      const { endpoint: paused } = await webhooks.updateEndpoint({ appId, id: endpointId, active: false, eventTypes: { eventTypes: ['story.published', 'story.unpublished'] } }, as(owner.id));
      expect(paused).toMatchObject({ active: false, eventTypes: ['story.published', 'story.unpublished'], url: receiver.url });
      const { deliveries } = await webhooks.listDeliveries({ appId, endpointId }, as(owner.id));
      expect(deliveries.map((delivery) => [delivery.status, delivery.lastError])).toEqual([[DeliveryStatus.FAILED, 'endpoint_inactive']]);

      const { endpoint: resumed } = await webhooks.updateEndpoint({ appId, id: endpointId, active: true }, as(owner.id));
      expect(resumed).toMatchObject({ active: true, eventTypes: ['story.published', 'story.unpublished'] });
      expect(resumed?.disabledAt).toBeUndefined();

      await webhooks.deleteEndpoint({ appId, id: endpointId }, as(owner.id));
      await expect(webhooks.getEndpoint({ appId, id: endpointId }, as(owner.id))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(webhooks.listDeliveries({ appId, endpointId }, as(owner.id))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('keeps a hanging receiver to 2 attempts in flight, and it does not hold up another endpoint', { timeout: 120_000 }, async () => {
    const [slow, fast] = [await startWebhookReceiver(), await startWebhookReceiver()];
    try {
      await endpoint(slow, ['story.updated']);
      await endpoint(fast, ['story.updated']);
      slow.setHeld(true);
      const sent: string[] = [];
      for (let story = 400; story < 408; story++) {
        sent.push(await send(Topics.storiesStory, String(story), { case: 'storyUpdated', value: { story: { storyId: String(story), authorId: owner.id, published: true }, previousPublished: true } }));
      }
      // Within the 10 s an attempt may last: the two held attempts are still open all along.
      await eventually(() => slow.waiting() === 2 && fast.received.length === sent.length, { timeoutMs: 9_000, what: 'two attempts held at the hanging receiver and every event at the other' });
      expect(slow.waiting()).toBe(2);
      slow.setHeld(false);
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it('lets only the owner manage the app\'s endpoints', { timeout: 120_000 }, async () => {
    const stranger = await createTestUser(system);
    await expect(webhooks.listEndpoints({ appId }, as(stranger.id))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(webhooks.listEndpoints({ appId }, { caller: { requestId: 'webhooks-test', userId: owner.id, appId: 'another-app', scopes: [] } })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(webhooks.createEndpoint({ appId, url: 'http://hooks.example/x', eventTypes: { eventTypes: ['story.published'] } }, as(owner.id))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
