import type { ServiceImpl } from '@inkwell/grpc';
import type { MessagingService } from '@inkwell/proto/messaging';
import type { PrivateMessageService } from '../services/private-message.service.js';
import { toMailboxRequest, toProtoPrivateMessage } from './private-message.mappers.js';

/** gRPC handlers of MessagingService: decode → one service call → encode. */
export function privateMessageHandlers(messages: PrivateMessageService): ServiceImpl<typeof MessagingService> {
  return {
    async getPrivateMessage(request, ctx) {
      return { privateMessage: toProtoPrivateMessage(await messages.get(request.id, ctx.caller)) };
    },
    async listPrivateMessages(request, ctx) {
      const listing = await messages.list(toMailboxRequest(request), ctx.caller);
      return { privateMessages: listing.messages.map(toProtoPrivateMessage), total: listing.total };
    },
    async sendPrivateMessage(request, ctx) {
      const sent = await messages.send(request.recipientId, { subject: request.subject, content: request.content }, ctx.caller, ctx.signal);
      return { privateMessage: toProtoPrivateMessage(sent) };
    },
    async updatePrivateMessage(request, ctx) {
      const changes = request.read === undefined ? {} : { read: request.read };
      return { privateMessage: toProtoPrivateMessage(await messages.update(request.id, changes, ctx.caller)) };
    },
  };
}
