import { describe, expect, it } from 'vitest';
import { AddressPolicy } from '../delivery/address-guard.js';
import { WebhookSender } from '../delivery/webhook-sender.js';
import { MAX_ENDPOINTS_PER_APP } from '../domain/endpoint.js';
import { MemoryAppDirectory, MemoryDeliveryRepository, MemoryEndpointRepository } from '../testing/memory.repositories.js';
import { EndpointService } from './endpoint.service.js';

function setup() {
  const apps = new MemoryAppDirectory();
  apps.owners.set('app-1', '10');
  apps.owners.set('app-2', '10');
  apps.owners.set('operator-app', null);
  const endpoints = new MemoryEndpointRepository();
  const deliveries = new MemoryDeliveryRepository(endpoints);
  const sender = new WebhookSender({ policy: new AddressPolicy() });
  let counter = 0;
  const service = new EndpointService({
    endpoints,
    deliveries,
    apps,
    secrets: { create: () => ({ secret: `whsec_${++counter}`, sealed: Buffer.from(String(counter)) }) },
    urlRefusal: (url) => sender.refusal(url),
  });
  return { service, endpoints, deliveries };
}

const owner = { userId: '10' };
const input = { url: 'https://hooks.example/inkwell', eventTypes: ['story.published' as const], active: true };

describe('EndpointService (docs/api/webhooks.md, "Endpoints", "Who may manage endpoints")', () => {
  it('lets the owner create an endpoint, with its secret in this answer only', async () => {
    const { service } = setup();
    const { endpoint, secret } = await service.create(owner, 'app-1', input);
    expect(secret).toBe('whsec_1');
    expect(endpoint).toMatchObject({ appId: 'app-1', url: input.url, eventTypes: ['story.published'], active: true });
    expect(JSON.stringify(await service.get(owner, 'app-1', endpoint.id))).not.toContain('whsec_');
  });

  it("answers 404 for an unknown app, someone else's app and an operator's app", async () => {
    const { service } = setup();
    await expect(service.list({ userId: '11' }, 'app-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.list(owner, 'no-such-app')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.list(owner, 'operator-app')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses URLs deliveries may not reach, at /data/attributes/url', async () => {
    const { service } = setup();
    for (const url of ['http://hooks.example/x', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://u:p@hooks.example/x', 'https://hooks.example/x#frag']) {
      await expect(service.create(owner, 'app-1', { ...input, url }), url).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed', pointer: '/data/attributes/url' }] });
    }
  });

  it(`keeps an app to ${MAX_ENDPOINTS_PER_APP} endpoints`, async () => {
    const { service } = setup();
    for (let n = 0; n < MAX_ENDPOINTS_PER_APP; n++) await service.create(owner, 'app-1', input);
    await expect(service.create(owner, 'app-1', input)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', details: [{ reason: 'limit_reached' }] });
  });

  it('rotates the secret with a grace period, or none with 0', async () => {
    const { service } = setup();
    const { endpoint } = await service.create(owner, 'app-1', input);
    const rotated = await service.rotateSecret(owner, 'app-1', endpoint.id);
    expect(rotated.secret).toBe('whsec_2');
    expect(rotated.endpoint.previousSecretExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    expect((await service.rotateSecret(owner, 'app-1', endpoint.id, 0)).endpoint.previousSecretExpiresAt).toBeUndefined();
  });

  it('refuses a cursor it did not issue, and redelivery to an inactive endpoint', async () => {
    const { service } = setup();
    const { endpoint } = await service.create(owner, 'app-1', { ...input, active: false });
    await expect(service.deliveries(owner, 'app-1', endpoint.id, { pageSize: 0, after: 'abc' })).rejects.toMatchObject({ details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }] });
    await expect(service.redeliver(owner, 'app-1', endpoint.id, '0b4f6f3e-5f7a-4f55-9d4c-1e7a5d6b2c10')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', details: [{ reason: 'endpoint_inactive' }] });
  });

  it("does not find an endpoint through another app of the same owner", async () => {
    const { service } = setup();
    const { endpoint } = await service.create(owner, 'app-1', input);
    await expect(service.get(owner, 'app-2', endpoint.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
