import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { ITEM_OVERHEAD_BYTES } from '@inkwell/limits';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { IdPage, StoryListQuery } from '../domain/story-query.js';
import { isEntityId, type ContentRating, type Story, type StoryStatus, type StoryWriting } from '../domain/story.js';
import { chapterDeleted, snapshotChanged, storyCreated, storyDeleted, storyStatsChanged, storyUpdated, storyViewed, type Reader } from '../events/story.events.js';
import { deleteCommentsOfStory } from './engagement.repository.js';
import { adjustTagCounts, chapterColumns, lockStory, readStory, storyColumns, toChapter, toStory, type ChapterRow, type StoryRow, type Tx } from './story.rows.js';
import { qualifyingCountStatement, storyPageStatement } from './story-list.sql.js';

/** A story to create, already validated and rendered. */
export interface NewStory extends StoryWriting {
  now: Date;
}

/** Changes to a story; unset fields stay as they are. */
export interface StoryChange {
  title?: string;
  shortDescription?: string;
  description?: string;
  descriptionHtml?: string;
  status?: StoryStatus;
  contentRating?: ContentRating;
  published?: boolean;
  tagIds?: string[];
  datePublished?: Date;
  hotness?: number;
  dateModified: Date;
}

/** The reader-driven values of a story, as the stats consumer reads and writes them. */
export interface StoryStats {
  views: number;
  likes: number;
  dislikes: number;
  comments: number;
  rating: number | null;
  hotness: number;
  /** Read only: heat is added to published stories only. */
  published: boolean;
}

/** What a service decided about a locked story: change it, or delete it with its chapters. */
export type StoryDecision = { change: StoryChange } | { delete: true };

/** SQL access to stories (and their texts), with their outbox events. */
export class StoryRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Story `id` with the chapter ids `draftsOf` (a user id, or null) may see; undefined if none. */
  async findById(id: string, draftsOf: string | null): Promise<Story | undefined> {
    return withPgErrors(async () => {
      return await readStory(this.pool, id, draftsOf);
    });
  }

  /**
   * The stories of `ids` that exist, in that order, from the first as far as `budgetBytes` of
   * description text (plus a fixed cost per story) allows, never fewer than one
   * (docs/api/foundation.md, "Byte budgets"). `covered` is how many of `ids` the answer
   * accounts for: all of them, or those up to the last story kept. Sizes are read from the
   * texts' headers in the same statement, so a story left out is never read.
   */
  async findWithinBudget(ids: readonly string[], draftsOf: string | null, budgetBytes: number): Promise<{ stories: Story[]; covered: number }> {
    if (ids.length === 0) return { stories: [], covered: 0 };
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<StoryRow & { ord: string; found: string }>({
        name: 'stories.read-within-budget',
        text: `WITH sized AS (
                 SELECT w.id, w.ord, row_number() OVER by_order AS nth, count(*) OVER () AS found,
                        sum(coalesce(octet_length(t.description), 0) + coalesce(octet_length(t.description_html), 0) + $4) OVER by_order AS running_bytes
                   FROM unnest($1::bigint[]) WITH ORDINALITY AS w(id, ord)
                   JOIN stories x ON x.id = w.id AND x.hidden_at IS NULL
                   LEFT JOIN story_texts t ON t.story_id = w.id
                 WINDOW by_order AS (ORDER BY w.ord)
               )
               SELECT ${storyColumns('$2')}, sized.ord, sized.found
                 FROM sized JOIN stories s ON s.id = sized.id LEFT JOIN story_texts t ON t.story_id = s.id
                WHERE sized.nth = 1 OR sized.running_bytes <= $3
                ORDER BY sized.ord`,
        values: [[...new Set(ids)], draftsOf, budgetBytes, ITEM_OVERHEAD_BYTES],
      });
      const last = rows.at(-1);
      const cut = last !== undefined && rows.length < Number(last.found);
      return { stories: rows.map(toStory), covered: cut ? Number(last.ord) : ids.length };
    });
  }

  /** One keyset page of the ids of a story list, in list order (a value-sorted list of a shelf or an author counts what qualifies first, to choose its plan). */
  async listPage(query: StoryListQuery): Promise<IdPage> {
    return withPgErrors(async () => {
      const counting = qualifyingCountStatement(query);
      const qualifying = counting ? (await this.pool.query<{ n: number }>(counting.text, counting.values)).rows[0]!.n : undefined;
      const statement = storyPageStatement(query, qualifying);
      type PageRow = { id: string; sort_key: string | null; tie_id: string };
      const timeoutMs = statement.timeoutMs;
      const { rows } =
        timeoutMs === undefined
          ? await this.pool.query<PageRow>(statement.text, statement.values)
          : await withTransaction(this.pool, async (client) => {
              await client.query("SELECT set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
              return client.query<PageRow>(statement.text, statement.values);
            });
      const page = rows.slice(0, query.limit);
      const positions = page.map((row) => ({ key: row.sort_key, id: row.tie_id }));
      const last = positions.at(-1);
      return { ids: page.map((row) => row.id), positions, ...(rows.length > query.limit && last ? { next: last } : {}) };
    });
  }

  /** Creates a draft story with its `StoryCreated` event; nothing once `signal` has aborted (checked right before COMMIT). */
  async create(story: NewStory, signal?: AbortSignal): Promise<Story> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO stories (author_id, title, short_description, status, content_rating, tag_ids, date_modified, search_vector)
           VALUES ($1, $2, $3, $4, $5, $6, $7, story_search_vector($2, $3, $8, $6))
           RETURNING id`,
          [story.authorId, story.title, story.shortDescription, story.status, story.contentRating, story.tagIds, story.now, story.description],
        );
        const id = String(rows[0]!.id);
        await client.query('INSERT INTO story_texts (story_id, description, description_html) VALUES ($1, $2, $3)', [id, story.description, story.descriptionHtml]);
        const created = (await readStory(client, id, null, true))!;
        await appendEvent(client, { key: id, payload: storyCreated(created) });
        return created;
      }, { signal });
    });
  }

  /**
   * Locks story `id`, lets `decide` (the service's rules) look at it with all its chapter ids,
   * and applies the decision with its events in the same transaction: the changed story
   * (StoryUpdated when anything in its snapshot changed), or undefined after a delete
   * (ChapterDeleted for each chapter, then StoryDeleted). `decide` throwing rolls everything
   * back, and so does `signal` having aborted by the time it would commit. NOT_FOUND when there
   * is no such story.
   */
  async mutate(id: string, decide: (current: Story) => StoryDecision, signal?: AbortSignal): Promise<Story | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const before = await lockStory(client, id);
        const decision = decide(before);
        if ('delete' in decision) {
          await this.deleteLocked(client, before);
          return undefined;
        }
        const after = await this.applyChange(client, before, decision.change);
        if (snapshotChanged(before, after)) await appendEvent(client, { key: id, payload: storyUpdated(before, after) });
        return after;
      }, { signal });
    });
  }

  /**
   * Hides stories `ids` for good (docs/api/safety.md, "Reports and moderation"), in one
   * transaction (locked in id order): unpublishes each with its StoryUpdated event, as an author's
   * unpublishing would (so it leaves the search index, the lists, feeds and downloads, and the
   * other services' copies), and marks it hidden, so that no one, its author included, can read or
   * change it any more. Returns the ids that were visible before; unknown or already hidden
   * stories are left as they are.
   */
  async hide(ids: readonly string[], now: Date): Promise<string[]> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const hidden: string[] = [];
        for (const id of inIdOrder(ids)) {
          const { rows } = await client.query<{ hidden: boolean }>('SELECT hidden_at IS NOT NULL AS hidden FROM stories WHERE id = $1', [id]);
          if (rows[0] === undefined || rows[0].hidden) continue;
          const before = await lockStory(client, id, true);
          const after = await this.applyChange(client, before, { published: false, dateModified: now });
          await client.query('UPDATE stories SET hidden_at = $2 WHERE id = $1', [id, now]);
          if (snapshotChanged(before, after)) await appendEvent(client, { key: id, payload: storyUpdated(before, after) });
          hidden.push(id);
        }
        return hidden;
      });
    });
  }

  /** The ids of every story of `authorId` not hidden yet (a suspended author's, to hide in batches). */
  async visibleIdsOfAuthor(authorId: string): Promise<string[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ id: string }>('SELECT id::text FROM stories WHERE author_id = $1 AND hidden_at IS NULL ORDER BY id', [authorId]);
      return rows.map((row) => row.id);
    });
  }

  /** Writes a `StoryViewed` event (a counted read); the counts follow from the event. */
  async recordView(storyId: string, chapterId: string, reader: Reader): Promise<void> {
    return withPgErrors(async () => {
      await appendEvent(this.pool, { key: storyId, payload: storyViewed(storyId, chapterId, reader) });
    });
  }

  /** Adds `views` to chapter `chapterId` of story `storyId`, inside the consumer's transaction `client`; a chapter deleted since is ignored. */
  async addChapterViews(client: Tx, storyId: string, chapterId: string, views: number): Promise<void> {
    return withPgErrors(async () => {
      await client.query('UPDATE chapters SET num_views = num_views + $3 WHERE id = $1 AND story_id = $2', [chapterId, storyId, views]);
    });
  }

  /**
   * Replaces the reader-driven values of story `storyId` with `update(current)` under the row
   * lock, inside the consumer's transaction `client`, with a StoryStatsChanged event when they
   * changed (the search index follows it). A missing story (deleted since) is ignored.
   */
  async applyStats(client: Tx, storyId: string, update: (current: StoryStats) => StoryStats): Promise<void> {
    return withPgErrors(async () => {
      const { rows } = await client.query<{ views: number; likes: number; dislikes: number; comments: number; rating: number | null; hotness: number; published: boolean }>(
        `SELECT num_views AS views, num_likes AS likes, num_dislikes AS dislikes, num_comments AS comments, rating, hotness, published
         FROM stories WHERE id = $1 FOR UPDATE`,
        [storyId],
      );
      const row = rows[0];
      if (!row) return;
      const next = update(row);
      const changed = (['views', 'likes', 'dislikes', 'comments', 'rating', 'hotness'] as const).some((key) => next[key] !== row[key]);
      if (!changed) return;
      await client.query(
        'UPDATE stories SET num_views = $2, num_likes = $3, num_dislikes = $4, num_comments = $5, rating = $6, hotness = $7 WHERE id = $1',
        [storyId, next.views, next.likes, next.dislikes, next.comments, next.rating, next.hotness],
      );
      await appendEvent(client, { key: storyId, payload: storyStatsChanged(storyId, next) });
    });
  }

  private async applyChange(client: Tx, before: Story, change: StoryChange): Promise<Story> {
    const description = change.description ?? before.description;
    const tagIds = change.tagIds ?? before.tagIds;
    await client.query(
      `UPDATE stories SET
         title = $2, short_description = $3, status = $4, content_rating = $5, published = $6, tag_ids = $7,
         date_published = coalesce(date_published, $8), hotness = $9, date_modified = $10,
         search_vector = story_search_vector($2, $3, $11, $7)
       WHERE id = $1`,
      [
        before.id,
        change.title ?? before.title,
        change.shortDescription ?? before.shortDescription,
        change.status ?? before.status,
        change.contentRating ?? before.contentRating,
        change.published ?? before.published,
        tagIds,
        change.datePublished ?? null,
        change.hotness ?? before.hotness,
        change.dateModified,
        description,
      ],
    );
    if (change.description !== undefined) {
      await client.query('UPDATE story_texts SET description = $2, description_html = $3 WHERE story_id = $1', [before.id, description, change.descriptionHtml ?? '']);
    }
    const after = (await readStory(client, before.id, null, true))!;
    await adjustTagCounts(client, before, after);
    return after;
  }

  private async deleteLocked(client: Tx, story: Story): Promise<void> {
    const { rows } = await client.query<ChapterRow>(`DELETE FROM chapters c WHERE c.story_id = $1 RETURNING ${chapterColumns(false)}`, [story.id]);
    for (const row of rows.sort((a, b) => a.chapter_number - b.chapter_number)) {
      await appendEvent(client, { key: String(row.id), payload: chapterDeleted(toChapter(row), story.authorId) });
    }
    await deleteCommentsOfStory(client, story.id);
    await client.query('DELETE FROM stories WHERE id = $1', [story.id]);
    await adjustTagCounts(client, story, { published: false, tagIds: [] });
    await appendEvent(client, { key: story.id, payload: storyDeleted(story) });
  }
}

/** Distinct story ids (malformed ones left out: they name no story) in ascending numeric order. */
function inIdOrder(ids: readonly string[]): string[] {
  return [...new Set(ids)].filter(isEntityId).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}
