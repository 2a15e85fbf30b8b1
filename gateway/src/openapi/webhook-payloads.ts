import { WEBHOOK_EVENT_TYPES } from '../resources/webhook.resource.js';
import type { OpenApiObject } from './openapi.document.js';

/** What an event type is about: the JSON:API type of its resource, when it is sent, and who gets it. */
interface WebhookEventDoc {
  readonly resource: string;
  readonly summary: string;
  /** The scope the concerned user must grant the app; none for public events. */
  readonly scope?: string;
}

/**
 * Every event type of docs/api/webhooks.md, "Event types". Its names must be those of the proto
 * rule (WEBHOOK_EVENT_TYPES), which {@link webhookPayloadsDocument} checks: an event type the
 * service accepts cannot go undocumented.
 */
const WEBHOOK_EVENTS: Readonly<Record<string, WebhookEventDoc>> = {
  'story.published': { resource: 'story', summary: 'A story became published.' },
  'story.updated': { resource: 'story', summary: 'A published story changed (title, status, rating, tags, published chapters, …).' },
  'story.unpublished': { resource: 'story', summary: 'A published story was unpublished or deleted.' },
  'story.draft_updated': { resource: 'story', summary: 'An unpublished story was created or changed: sent for its author only.', scope: 'read_stories' },
  'chapter.published': { resource: 'chapter', summary: 'A chapter of a published story was published.' },
  'blog_post.published': { resource: 'blog_post', summary: 'A blog post (or site post) was posted.' },
  'bookshelf.updated': { resource: 'bookshelf', summary: 'A public shelf was created, changed or deleted, or a story was added to or removed from it.' },
  'private_bookshelf.updated': { resource: 'bookshelf', summary: 'The same for a private shelf: sent for its owner only.', scope: 'read_bookshelves' },
  'private_message.received': { resource: 'private_message', summary: 'A private message was sent: sent for its recipient only.', scope: 'read_pms' },
};

/** The API path of each resource type a payload names, for the examples' `links.self`. */
const RESOURCE_PATHS: Readonly<Record<string, string>> = { story: '/stories/', chapter: '/chapters/', blog_post: '/blog-posts/', bookshelf: '/bookshelves/', private_message: '/private-messages/' };

const EXAMPLE_EVENT_ID = '6f1c0d2e-8a5b-4c1e-9a53-1b2f3e4d5c6a';

/** The Standard Webhooks headers of every delivery (docs/api/webhooks.md, "Signatures"). */
const SIGNATURE_HEADERS: readonly OpenApiObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id (the payload\'s `id`): the same on every attempt and redelivery. Deduplicate on it: delivery is at least once.',
    schema: { type: 'string', format: 'uuid' },
    example: EXAMPLE_EVENT_ID,
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; a verifier refuses one more than 5 minutes off.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795615391',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 of HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>")>`; during the grace period of a rotated secret two of them, space-separated, the new secret\'s first. Verify with the `standardwebhooks` library (docs/api/webhooks.md, "Signatures").',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/**
 * The OpenAPI 3.1 `webhooks` of the document (docs/api/webhooks.md, "Payloads"): per event type,
 * the POST Inkwell sends to an app's endpoint, with the Standard Webhooks headers and the thin
 * payload (event id, type, time, and the resource's type, id and API URL), and what its answer
 * means. Throws when the proto's event types and this table differ.
 */
export function webhookPayloadsDocument(): OpenApiObject {
  const documented = Object.keys(WEBHOOK_EVENTS);
  if (documented.join() !== WEBHOOK_EVENT_TYPES.join()) throw new Error(`the webhook event types of the proto (${WEBHOOK_EVENT_TYPES.join(', ')}) are not the documented ones (${documented.join(', ')})`);
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, { post: webhookOperation(type, WEBHOOK_EVENTS[type] as WebhookEventDoc) }]));
}

function webhookOperation(type: string, event: WebhookEventDoc): OpenApiObject {
  const who = event.scope === undefined ? 'Public: sent to every endpoint subscribed to it.' : `Private: sent only while the user it concerns grants the app \`${event.scope}\` (docs/api/webhooks.md, "Private events").`;
  const example = { id: EXAMPLE_EVENT_ID, type, timestamp: '2026-11-26T14:03:11.512Z', data: { type: event.resource, id: '1234', links: { self: `https://inkwell.example/api/v1${RESOURCE_PATHS[event.resource] ?? '/'}1234` } } };
  return {
    operationId: `webhook${type.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}`,
    summary: event.summary,
    description: `${who} Fetch \`data.links.self\` with the app's own token for the resource's current state.`,
    tags: ['webhooks'],
    security: [],
    parameters: SIGNATURE_HEADERS,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['id', 'type', 'timestamp', 'data'],
            properties: {
              id: { type: 'string', format: 'uuid', description: 'The event id, also the `webhook-id` header.' },
              type: { const: type },
              timestamp: { type: 'string', format: 'date-time', description: 'When the change happened (not when it was sent).' },
              data: {
                type: 'object',
                required: ['type', 'id', 'links'],
                properties: {
                  type: { const: event.resource },
                  id: { type: 'string' },
                  links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri', description: 'The resource under the public API.' } } },
                },
              },
            },
          },
          example,
        },
      },
    },
    responses: {
      '2XX': { description: 'Received: any 2xx within 10 s ends the delivery as succeeded (answer first, work after).' },
      default: { description: 'Any other answer, a redirect or no answer within 10 s fails the attempt: it is retried with backoff for 3 days (docs/api/webhooks.md, "Retries").' },
    },
  };
}

/** The tag of the webhook operations. */
export const WEBHOOKS_TAG: OpenApiObject = { name: 'webhooks', description: 'What Inkwell POSTs to the webhook endpoints of your apps (docs/api/webhooks.md).' };
