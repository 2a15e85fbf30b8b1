import type pg from 'pg';
import { AppError } from '@inkwell/errors';
import type { Chapter } from '../domain/chapter.js';
import type { ContentRating, Story, StoryStatus } from '../domain/story.js';

/** A client of an open transaction (or the pool, for reads): what repositories run SQL on. */
export type Tx = pg.PoolClient;

/** The counter columns of a stories row, which the search index documents copy as they are. */
export interface StoryCounterColumns {
  /** Published chapters only. */
  num_words: number;
  num_views: number;
  num_likes: number;
  num_dislikes: number;
  num_comments: number;
  /** 0–100, null without votes. */
  rating: number | null;
  hotness: number;
}

/** A story row joined with its texts and visible chapter ids, as the queries below select it. */
export interface StoryRow extends StoryCounterColumns {
  id: string;
  author_id: string;
  title: string;
  short_description: string;
  description: string | null;
  description_html: string | null;
  status: StoryStatus;
  content_rating: ContentRating;
  published: boolean;
  num_chapters: number;
  date_published: Date | null;
  date_modified: Date;
  date_updated: Date | null;
  tag_ids: string[];
  chapter_ids: string[];
}

/**
 * The select list of a full story (`s` = stories, `t` = story_texts). Chapter ids are those
 * published, plus drafts when the story's author is the user id bound to parameter `$draftsOf`
 * (null shows no drafts).
 */
export function storyColumns(draftsOfParam: string): string {
  return `s.id, s.author_id, s.title, s.short_description, t.description, t.description_html, s.status, s.content_rating,
    s.published, s.num_words, s.num_chapters, s.num_views, s.num_likes, s.num_dislikes, s.num_comments, s.rating,
    s.hotness, s.date_published, s.date_modified, s.date_updated, s.tag_ids,
    ARRAY(SELECT c.id FROM chapters c WHERE c.story_id = s.id AND (c.published OR s.author_id = ${draftsOfParam}::bigint) AND c.hidden_at IS NULL
          ORDER BY c.chapter_number)::text[] AS chapter_ids`;
}

/** Row → domain story. */
export function toStory(row: StoryRow): Story {
  return {
    id: String(row.id),
    authorId: String(row.author_id),
    title: row.title,
    shortDescription: row.short_description,
    description: row.description ?? '',
    descriptionHtml: row.description_html ?? '',
    status: row.status,
    contentRating: row.content_rating,
    published: row.published,
    numWords: row.num_words,
    numChapters: row.num_chapters,
    numViews: row.num_views,
    numLikes: row.num_likes,
    numDislikes: row.num_dislikes,
    numComments: row.num_comments,
    rating: row.rating,
    hotness: row.hotness,
    datePublished: row.date_published,
    dateModified: row.date_modified,
    dateUpdated: row.date_updated,
    tagIds: row.tag_ids,
    chapterIds: row.chapter_ids,
  };
}

/** A chapter row; `content`/`content_html` are selected only when asked for. */
export interface ChapterRow {
  id: string;
  story_id: string;
  title: string;
  content?: string;
  content_html?: string;
  authors_note: string;
  authors_note_html: string;
  chapter_number: number;
  published: boolean;
  num_words: number;
  num_views: number;
  date_published: Date | null;
  date_modified: Date;
}

/** The select list of a chapter (`c`), with or without its content. */
export function chapterColumns(withContent: boolean): string {
  return `c.id, c.story_id, c.title, ${withContent ? 'c.content, c.content_html, ' : ''}c.authors_note, c.authors_note_html,
    c.chapter_number, c.published, c.num_words, c.num_views, c.date_published, c.date_modified`;
}

/** Row → domain chapter (content only when the row has it). */
export function toChapter(row: ChapterRow): Chapter {
  const chapter: Chapter = {
    id: String(row.id),
    storyId: String(row.story_id),
    title: row.title,
    authorsNote: row.authors_note,
    authorsNoteHtml: row.authors_note_html,
    chapterNumber: row.chapter_number,
    published: row.published,
    numWords: row.num_words,
    numViews: row.num_views,
    datePublished: row.date_published,
    dateModified: row.date_modified,
  };
  if (row.content !== undefined) chapter.content = row.content;
  if (row.content_html !== undefined) chapter.contentHtml = row.content_html;
  return chapter;
}

/**
 * Locks story `id` for the rest of the transaction and returns it with all chapter ids (drafts
 * included: writers see everything); NOT_FOUND when there is none. Every write that touches a
 * story or its chapters takes this lock first, which serialises them per story: counts and
 * chapter numbers cannot race. A story an operator hid is NOT_FOUND too (docs/api/safety.md,
 * "Reports and moderation"), unless `includeHidden` (the hiding itself, and the stats consumer).
 */
export async function lockStory(client: Tx, id: string, includeHidden = false): Promise<Story> {
  const { rows } = await client.query<{ hidden: boolean }>('SELECT hidden_at IS NOT NULL AS hidden FROM stories WHERE id = $1 FOR UPDATE', [id]);
  if (rows[0]?.hidden === true && !includeHidden) throw AppError.notFound('story');
  const story = await readStory(client, id, null, true);
  if (!story) throw AppError.notFound('story');
  return story;
}

/** Story `id` as stored, with its chapter ids (all of them when `allChapters`). */
export async function readStory(client: Tx | pg.Pool, id: string, draftsOf: string | null, allChapters = false): Promise<Story | undefined> {
  // Named statements: planned once per connection (the plan is the same for every id).
  const { rows } = await client.query<StoryRow>(
    allChapters
      ? { name: 'stories.read-one-all-chapters', text: `SELECT ${storyColumns('s.author_id')} FROM stories s LEFT JOIN story_texts t ON t.story_id = s.id WHERE s.id = $1`, values: [id] }
      : { name: 'stories.read-one', text: `SELECT ${storyColumns('$2')} FROM stories s LEFT JOIN story_texts t ON t.story_id = s.id WHERE s.id = $1 AND s.hidden_at IS NULL`, values: [id, draftsOf] },
  );
  return rows[0] && toStory(rows[0]);
}

/**
 * Recounts the published words and chapters of story `storyId` from its chapters (exact by
 * construction) and stores them with the other given changes.
 */
export async function refreshStoryTotals(client: Tx, storyId: string, changes: { dateModified: Date; dateUpdated?: Date }): Promise<void> {
  await client.query(
    `UPDATE stories s SET
       num_words = totals.words, num_chapters = totals.chapters, date_modified = $2,
       date_updated = coalesce($3, s.date_updated)
     FROM (SELECT coalesce(sum(num_words), 0)::int AS words, count(*)::int AS chapters
           FROM chapters WHERE story_id = $1 AND published) totals
     WHERE s.id = $1`,
    [storyId, changes.dateModified, changes.dateUpdated ?? null],
  );
}

/**
 * Keeps `tags.num_stories` exact: the tags a story counted for before (published with
 * `before.tagIds`) lose one, those it counts for after gain one. Rows are locked in id order so
 * concurrent story changes cannot deadlock on them.
 */
export async function adjustTagCounts(
  client: Tx,
  before: { published: boolean; tagIds: readonly string[] },
  after: { published: boolean; tagIds: readonly string[] },
): Promise<void> {
  const delta = new Map<string, number>();
  if (before.published) for (const id of before.tagIds) delta.set(id, (delta.get(id) ?? 0) - 1);
  if (after.published) for (const id of after.tagIds) delta.set(id, (delta.get(id) ?? 0) + 1);
  const changed = [...delta].filter(([, by]) => by !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (changed.length === 0) return;
  const ids = changed.map(([id]) => id);
  await client.query('SELECT 1 FROM tags WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
  await client.query(
    `UPDATE tags SET num_stories = tags.num_stories + d.by
     FROM unnest($1::text[], $2::int[]) AS d(id, by) WHERE tags.id = d.id`,
    [ids, changed.map(([, by]) => by)],
  );
}
