import { createBatchConsumer, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { ReportTargetType } from '@inkwell/proto/users';
import { Topics } from '@inkwell/proto/topics';
import type { ContentHidingService, HideableKind } from '../services/content-hiding.service.js';

/** Options of the consumer of the operators' decisions (group `stories-moderation`, topic users.moderation.v1). */
export interface ModerationConsumerOptions extends ConsumerWiring {
  hiding: ContentHidingService;
}

/** The kinds of ContentHidden this service owns. */
const KIND_OF: ReadonlyMap<ReportTargetType, HideableKind> = new Map([
  [ReportTargetType.STORY, 'story'],
  [ReportTargetType.CHAPTER, 'chapter'],
  [ReportTargetType.COMMENT, 'comment'],
]);

/**
 * Kafka input of moderation (docs/api/safety.md, "Reports and moderation"): ContentHidden of a
 * story, chapter or comment hides it; UserSuspended hides the user's stories and comments. Every
 * step is idempotent, so batches are simply applied in order (a failed batch is retried).
 */
export function createModerationConsumer(options: ModerationConsumerOptions): EventConsumer {
  return createBatchConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'stories-moderation',
    topics: options.topics ?? [Topics.usersModeration],
    logger: options.logger,
    async handleBatch(envelopes) {
      for (const { payload } of envelopes) {
        if (payload.case === 'contentHidden') {
          const kind = KIND_OF.get(payload.value.targetType);
          if (kind !== undefined) await options.hiding.hide(kind, payload.value.targetId);
        } else if (payload.case === 'userSuspended') {
          await options.hiding.hideAuthor(payload.value.userId);
        }
      }
    },
  });
}
