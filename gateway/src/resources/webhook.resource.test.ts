import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { DeliveryStatus, WebhookDeliverySchema, WebhookEndpointSchema } from '@inkwell/proto/webhooks';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { parseCreateBody, parseListQuery, parseUpdateBody } from '../jsonapi/index.js';
import {
  createEndpointRequest,
  deliveryStatusOf,
  toWebhookDeliveryResource,
  toWebhookEndpointResource,
  updateEndpointRequest,
  WEBHOOK_DELIVERY_LIST,
  WEBHOOK_ENDPOINT_CREATE,
  WEBHOOK_ENDPOINT_UPDATE,
  WEBHOOK_EVENT_TYPES,
  webhookEndpointOf,
  webhookEndpointWithSecretOf,
} from './webhook.resource.js';

const links = createApiLinks('https://inkwell.example/');
const endpoint = create(WebhookEndpointSchema, {
  id: '31',
  appId: 'h1YBcQ0x9Qy6pTvZrXkW2A',
  url: 'https://hooks.example.com/inkwell',
  eventTypes: ['story.published', 'chapter.published'],
  active: true,
  dateCreated: timestampFromDate(new Date('2026-11-26T10:00:00Z')),
  dateModified: timestampFromDate(new Date('2026-11-26T10:00:00Z')),
});

function refusal(run: () => unknown): { parameter?: string; pointer?: string } {
  try {
    run();
  } catch (error) {
    return (error as { details: { parameter?: string; pointer?: string }[] }).details[0] ?? {};
  }
  throw new Error('accepted');
}

describe('webhook_endpoint', () => {
  it('maps event_types to events, unset dates to null, and links to the endpoint under its app', () => {
    expect(toWebhookEndpointResource(endpoint, links)).toEqual({
      type: 'webhook_endpoint',
      id: '31',
      attributes: {
        url: 'https://hooks.example.com/inkwell',
        events: ['story.published', 'chapter.published'],
        active: true,
        disabled_at: null,
        previous_secret_expires_at: null,
        date_created: '2026-11-26T10:00:00Z',
        date_modified: '2026-11-26T10:00:00Z',
      },
      links: { self: 'https://inkwell.example/api/v1/apps/h1YBcQ0x9Qy6pTvZrXkW2A/webhooks/31' },
    });
  });

  it('carries the secret only in the answers that made one', () => {
    expect(webhookEndpointWithSecretOf({ endpoint, secret: 'whsec_abc' }, links)?.attributes.secret).toBe('whsec_abc');
    expect(webhookEndpointOf({ endpoint }, links)?.attributes).not.toHaveProperty('secret');
  });

  it('turns a create body into CreateEndpoint, and a PATCH into an UpdateEndpoint of only what was sent', () => {
    const body = parseCreateBody(WEBHOOK_ENDPOINT_CREATE, { data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example/h', events: ['story.updated'] } } });
    expect(createEndpointRequest('app', body)).toEqual({ appId: 'app', url: 'https://x.example/h', eventTypes: { eventTypes: ['story.updated'] } });
    const patch = parseUpdateBody(WEBHOOK_ENDPOINT_UPDATE, { data: { type: 'webhook_endpoint', id: '31', attributes: { active: false } } }, '31');
    expect(updateEndpointRequest('app', '31', patch)).toEqual({ appId: 'app', id: '31', active: false });
  });

  it('requires url and events on a create, and events as an array of strings', () => {
    expect(refusal(() => parseCreateBody(WEBHOOK_ENDPOINT_CREATE, { data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example/h' } } }))).toMatchObject({ pointer: '/data/attributes/events' });
    expect(refusal(() => parseCreateBody(WEBHOOK_ENDPOINT_CREATE, { data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example/h', events: 'story.updated' } } }))).toMatchObject({ pointer: '/data/attributes/events' });
  });

  it('offers the event types of the proto rule', () => {
    expect(WEBHOOK_EVENT_TYPES).toContain('private_message.received');
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(9);
  });
});

describe('webhook_delivery', () => {
  it('maps the latest attempt, null where there was none, and the endpoint relationship', () => {
    const delivery = create(WebhookDeliverySchema, {
      id: '900',
      endpointId: '31',
      eventId: '6f1c0d2e-8a5b-4c1e-9a53-1b2f3e4d5c6a',
      eventType: 'story.published',
      status: DeliveryStatus.PENDING,
      attempts: 0,
      lastError: '',
      eventTime: timestampFromDate(new Date('2026-11-26T10:00:00Z')),
      dateCreated: timestampFromDate(new Date('2026-11-26T10:00:01Z')),
      nextAttemptAt: timestampFromDate(new Date('2026-11-26T10:00:01Z')),
    });
    expect(toWebhookDeliveryResource(delivery)).toEqual({
      type: 'webhook_delivery',
      id: '900',
      attributes: {
        event_id: '6f1c0d2e-8a5b-4c1e-9a53-1b2f3e4d5c6a',
        event_type: 'story.published',
        status: 'pending',
        attempts: 0,
        last_response_code: null,
        last_error: '',
        latency_ms: null,
        event_time: '2026-11-26T10:00:00Z',
        date_created: '2026-11-26T10:00:01Z',
        last_attempt_at: null,
        next_attempt_at: '2026-11-26T10:00:01Z',
      },
      relationships: { endpoint: { data: { type: 'webhook_endpoint', id: '31' } } },
    });
  });

  it('filters the log by status names, and refuses others at filter[status]', () => {
    const query = parseListQuery(WEBHOOK_DELIVERY_LIST, new URLSearchParams('filter[status]=failed'));
    expect(deliveryStatusOf(query.filters.status)).toBe(DeliveryStatus.FAILED);
    expect(deliveryStatusOf(undefined)).toBe(DeliveryStatus.UNSPECIFIED);
    expect(refusal(() => parseListQuery(WEBHOOK_DELIVERY_LIST, new URLSearchParams('filter[status]=lost')))).toMatchObject({ parameter: 'filter[status]' });
  });
});
