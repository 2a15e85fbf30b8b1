import { KnownStoryRepository, type AppliedStory } from '@inkwell/known-stories';
import { withPgErrors, type Queryable } from '@inkwell/pg';
import { FANOUT_SLICES, KIND_CODES, type FanoutKind, type NotificationKind } from '../domain/notification.js';
import type { ChapterChange, StoryChange } from '../domain/notification-event.js';
import { FANOUT_CHANNEL } from './notification-fanout.repository.js';

/** A notification of one user, written as its event is applied (new_follower, story_comment, private_message). */
export interface SingleNotification {
  userId: string;
  kind: Extract<NotificationKind, 'new_follower' | 'story_comment' | 'private_message'>;
  /** What makes it unique for its kind: the follower, the comment or the message. */
  subjectId: string;
  actorId: string;
  storyId?: string;
  commentId?: string;
  privateMessageId?: string;
  occurredAt: Date;
}

/** A fan-out to do: a notification for each recipient of its kind, worked off in chunks (NotificationFanoutRepository). */
export interface FanoutRequest {
  kind: FanoutKind;
  /** The chapter, story or blog post. */
  subjectId: string;
  /** The author, whose followers are notified. */
  actorId: string;
  storyId?: string;
  chapterId?: string;
  blogPostId?: string;
  occurredAt: Date;
}

/** What applying a chapter state came to (as AppliedStory for stories). */
export interface AppliedChapter {
  /** True when the incoming state was stored (the chapter was new, or the state not older than the stored one). */
  taken: boolean;
}

/**
 * The writes of one event, bound to the consumer's transaction (so they commit with its dedupe
 * row): the local copies of stories, chapters, follows and shelf items, the notifications of one
 * user, the fan-outs to do, and the removal of notifications whose subject is gone. Every write is
 * idempotent: the same event applied twice changes nothing the second time.
 */
export class NotificationEventRepository {
  readonly #stories: KnownStoryRepository;

  constructor(private readonly db: Queryable) {
    this.#stories = new KnownStoryRepository(db);
  }

  /** Stores a story state unless the stored one is newer or deleted (see KnownStoryRepository.apply), with its first publication. */
  async applyStory(story: StoryChange): Promise<AppliedStory> {
    const applied = await this.#stories.apply({ storyId: story.storyId, authorId: story.authorId, published: story.published, deleted: story.deleted, version: story.version });
    const taken = applied.previous === undefined || applied.replaced;
    if (taken && (story.datePublished !== undefined || story.tagIds !== undefined)) {
      await withPgErrors(() =>
        this.db.query('UPDATE known_stories SET date_published = coalesce($2, date_published), tag_ids = coalesce($3, tag_ids) WHERE id = $1', [
          story.storyId,
          story.datePublished ?? null,
          story.tagIds === undefined ? null : [...story.tagIds],
        ]),
      );
    }
    return applied;
  }

  /** The author of a known story, or undefined. */
  async storyAuthor(storyId: string): Promise<string | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ author_id: string }>('SELECT author_id::text AS author_id FROM known_stories WHERE id = $1', [storyId]);
      return rows[0]?.author_id;
    });
  }

  /**
   * Stores a chapter state unless the stored one is newer or deleted: stale or replayed states
   * never roll the copy back. A state that published the chapter records when (publishedAt).
   */
  async applyChapter(chapter: ChapterChange): Promise<AppliedChapter> {
    return withPgErrors(async () => {
      const published = chapter.published && !chapter.deleted;
      const { rowCount } = await this.db.query(
        `INSERT INTO known_chapters AS c (id, story_id, published, deleted, version, published_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET story_id = excluded.story_id, published = excluded.published, deleted = excluded.deleted,
           version = excluded.version, published_at = coalesce(excluded.published_at, c.published_at)
         WHERE NOT c.deleted AND c.version <= excluded.version`,
        [chapter.chapterId, chapter.storyId, published, chapter.deleted, chapter.version, chapter.publishedAt ?? null],
      );
      return { taken: rowCount === 1 };
    });
  }

  /**
   * The chapters of a story (or just `chapterId`) due an announcement, which this call claims
   * (each is claimed once): published after the story's first publication (a story without one
   * recorded: any), in a story that is published, never announced before. Returns each with its
   * author and when it was published.
   */
  async claimChaptersToAnnounce(storyId: string, chapterId?: string): Promise<Array<{ chapterId: string; authorId: string; publishedAt: Date }>> {
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ id: string; author_id: string; published_at: Date }>(
        `UPDATE known_chapters c SET announced = true FROM known_stories s
          WHERE c.story_id = $1 AND ($2::bigint IS NULL OR c.id = $2) AND NOT c.announced AND c.published AND NOT c.deleted
            AND c.published_at IS NOT NULL AND s.id = c.story_id AND s.published AND NOT s.deleted
            AND (s.date_published IS NULL OR c.published_at > s.date_published)
          RETURNING c.id::text AS id, s.author_id::text AS author_id, c.published_at`,
        [storyId, chapterId ?? null],
      );
      return rows.map((row) => ({ chapterId: row.id, authorId: row.author_id, publishedAt: row.published_at }));
    });
  }

  /** Records a follow (a follow already removed stays removed). */
  async addFollow(followId: string, followerId: string, followedId: string): Promise<void> {
    await withPgErrors(() =>
      this.db.query('INSERT INTO follows (follow_id, follower_id, followed_id) VALUES ($1, $2, $3) ON CONFLICT (follow_id) DO NOTHING', [followId, followerId, followedId]),
    );
  }

  /** Marks a follow removed, or records it removed when its follow event has not come yet. */
  async removeFollow(followId: string, followerId: string, followedId: string): Promise<void> {
    await withPgErrors(() =>
      this.db.query(
        'INSERT INTO follows (follow_id, follower_id, followed_id, removed) VALUES ($1, $2, $3, true) ON CONFLICT (follow_id) DO UPDATE SET removed = true',
        [followId, followerId, followedId],
      ),
    );
  }

  /** Records a story on a shelf (an item already removed stays removed). */
  async addShelfItem(itemId: string, ownerId: string, storyId: string): Promise<void> {
    await withPgErrors(() =>
      this.db.query('INSERT INTO shelf_items (item_id, owner_id, story_id) VALUES ($1, $2, $3) ON CONFLICT (item_id) DO NOTHING', [itemId, ownerId, storyId]),
    );
  }

  /** Marks an item removed, or records it removed when its added event has not come yet. */
  async removeShelfItem(itemId: string, ownerId: string, storyId: string): Promise<void> {
    await withPgErrors(() =>
      this.db.query(
        'INSERT INTO shelf_items (item_id, owner_id, story_id, removed) VALUES ($1, $2, $3, true) ON CONFLICT (item_id) DO UPDATE SET removed = true',
        [itemId, ownerId, storyId],
      ),
    );
  }

  /** Writes one notification unless the user already has one for this kind and subject. */
  async notify(notification: SingleNotification): Promise<void> {
    await withPgErrors(() =>
      this.db.query(
        `INSERT INTO notifications (user_id, kind, subject_id, actor_id, story_id, comment_id, private_message_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, date_trunc('milliseconds', $8::timestamptz))
         ON CONFLICT (kind, subject_id, user_id) DO NOTHING`,
        [
          notification.userId,
          KIND_CODES[notification.kind],
          notification.subjectId,
          notification.actorId,
          notification.storyId ?? null,
          notification.commentId ?? null,
          notification.privateMessageId ?? null,
          notification.occurredAt,
        ],
      ),
    );
  }

  /**
   * Queues a fan-out in FANOUT_SLICES slices, unless it is still queued (it carries on), and wakes
   * the fan-out workers with a NOTIFY on FANOUT_CHANNEL, delivered when the transaction commits.
   */
  async enqueueFanout(fanout: FanoutRequest): Promise<void> {
    await withPgErrors(() =>
      this.db.query(
        `INSERT INTO notification_fanouts (kind, subject_id, slices, slice, actor_id, story_id, chapter_id, blog_post_id, occurred_at)
         SELECT $1, $2, $3, slice, $4, $5, $6, $7, date_trunc('milliseconds', $8::timestamptz) FROM generate_series(0, $3 - 1) AS slice
         ON CONFLICT (kind, subject_id, slice) DO NOTHING
         RETURNING pg_notify('${FANOUT_CHANNEL}', '')`,
        [KIND_CODES[fanout.kind], fanout.subjectId, FANOUT_SLICES, fanout.actorId, fanout.storyId ?? null, fanout.chapterId ?? null, fanout.blogPostId ?? null, fanout.occurredAt],
      ),
    );
  }

  /**
   * Removes every notification of `kind` about `subjectId` (a deleted comment, blog post or
   * chapter), and the subject's queued fan-out first: its row lock waits for a chunk in flight, so
   * no chunk writes after the removal.
   */
  async removeSubject(kind: NotificationKind, subjectId: string): Promise<void> {
    await withPgErrors(async () => {
      await this.db.query('DELETE FROM notification_fanouts WHERE kind = $1 AND subject_id = $2', [KIND_CODES[kind], subjectId]);
      await this.db.query('DELETE FROM notifications WHERE kind = $1 AND subject_id = $2', [KIND_CODES[kind], subjectId]);
    });
  }
}
