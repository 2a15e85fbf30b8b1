import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { AppError } from '@inkwell/errors';
import { ITEM_OVERHEAD_BYTES, LIST_PAGE_MAX_BYTES } from '@inkwell/limits';
import { budgetedPage, budgetedPageSql, withPgErrors, withTransaction, type BudgetedRow } from '@inkwell/pg';
import type { Chapter } from '../domain/chapter.js';
import type { Story } from '../domain/story.js';
import { chapterCreated, chapterDeleted, chapterUpdated, snapshotChanged, storyUpdated } from '../events/story.events.js';
import { chapterColumns, lockStory, readStory, refreshStoryTotals, toChapter, type ChapterRow, type Tx } from './story.rows.js';

/** SQL of a chapter row's author's-note bytes (the note and its HTML), for byte budgets. */
const NOTE_BYTES = 'octet_length(authors_note) + octet_length(authors_note_html)';

/** A chapter together with what visibility rules need to know about its story. */
export interface ChapterInStory {
  chapter: Chapter;
  authorId: string;
  storyPublished: boolean;
}

/** Whose chapters ChapterRepository.listLatest lists: one story's, or every story's of one author. */
export type LatestChaptersSource = { storyId: string } | { authorId: string };

/** A chapter to append to a story, already validated and rendered. */
export interface NewChapter extends Pick<Chapter, 'title' | 'authorsNote' | 'authorsNoteHtml' | 'published' | 'numWords'> {
  content: string;
  contentHtml: string;
  now: Date;
}

/** Changes to a chapter; unset fields stay as they are. */
export interface ChapterChange {
  title?: string;
  content?: string;
  contentHtml?: string;
  authorsNote?: string;
  authorsNoteHtml?: string;
  published?: boolean;
  numWords?: number;
  now: Date;
}

/** What a service decided about a locked chapter: change it, delete it, or leave it as it is. */
export type ChapterDecision = { change: ChapterChange } | { delete: true } | { keep: true };

type ChapterStoryRow = ChapterRow & { author_id: string; story_published: boolean };

/** SQL access to chapters; every write also keeps its story's totals and emits the events. */
export class ChapterRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Chapter `id` (with content when `withContent`) and its story's author and state. */
  async findById(id: string, withContent: boolean): Promise<ChapterInStory | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ChapterStoryRow>({
        name: withContent ? 'chapters.read-one-content' : 'chapters.read-one',
        text: `SELECT ${chapterColumns(withContent)}, s.author_id, s.published AS story_published
         FROM chapters c JOIN stories s ON s.id = c.story_id WHERE c.id = $1 AND c.hidden_at IS NULL AND s.hidden_at IS NULL`,
        values: [id],
      });
      return rows[0] && toChapterInStory(rows[0]);
    });
  }

  /**
   * The chapters with these (unique) ids that exist (without content), in the order of `ids`,
   * from the first as far as `budgetBytes` of authors' notes allows (docs/api/foundation.md,
   * "Byte budgets"); `covered` is how many of `ids` the answer accounts for.
   */
  async findByIds(ids: readonly string[], budgetBytes: number): Promise<{ chapters: ChapterInStory[]; covered: number }> {
    if (ids.length === 0) return { chapters: [], covered: 0 };
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ChapterStoryRow & BudgetedRow & { ord: string }>(
        budgetedPageSql(
          `SELECT ${chapterColumns(false)}, s.author_id, s.published AS story_published, w.ord
             FROM unnest($1::bigint[]) WITH ORDINALITY AS w(wanted, ord) JOIN chapters c ON c.id = w.wanted AND c.hidden_at IS NULL JOIN stories s ON s.id = c.story_id AND s.hidden_at IS NULL`,
          { bytes: `${NOTE_BYTES} + ${ITEM_OVERHEAD_BYTES}`, order: 'ord', budgetParam: '$2' },
        ),
        [ids, budgetBytes],
      );
      const page = budgetedPage(rows, rows.length);
      return { chapters: page.rows.map(toChapterInStory), covered: page.more ? Number(rows.at(-1)!.ord) : ids.length };
    });
  }

  /**
   * A page of the chapters of story `storyId` in chapter order, drafts only when `withDrafts`,
   * starting after chapter number `afterNumber`; `limit + 1` rows are read so the caller knows
   * whether more follow. With `textBudgetBytes`, the chapters come with their content and the
   * page ends before the chapter whose text (content, authors' notes and their HTML) would bring
   * the page's total over that budget; without, the page keeps to the list page budget of its
   * authors' notes (the first chapter always stays; see budgetedPageSql).
   */
  async listByStory(storyId: string, withDrafts: boolean, limit: number, afterNumber: number | undefined, textBudgetBytes?: number): Promise<{ chapters: Chapter[]; more: boolean }> {
    return withPgErrors(async () => {
      const params = [storyId, withDrafts, afterNumber ?? 0, limit + 1];
      const withContent = textBudgetBytes !== undefined;
      const page = `SELECT ${chapterColumns(withContent)} FROM chapters c
         WHERE c.story_id = $1 AND (c.published OR $2) AND c.hidden_at IS NULL AND c.chapter_number > $3
         ORDER BY c.chapter_number LIMIT $4`;
      const bytes = withContent ? `octet_length(content) + octet_length(content_html) + ${NOTE_BYTES}` : `${NOTE_BYTES} + ${ITEM_OVERHEAD_BYTES}`;
      const { rows } = await this.pool.query<ChapterRow & BudgetedRow>(
        budgetedPageSql(page, { bytes, order: 'chapter_number', budgetParam: '$5' }),
        [...params, textBudgetBytes ?? LIST_PAGE_MAX_BYTES],
      );
      const kept = budgetedPage(rows, limit);
      return { chapters: kept.rows.map(toChapter), more: kept.more };
    });
  }

  /**
   * The newest `limit` published chapters (without content) of published stories, of story
   * `source.storyId` or of every story of `source.authorId`: date_published descending, ties by id
   * descending. Each story's chapters come from chapters_story_published_idx (migration 0011).
   */
  async listLatest(source: LatestChaptersSource, limit: number): Promise<Chapter[]> {
    return withPgErrors(async () => {
      const byStory = 'storyId' in source;
      const { rows } = await this.pool.query<ChapterRow>({
        name: byStory ? 'chapters.latest-of-story' : 'chapters.latest-of-author',
        text: `SELECT ${chapterColumns(false)} FROM chapters c JOIN stories s ON s.id = c.story_id
         WHERE ${byStory ? 's.id = $1' : 's.author_id = $1'} AND s.published AND c.published
         ORDER BY c.date_published DESC, c.id DESC LIMIT $2`,
        values: [byStory ? source.storyId : source.authorId, limit],
      });
      return rows.map(toChapter);
    });
  }

  /**
   * Appends a chapter to story `storyId` under the story's lock: `decide` (the service's rules)
   * sees the story and returns the chapter. Writes ChapterCreated, and StoryUpdated when the
   * story's totals or dates changed. Returns the chapter with its content and the story after.
   * Nothing is stored once `signal` has aborted (checked right before COMMIT).
   */
  async create(storyId: string, decide: (story: Story) => NewChapter, signal?: AbortSignal): Promise<{ chapter: Chapter; story: Story }> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const before = await lockStory(client, storyId);
        const chapter = decide(before);
        const { rows } = await client.query<ChapterRow>(
          `INSERT INTO chapters AS c (story_id, chapter_number, title, content, content_html, authors_note, authors_note_html, published, num_words,
                                 date_published, date_modified)
           VALUES ($1, (SELECT coalesce(max(chapter_number), 0) + 1 FROM chapters WHERE story_id = $1), $2, $3, $4, $5, $6, $7, $8,
                   CASE WHEN $7 THEN $9::timestamptz END, $9)
           RETURNING ${chapterColumns(true)}`,
          [storyId, chapter.title, chapter.content, chapter.contentHtml, chapter.authorsNote, chapter.authorsNoteHtml, chapter.published, chapter.numWords, chapter.now],
        );
        const created = toChapter(rows[0]!);
        await appendEvent(client, { key: created.id, payload: chapterCreated(created, before.authorId) });
        const after = await this.afterChapterChange(client, before, { dateModified: chapter.now, ...(chapter.published ? { dateUpdated: chapter.now } : {}) });
        return { chapter: created, story: after };
      }, { signal });
    });
  }

  /**
   * Locks chapter `id` and its story (story first, like every writer), lets `decide` look at
   * both, and applies the decision: a change (ChapterUpdated), or a delete that moves later
   * chapters up one number (ChapterDeleted, a ChapterUpdated per renumbered chapter). Either
   * way the story's totals are recounted (StoryUpdated when its snapshot changed). Returns the
   * chapter after the change with its content (unchanged for `keep`), or undefined after a
   * delete; NOT_FOUND if none. Nothing is stored once `signal` has aborted.
   */
  async mutate(id: string, decide: (chapter: Chapter, story: Story) => ChapterDecision, signal?: AbortSignal): Promise<Chapter | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows: owner } = await client.query<{ story_id: string }>('SELECT story_id FROM chapters WHERE id = $1', [id]);
        if (!owner[0]) throw AppError.notFound('chapter');
        const story = await lockStory(client, String(owner[0].story_id));
        const { rows } = await client.query<ChapterRow>(`SELECT ${chapterColumns(true)} FROM chapters c WHERE c.id = $1 FOR UPDATE`, [id]);
        if (!rows[0]) throw AppError.notFound('chapter');
        const before = toChapter(rows[0]);
        const decision = decide(before, story);
        if ('keep' in decision) return before;

        if ('delete' in decision) {
          await client.query('DELETE FROM chapters WHERE id = $1', [id]);
          await appendEvent(client, { key: id, payload: chapterDeleted(before, story.authorId) });
          const { rows: moved } = await client.query<ChapterRow>(
            `UPDATE chapters c SET chapter_number = c.chapter_number - 1 WHERE c.story_id = $1 AND c.chapter_number > $2
             RETURNING ${chapterColumns(false)}`,
            [story.id, before.chapterNumber],
          );
          for (const row of moved.sort((a, b) => a.chapter_number - b.chapter_number)) {
            const after = toChapter(row);
            await appendEvent(client, { key: after.id, payload: chapterUpdated({ ...after, chapterNumber: after.chapterNumber + 1 }, after, story.authorId) });
          }
          await this.afterChapterChange(client, story, { dateModified: new Date() });
          return undefined;
        }

        const change = decision.change;
        const { rows: updated } = await client.query<ChapterRow>(
          `UPDATE chapters c SET
             title = $2, content = $3, content_html = $4, authors_note = $5, authors_note_html = $6, published = $7, num_words = $8,
             date_published = CASE WHEN $7 THEN coalesce(c.date_published, $9) ELSE c.date_published END, date_modified = $9
           WHERE c.id = $1
           RETURNING ${chapterColumns(true)}`,
          [
            id,
            change.title ?? before.title,
            change.content ?? before.content,
            change.contentHtml ?? before.contentHtml,
            change.authorsNote ?? before.authorsNote,
            change.authorsNoteHtml ?? before.authorsNoteHtml,
            change.published ?? before.published,
            change.numWords ?? before.numWords,
            change.now,
          ],
        );
        const after = toChapter(updated[0]!);
        await appendEvent(client, { key: id, payload: chapterUpdated(before, after, story.authorId) });
        const newlyPublished = after.published && !before.published;
        await this.afterChapterChange(client, story, { dateModified: change.now, ...(newlyPublished ? { dateUpdated: change.now } : {}) });
        return after;
      }, { signal });
    });
  }

  /**
   * Hides chapter `id` for good (docs/api/safety.md, "Reports and moderation"): marks it hidden,
   * so that no one reads it any more, then unpublishes it as its author could (ChapterUpdated,
   * the story's totals and StoryUpdated). Safe to repeat (a retried event finishes the job).
   * Returns false when there is no such chapter.
   */
  async hide(id: string, now: Date): Promise<boolean> {
    const { rowCount } = await withPgErrors(() => this.pool.query('UPDATE chapters SET hidden_at = coalesce(hidden_at, $2) WHERE id = $1', [id, now]));
    if ((rowCount ?? 0) === 0) return false;
    await this.mutate(id, (chapter) => (chapter.published ? { change: { published: false, now } } : { keep: true }));
    return true;
  }

  private async afterChapterChange(client: Tx, before: Story, changes: { dateModified: Date; dateUpdated?: Date }): Promise<Story> {
    await refreshStoryTotals(client, before.id, changes);
    const after = (await readStory(client, before.id, null, true))!;
    if (snapshotChanged(before, after)) await appendEvent(client, { key: before.id, payload: storyUpdated(before, after) });
    return after;
  }
}

function toChapterInStory(row: ChapterStoryRow): ChapterInStory {
  return { chapter: toChapter(row), authorId: String(row.author_id), storyPublished: row.story_published };
}
