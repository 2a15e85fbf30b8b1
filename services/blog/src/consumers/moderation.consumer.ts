import { createBatchConsumer, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { ReportTargetType } from '@inkwell/proto/users';
import { Topics } from '@inkwell/proto/topics';
import type { BlogPostRepository } from '../repositories/blog-post.repository.js';

/** Options of the consumer of the operators' decisions (group `blog-moderation`, topic users.moderation.v1). */
export interface ModerationConsumerOptions extends ConsumerWiring {
  posts: Pick<BlogPostRepository, 'hide'>;
}

/**
 * Kafka input of moderation (docs/api/safety.md, "Reports and moderation"): ContentHidden of a
 * blog post hides it; UserSuspended hides every post of the user. Hiding is idempotent, so
 * batches are simply applied in order (a failed batch is retried).
 */
export function createModerationConsumer(options: ModerationConsumerOptions): EventConsumer {
  return createBatchConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'blog-moderation',
    topics: options.topics ?? [Topics.usersModeration],
    logger: options.logger,
    async handleBatch(envelopes) {
      for (const { payload } of envelopes) {
        if (payload.case === 'contentHidden' && payload.value.targetType === ReportTargetType.BLOG_POST) {
          const hidden = await options.posts.hide({ id: payload.value.targetId });
          options.logger.info({ postId: payload.value.targetId, hidden }, 'blog post hidden by an operator');
        } else if (payload.case === 'userSuspended') {
          const hidden = await options.posts.hide({ byAuthor: payload.value.userId });
          options.logger.info({ authorId: payload.value.userId, hidden }, 'blog posts of a suspended author hidden');
        }
      }
    },
  });
}
