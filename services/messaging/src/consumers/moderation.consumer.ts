import { createBatchConsumer, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { ReportTargetType } from '@inkwell/proto/users';
import { Topics } from '@inkwell/proto/topics';
import type { PrivateMessageRepository } from '../repositories/private-message.repository.js';

/** Options of the consumer of the operators' decisions (group `messaging-moderation`, topic users.moderation.v1). */
export interface ModerationConsumerOptions extends ConsumerWiring {
  messages: Pick<PrivateMessageRepository, 'hide'>;
}

/**
 * Kafka input of moderation (docs/api/safety.md, "Reports and moderation"): ContentHidden of a
 * private message hides it. Hiding is idempotent, so batches are simply applied in order.
 */
export function createModerationConsumer(options: ModerationConsumerOptions): EventConsumer {
  return createBatchConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'messaging-moderation',
    topics: options.topics ?? [Topics.usersModeration],
    logger: options.logger,
    async handleBatch(envelopes) {
      for (const { payload } of envelopes) {
        if (payload.case !== 'contentHidden' || payload.value.targetType !== ReportTargetType.PRIVATE_MESSAGE) continue;
        const hidden = await options.messages.hide(payload.value.targetId);
        options.logger.info({ messageId: payload.value.targetId, hidden }, 'private message hidden by an operator');
      }
    },
  });
}
