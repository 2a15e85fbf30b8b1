import type { ServiceImpl } from '@inkwell/grpc';
import type { WebhookService } from '@inkwell/proto/webhooks';
import type { EndpointService } from '../services/endpoint.service.js';
import { eventTypesOf, statusFilterOf, toProtoDelivery, toProtoEndpoint } from './webhook.mappers.js';

/** gRPC handlers of WebhookService: decode → one service call → encode; the rules are EndpointService's. */
export function webhookHandlers(endpoints: EndpointService): ServiceImpl<typeof WebhookService> {
  return {
    async createEndpoint(request, { caller }) {
      const created = await endpoints.create(caller, request.appId, { url: request.url, eventTypes: eventTypesOf(request.eventTypes?.eventTypes ?? []), active: request.active ?? true });
      return { endpoint: toProtoEndpoint(created.endpoint), secret: created.secret };
    },
    async getEndpoint(request, { caller }) {
      return { endpoint: toProtoEndpoint(await endpoints.get(caller, request.appId, request.id)) };
    },
    async listEndpoints(request, { caller }) {
      return { endpoints: (await endpoints.list(caller, request.appId)).map(toProtoEndpoint) };
    },
    async updateEndpoint(request, { caller }) {
      const updated = await endpoints.update(caller, request.appId, request.id, {
        ...(request.url === undefined ? {} : { url: request.url }),
        ...(request.eventTypes === undefined ? {} : { eventTypes: eventTypesOf(request.eventTypes.eventTypes) }),
        ...(request.active === undefined ? {} : { active: request.active }),
      });
      return { endpoint: toProtoEndpoint(updated) };
    },
    async deleteEndpoint(request, { caller }) {
      await endpoints.delete(caller, request.appId, request.id);
      return {};
    },
    async rotateSecret(request, { caller }) {
      const rotated = await endpoints.rotateSecret(caller, request.appId, request.id, request.gracePeriodSeconds);
      return { endpoint: toProtoEndpoint(rotated.endpoint), secret: rotated.secret };
    },
    async listDeliveries(request, { caller }) {
      const status = statusFilterOf(request.status);
      const page = await endpoints.deliveries(caller, request.appId, request.endpointId, { ...(status ? { status } : {}), pageSize: request.pageSize, after: request.after });
      return { deliveries: page.deliveries.map(toProtoDelivery), nextAfter: page.nextAfter };
    },
    async redeliver(request, { caller }) {
      return { delivery: toProtoDelivery(await endpoints.redeliver(caller, request.appId, request.endpointId, request.eventId)) };
    },
  };
}
