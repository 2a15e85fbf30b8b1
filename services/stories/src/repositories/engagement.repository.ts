import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { AppError } from '@inkwell/errors';
import { ITEM_OVERHEAD_BYTES, LIST_PAGE_MAX_BYTES } from '@inkwell/limits';
import { budgetedPage, budgetedPageSql, type BudgetedRow, withPgErrors, withTransaction } from '@inkwell/pg';
import type { Comment, RatingValue } from '../domain/engagement.js';
import type { Story } from '../domain/story.js';
import { commentCreated, commentDeleted, storyRated } from '../events/story.events.js';
import { lockStory } from './story.rows.js';

interface CommentRow {
  id: string;
  story_id: string;
  author_id: string;
  content: string;
  content_html: string;
  date_posted: Date;
}

const COMMENT_COLUMNS = 'c.id, c.story_id, c.author_id, c.content, c.content_html, c.date_posted';

function toComment(row: CommentRow): Comment {
  return {
    id: String(row.id),
    storyId: String(row.story_id),
    authorId: String(row.author_id),
    content: row.content,
    contentHtml: row.content_html,
    datePosted: row.date_posted,
  };
}

/** A comment together with its story's author and state, for the rules about deleting it. */
export interface CommentInStory {
  comment: Comment;
  storyAuthorId: string;
  storyPublished: boolean;
}

/** SQL access to votes and comments, with their events. */
export class EngagementRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Sets (or, with `value` undefined, withdraws) the vote of `userId` on story `storyId` under the
   * story's lock, after `check` (the service's rules) saw the story. Writes StoryRated only when
   * the vote changed. Returns the vote now. NOT_FOUND when there is no such story.
   */
  async setVote(storyId: string, userId: string, value: RatingValue | undefined, check: (story: Story) => void): Promise<RatingValue | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        check(await lockStory(client, storyId));
        const { rows } = await client.query<{ value: RatingValue }>('SELECT value FROM story_ratings WHERE story_id = $1 AND user_id = $2', [storyId, userId]);
        const previous = rows[0]?.value;
        if (previous === value) return value;
        if (value === undefined) {
          await client.query('DELETE FROM story_ratings WHERE story_id = $1 AND user_id = $2', [storyId, userId]);
        } else {
          await client.query(
            `INSERT INTO story_ratings (story_id, user_id, value) VALUES ($1, $2, $3)
             ON CONFLICT (story_id, user_id) DO UPDATE SET value = EXCLUDED.value, date_rated = now()`,
            [storyId, userId, value],
          );
        }
        await appendEvent(client, { key: storyId, payload: storyRated(storyId, userId, value, previous) });
        return value;
      });
    });
  }

  /**
   * A page of a story's comments, oldest first, after comment id `afterId`; reads `limit + 1`,
   * and stops within the list page's byte budget (docs/api/foundation.md, "Byte budgets").
   */
  async listComments(storyId: string, limit: number, afterId: string | undefined, hiddenAuthorIds: readonly string[] = []): Promise<{ comments: Comment[]; more: boolean }> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CommentRow & BudgetedRow>(
        budgetedPageSql(
          `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.story_id = $1 AND c.id > $2 AND c.hidden_at IS NULL AND ($5::bigint[] IS NULL OR c.author_id <> ALL ($5::bigint[])) ORDER BY c.id LIMIT $3`,
          {
            bytes: `octet_length(content) + octet_length(content_html) + ${ITEM_OVERHEAD_BYTES}`,
            order: 'id',
            budgetParam: '$4',
          },
        ),
        [storyId, afterId ?? '0', limit + 1, LIST_PAGE_MAX_BYTES, hiddenAuthorIds.length > 0 ? [...hiddenAuthorIds] : null],
      );
      const page = budgetedPage(rows, limit);
      return { comments: page.rows.map(toComment), more: page.more };
    });
  }

  /**
   * Hides comments (docs/api/safety.md, "Reports and moderation"): comment `id`, or with
   * `byAuthor` every comment of that user. Hidden comments leave their stories' comments and
   * cannot be read or deleted any more; the story's comment count is not changed.
   */
  async hideComments(target: { id: string } | { byAuthor: string }, now: Date): Promise<number> {
    return withPgErrors(async () => {
      const { rowCount } = 'id' in target
        ? await this.pool.query('UPDATE comments SET hidden_at = $2 WHERE id = $1 AND hidden_at IS NULL', [target.id, now])
        : await this.pool.query('UPDATE comments SET hidden_at = $2 WHERE author_id = $1 AND hidden_at IS NULL', [target.byAuthor, now]);
      return rowCount ?? 0;
    });
  }

  /** Comment `id` with its story's author and state; undefined if none. */
  async findComment(id: string): Promise<CommentInStory | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CommentRow & { story_author_id: string; story_published: boolean }>(
        `SELECT ${COMMENT_COLUMNS}, s.author_id AS story_author_id, s.published AS story_published
         FROM comments c JOIN stories s ON s.id = c.story_id WHERE c.id = $1 AND c.hidden_at IS NULL`,
        [id],
      );
      const row = rows[0];
      return row && { comment: toComment(row), storyAuthorId: String(row.story_author_id), storyPublished: row.story_published };
    });
  }

  /**
   * Adds a comment by `authorId` to story `storyId` under the story's lock, after `check` saw the
   * story, with its CommentCreated event; nothing once `signal` has aborted. NOT_FOUND when there
   * is no such story.
   */
  async createComment(storyId: string, comment: { authorId: string; content: string; contentHtml: string }, check: (story: Story) => void, signal?: AbortSignal): Promise<Comment> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        check(await lockStory(client, storyId));
        const { rows } = await client.query<CommentRow>(
          `INSERT INTO comments AS c (story_id, author_id, content, content_html) VALUES ($1, $2, $3, $4) RETURNING ${COMMENT_COLUMNS}`,
          [storyId, comment.authorId, comment.content, comment.contentHtml],
        );
        const created = toComment(rows[0]!);
        await appendEvent(client, { key: created.id, payload: commentCreated(created) });
        return created;
      }, { signal });
    });
  }

  /** Deletes comment `id` after `check` saw it, with its CommentDeleted event. NOT_FOUND if none. */
  async deleteComment(id: string, check: (found: CommentInStory) => void): Promise<void> {
    return withPgErrors(async () => {
      await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<CommentRow & { story_author_id: string; story_published: boolean }>(
          `SELECT ${COMMENT_COLUMNS}, s.author_id AS story_author_id, s.published AS story_published
           FROM comments c JOIN stories s ON s.id = c.story_id WHERE c.id = $1 AND c.hidden_at IS NULL FOR UPDATE OF c`,
          [id],
        );
        const row = rows[0];
        if (!row) throw AppError.notFound('comment');
        const found = { comment: toComment(row), storyAuthorId: String(row.story_author_id), storyPublished: row.story_published };
        check(found);
        await client.query('DELETE FROM comments WHERE id = $1', [id]);
        await appendEvent(client, { key: found.comment.id, payload: commentDeleted(found.comment) });
      });
    });
  }
}

/** Deletes every comment of story `storyId` inside `client`'s transaction, each with its CommentDeleted event. */
export async function deleteCommentsOfStory(client: pg.PoolClient, storyId: string): Promise<void> {
  const { rows } = await client.query<CommentRow>(`DELETE FROM comments c WHERE c.story_id = $1 RETURNING ${COMMENT_COLUMNS}`, [storyId]);
  for (const row of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
    await appendEvent(client, { key: String(row.id), payload: commentDeleted(toComment(row)) });
  }
}
