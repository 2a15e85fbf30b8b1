import type { NotificationEvent } from '../domain/notification-event.js';
import type { NotificationEventRepository } from '../repositories/notification-event.repository.js';

/** What applying an event writes: NotificationEventRepository bound to the consumer's transaction, or a memory store in unit tests. */
export type NotificationEventStore = Pick<
  NotificationEventRepository,
  | 'applyStory'
  | 'claimChaptersToAnnounce'
  | 'storyAuthor'
  | 'applyChapter'
  | 'addFollow'
  | 'removeFollow'
  | 'addShelfItem'
  | 'removeShelfItem'
  | 'notify'
  | 'enqueueFanout'
  | 'removeSubject'
>;

/**
 * Turns the other services' events into notifications (docs/api/updates.md, "Notification kinds
 * and visibility"): keeps the local copies the fan-outs and the visibility read, writes the
 * notification of one user at once, and queues the fan-outs to followers and shelf readers,
 * which NotificationFanoutService works off. Never notifies anyone of what they did themselves.
 * Applying an event twice changes nothing: copies keep the newest state, notifications and
 * fan-outs are unique per subject.
 */
export class NotificationEventService {
  constructor(private readonly store: NotificationEventStore) {}

  /** Applies one event. */
  async apply(event: NotificationEvent): Promise<void> {
    const store = this.store;
    switch (event.type) {
      case 'followed':
        await store.addFollow(event.followId, event.followerId, event.followedId);
        if (event.followerId !== event.followedId) {
          await store.notify({ userId: event.followedId, kind: 'new_follower', subjectId: event.followerId, actorId: event.followerId, occurredAt: event.occurredAt });
        }
        return;
      case 'unfollowed':
        return store.removeFollow(event.followId, event.followerId, event.followedId);
      case 'shelf_item_added':
        return store.addShelfItem(event.itemId, event.ownerId, event.storyId);
      case 'shelf_item_removed':
        return store.removeShelfItem(event.itemId, event.ownerId, event.storyId);
      case 'story': {
        const { story } = event;
        const applied = await store.applyStory(story);
        const taken = applied.previous === undefined || applied.replaced;
        if (!taken || !applied.current.published) return;
        if (story.becamePublished) {
          await store.enqueueFanout({ kind: 'story_published', subjectId: story.storyId, actorId: story.authorId, storyId: story.storyId, occurredAt: event.occurredAt });
        }
        // Chapters published after the story whose events came before this one.
        return this.announceChapters(story.storyId);
      }
      case 'chapter': {
        const { chapter } = event;
        const applied = await store.applyChapter(chapter);
        if (!applied.taken) return;
        if (chapter.deleted) return store.removeSubject('chapter_published', chapter.chapterId);
        if (chapter.published) await this.announceChapters(chapter.storyId, chapter.chapterId);
        return;
      }
      case 'comment_created': {
        const authorId = await store.storyAuthor(event.storyId);
        if (authorId === undefined || authorId === event.commenterId) return;
        await store.notify({
          userId: authorId,
          kind: 'story_comment',
          subjectId: event.commentId,
          actorId: event.commenterId,
          storyId: event.storyId,
          commentId: event.commentId,
          occurredAt: event.occurredAt,
        });
        return;
      }
      case 'comment_deleted':
        return store.removeSubject('story_comment', event.commentId);
      case 'message_sent':
        if (event.senderId === event.recipientId) return;
        await store.notify({
          userId: event.recipientId,
          kind: 'private_message',
          subjectId: event.messageId,
          actorId: event.senderId,
          privateMessageId: event.messageId,
          occurredAt: event.occurredAt,
        });
        return;
      case 'blog_post_created':
        // Site posts have no author to follow.
        if (event.sitePost || event.authorId === '0') return;
        await store.enqueueFanout({ kind: 'blog_post', subjectId: event.blogPostId, actorId: event.authorId, blogPostId: event.blogPostId, occurredAt: event.occurredAt });
        return;
      case 'blog_post_deleted':
        return store.removeSubject('blog_post', event.blogPostId);
    }
  }

  /**
   * Queues the chapter_published fan-out of each chapter of the story (or of `chapterId`) that is
   * due one: published after the story's first publication, in a published story, once per
   * chapter. The chapters published while the story was a draft are announced by story_published.
   */
  private async announceChapters(storyId: string, chapterId?: string): Promise<void> {
    for (const due of await this.store.claimChaptersToAnnounce(storyId, chapterId)) {
      await this.store.enqueueFanout({
        kind: 'chapter_published',
        subjectId: due.chapterId,
        actorId: due.authorId,
        storyId,
        chapterId: due.chapterId,
        occurredAt: due.publishedAt,
      });
    }
  }
}
