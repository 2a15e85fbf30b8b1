import { createLogger } from '@inkwell/logging';
import { describe, expect, it } from 'vitest';
import type { Delivery } from '../domain/endpoint.js';
import type { RetrySchedule } from '../domain/retry-schedule.js';
import type { ClaimedDelivery } from '../repositories/delivery.repository.js';
import { MemoryAppDirectory, MemoryDeliveryRepository } from '../testing/memory.repositories.js';
import { DeliveryService, type AttemptSender } from './delivery.service.js';

const SCHEDULE: RetrySchedule = { baseMs: 1_000, maxDelayMs: 10_000, windowMs: 60_000 };

function setup(answer: { ok: boolean; statusCode?: number; error?: string }) {
  const apps = new MemoryAppDirectory();
  const deliveries = new MemoryDeliveryRepository();
  const sent: Array<{ url: string; headers: Readonly<Record<string, string>>; body: string }> = [];
  const sender: AttemptSender = {
    async send(attempt) {
      sent.push(attempt);
      return answer;
    },
  };
  const service = new DeliveryService({
    deliveries,
    apps,
    sender,
    secrets: { open: (sealed) => sealed.toString() },
    sign: (secrets, id) => ({ 'webhook-id': id, 'webhook-signature': secrets.join(' ') }),
    schedule: SCHEDULE,
    logger: createLogger('delivery-test'),
  });
  return { service, apps, deliveries, sent };
}

function claimed(overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return { id: '1', endpointId: '5', appId: 'app-1', url: 'https://hooks.example/x', eventId: 'e1', eventTime: new Date(), attempts: 0, windowStart: new Date(), payload: '{}', secretSealed: Buffer.from('whsec_new'), ...overrides };
}

function logged(deliveries: MemoryDeliveryRepository, delivery: ClaimedDelivery): void {
  const row: Delivery = { id: delivery.id, endpointId: delivery.endpointId, eventId: delivery.eventId, eventType: 'x', status: 'pending', attempts: delivery.attempts, lastError: '', eventTime: new Date(), dateCreated: new Date() };
  deliveries.deliveries.set(delivery.id, row);
}

describe('DeliveryService (docs/api/webhooks.md, "Retries", "Private events")', () => {
  it('signs with the current and the previous secret, and records a 2xx as success', async () => {
    const { service, deliveries, sent } = setup({ ok: true, statusCode: 204 });
    const delivery = claimed({ previousSecretSealed: Buffer.from('whsec_old') });
    logged(deliveries, delivery);
    await service.attempt(delivery);
    expect(sent[0]!.headers['webhook-signature']).toBe('whsec_new whsec_old');
    expect(deliveries.deliveries.get('1')).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseCode: 204 });
  });

  it('sends a private event only while the user grants the app its scope, and drops it otherwise', async () => {
    const { service, apps, deliveries, sent } = setup({ ok: true, statusCode: 200 });
    const delivery = claimed({ userId: '7', scope: 'read_pms' });
    logged(deliveries, delivery);
    apps.grants.set('7/app-1', ['read_stories']);
    await service.attempt(delivery);
    expect(sent).toHaveLength(0);
    expect(deliveries.deliveries.has('1')).toBe(false);

    logged(deliveries, delivery);
    apps.grants.set('7/app-1', ['read_pms']);
    await service.attempt(delivery);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing and tries again later when the users service cannot answer', async () => {
    const { service, apps, deliveries, sent } = setup({ ok: true });
    const delivery = claimed({ userId: '7', scope: 'read_pms' });
    logged(deliveries, delivery);
    apps.failure = new Error('users unavailable');
    await service.attempt(delivery);
    expect(sent).toHaveLength(0);
    expect(deliveries.deliveries.get('1')).toMatchObject({ status: 'pending', attempts: 0 });
    expect(deliveries.deliveries.get('1')!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('retries a failure within the window, fails it after, and disables an endpoint failing for the whole window', async () => {
    const { service, deliveries } = setup({ ok: false, statusCode: 500, error: 'http_status' });
    const fresh = claimed();
    logged(deliveries, fresh);
    await service.attempt(fresh);
    expect(deliveries.deliveries.get('1')).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, lastError: 'http_status' });
    expect(deliveries.disabled).toEqual([]);

    const old = claimed({ id: '2', attempts: 12, windowStart: new Date(Date.now() - SCHEDULE.windowMs) });
    logged(deliveries, old);
    deliveries.failingSince.set('5', new Date(Date.now() - SCHEDULE.windowMs));
    await service.attempt(old);
    expect(deliveries.deliveries.get('2')).toMatchObject({ status: 'failed', attempts: 13 });
    expect(deliveries.disabled).toEqual(['5']);
  });
});
