import type { GrpcClient } from '@inkwell/grpc';
import { WebhookService, type WebhookEndpoint } from '@inkwell/proto/webhooks';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { parseCreateBody, parseDocumentQuery, type DocumentResponder } from '../jsonapi/index.js';
import {
  createEndpointRequest,
  deliveryStatusOf,
  updateEndpointRequest,
  WEBHOOK_DELIVERY_DOCUMENT,
  WEBHOOK_DELIVERY_LIST,
  WEBHOOK_ENDPOINT_CREATE,
  WEBHOOK_ENDPOINT_DOCUMENT,
  WEBHOOK_ENDPOINT_LIST,
  WEBHOOK_ENDPOINT_UPDATE,
  WEBHOOK_REDELIVERY_WRITE,
  WEBHOOK_SECRET_ROTATION_WRITE,
  webhookDeliveriesOf,
  webhookDeliveryOf,
  webhookEndpointOf,
  webhookEndpointsOf,
  webhookEndpointWithSecretOf,
} from '../resources/webhook.resource.js';
import { routeKinds, type CursorPageRequest, type CursorPageResponse } from '../routing/route-kinds.js';
import { routeAccess, rpcOf, type Rpc, type RpcOptions } from '../routing/route-rpc.js';
import { defineRoute, type ApiRequest, type RouteDefinition } from '../routing/route.types.js';

/** What the webhook routes need: the webhooks service client, the link builder and the document responder. */
export interface WebhooksRoutesDeps {
  readonly webhooks: GrpcClient<typeof WebhookService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * The webhook endpoints of an app and their delivery logs (paths relative to /api/v1;
 * docs/api/webhooks.md, "REST endpoints"). Every route is first-party and needs the signed-in
 * owner of the app (the RPCs' access option): a personal token, never an OAuth app's token (403
 * `forbidden`, whatever its scopes); an app that is not the caller's, or an endpoint that is not
 * the app's, is 404. When the webhooks service is down these routes answer 503; the rest of the
 * API is not affected (docs/api/foundation.md, "Readiness and backend outages").
 */
export function webhooksRoutes({ webhooks, links, documents }: WebhooksRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  const getEndpoint = rpcOf(webhooks, WebhookService.method.getEndpoint);
  const rotateSecret = rpcOf(webhooks, WebhookService.method.rotateSecret);
  const redeliver = rpcOf(webhooks, WebhookService.method.redeliver);
  const params = { app_id: 'client', id: 'id' } as const;
  return [
    route.list({
      path: '/apps/:app_id/webhooks',
      doc: { summary: "Your app's webhook endpoints, oldest first (at most 10). Personal access tokens only." },
      params: { app_id: 'client' },
      query: WEBHOOK_ENDPOINT_LIST,
      toRequest: ({ params: path }) => ({ appId: path.app_id }),
      rpc: endpointPages(rpcOf(webhooks, WebhookService.method.listEndpoints)),
      toResources: webhookEndpointsOf,
    }),
    route.create({
      path: '/apps/:app_id/webhooks',
      doc: { summary: 'Register a webhook endpoint of your app; the answer holds its signing secret, shown only this once.' },
      params: { app_id: 'client' },
      query: WEBHOOK_ENDPOINT_DOCUMENT,
      body: WEBHOOK_ENDPOINT_CREATE,
      toRequest: ({ params: path, body }) => createEndpointRequest(path.app_id, body),
      rpc: rpcOf(webhooks, WebhookService.method.createEndpoint),
      toResource: webhookEndpointWithSecretOf,
    }),
    route.read({
      path: '/apps/:app_id/webhooks/:id',
      doc: { summary: 'One webhook endpoint of your app (without its secret).' },
      params,
      query: WEBHOOK_ENDPOINT_DOCUMENT,
      toRequest: ({ params: path }) => ({ appId: path.app_id, id: path.id }),
      rpc: getEndpoint,
      toResource: webhookEndpointOf,
    }),
    route.update({
      path: '/apps/:app_id/webhooks/:id',
      doc: { summary: "Change a webhook endpoint's URL, event types or `active` (true again re-enables a disabled one)." },
      params,
      query: WEBHOOK_ENDPOINT_DOCUMENT,
      body: WEBHOOK_ENDPOINT_UPDATE,
      toRequest: ({ params: path, body }) => updateEndpointRequest(path.app_id, path.id, body),
      rpc: rpcOf(webhooks, WebhookService.method.updateEndpoint),
      toResource: webhookEndpointOf,
      // An endpoint that is not the caller's is 404 whatever the body says.
      beforeBodyRefusal: (path, options) => getEndpoint({ appId: path.app_id, id: path.id }, options),
    }),
    route.command({
      method: 'DELETE',
      path: '/apps/:app_id/webhooks/:id',
      doc: { summary: 'Delete a webhook endpoint with its pending deliveries and its log.' },
      params,
      toRequest: ({ params: path }) => ({ appId: path.app_id, id: path.id }),
      rpc: rpcOf(webhooks, WebhookService.method.deleteEndpoint),
    }),
    // An action that answers the endpoint with a new secret, not a created resource: no route kind fits.
    defineRoute({
      method: 'POST',
      path: '/apps/:app_id/webhooks/:id/rotate-secret',
      doc: {
        summary: "Replace a webhook endpoint's signing secret; the new one is in this answer only, the previous one keeps signing for the grace period.",
        query: WEBHOOK_ENDPOINT_DOCUMENT,
        body: WEBHOOK_SECRET_ROTATION_WRITE,
        status: 200,
      },
      params,
      ...routeAccess(rotateSecret),
      async handler(request) {
        const query = parseDocumentQuery(WEBHOOK_ENDPOINT_DOCUMENT, request.query);
        const { attributes } = parseCreateBody(WEBHOOK_SECRET_ROTATION_WRITE, request.body);
        const grace = attributes.grace_period_seconds;
        const response = await rotateSecret({ appId: request.params.app_id, id: request.params.id, ...(grace === undefined ? {} : { gracePeriodSeconds: grace }) }, rpcOptions(request));
        return documents.resource(request, query, webhookEndpointWithSecretOf(response, links));
      },
    }),
    route.list({
      path: '/apps/:app_id/webhooks/:id/deliveries',
      doc: { summary: "A webhook endpoint's delivery log, newest first (kept 30 days)." },
      params,
      query: WEBHOOK_DELIVERY_LIST,
      toRequest: ({ params: path, query }) => ({ appId: path.app_id, endpointId: path.id, status: deliveryStatusOf(query.filters.status) }),
      rpc: rpcOf(webhooks, WebhookService.method.listDeliveries),
      toResources: webhookDeliveriesOf,
    }),
    // Sends an event of the log again: the delivery is queued anew (same event id and body), not created.
    defineRoute({
      method: 'POST',
      path: '/apps/:app_id/webhooks/:id/deliveries/redeliver',
      doc: {
        summary: 'Send an event of the log again (`event_id`), due at once with a new 3-day retry window; the endpoint must be active.',
        query: WEBHOOK_DELIVERY_DOCUMENT,
        body: WEBHOOK_REDELIVERY_WRITE,
        status: 200,
      },
      params,
      ...routeAccess(redeliver),
      async handler(request) {
        const query = parseDocumentQuery(WEBHOOK_DELIVERY_DOCUMENT, request.query);
        const { attributes } = parseCreateBody(WEBHOOK_REDELIVERY_WRITE, request.body);
        const response = await redeliver({ appId: request.params.app_id, endpointId: request.params.id, eventId: attributes.event_id ?? '' }, rpcOptions(request));
        return documents.resource(request, query, webhookDeliveryOf(response));
      },
    }),
  ];
}

/** The RPC options of a request: its caller and, when the client may go away, its signal. */
function rpcOptions(request: ApiRequest): RpcOptions {
  return request.signal === undefined ? { caller: request.caller } : { caller: request.caller, signal: request.signal };
}

/**
 * ListEndpoints as a cursor list: the service answers every endpoint of the app at once (at most
 * 10, oldest first, by id), and the page is cut here, `after` being the last id of the previous page.
 */
function endpointPages(
  listEndpoints: Rpc<{ readonly appId: string }, { readonly endpoints: WebhookEndpoint[] }>,
): Rpc<{ readonly appId: string } & CursorPageRequest, { readonly endpoints: WebhookEndpoint[] } & CursorPageResponse> {
  const call = async ({ appId, pageSize, after }: { readonly appId: string } & CursorPageRequest, options: RpcOptions) => {
    const { endpoints } = await listEndpoints({ appId }, options);
    const rest = after === '' ? endpoints : endpoints.filter((endpoint) => BigInt(endpoint.id) > BigInt(after));
    const page = rest.slice(0, pageSize);
    return { endpoints: page, nextAfter: rest.length > page.length ? (page.at(-1)?.id ?? '') : '' };
  };
  return Object.assign(call, { method: listEndpoints.method });
}
