import type pg from 'pg';
import { noReaderStats, type Story, type StoryReaderStats } from '../src/domain/story.js';

/** A story row a test wants, with every list-relevant value under its control. */
export type StoryFixture = Pick<
  Story,
  'authorId' | 'title' | 'shortDescription' | 'description' | 'status' | 'published' | 'tagIds' | 'numWords' | 'datePublished' | 'dateModified' | 'dateUpdated'
> &
  StoryReaderStats;

let made = 0;

/**
 * Inserts a story straight into the tables (with its search vector, and one chapter carrying its
 * words, published with the story) and returns its id and values: lists can then be checked
 * against values the test chose, including counts and dates the API cannot set.
 */
export async function makeStory(pool: pg.Pool, overrides: Partial<StoryFixture> = {}): Promise<StoryFixture & { id: string }> {
  made += 1;
  const published = overrides.published ?? true;
  const story: StoryFixture = {
    authorId: '1',
    title: `Story ${made}`,
    shortDescription: '',
    description: '',
    status: 'incomplete',
    tagIds: [],
    numWords: 1000,
    ...noReaderStats(),
    datePublished: published ? new Date(Date.UTC(2025, 0, 1) + made * 60_000) : null,
    dateModified: new Date(Date.UTC(2025, 6, 1) + made * 60_000),
    dateUpdated: null,
    ...overrides,
    published,
  };
  // The chapter published with the story is its last update, unless the test chose another.
  if (overrides.dateUpdated === undefined) story.dateUpdated = story.datePublished;
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO stories (author_id, title, short_description, status, published, tag_ids, num_words, num_chapters, num_views, num_likes, num_dislikes,
       num_comments, rating, hotness, date_published, date_modified, date_updated, search_vector)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $5 THEN 1 ELSE 0 END, $8, $9, $10, $11, $12, $13, $14, $15, $17,
       story_search_vector($2, $3, $16, $6))
     RETURNING id::text`,
    [
      story.authorId, story.title, story.shortDescription, story.status, story.published, story.tagIds, story.published ? story.numWords : 0,
      story.numViews, story.numLikes, story.numDislikes, story.numComments, story.rating, story.hotness, story.datePublished, story.dateModified,
      story.description, story.dateUpdated,
    ],
  );
  const id = rows[0]!.id;
  await pool.query('INSERT INTO story_texts (story_id, description, description_html) VALUES ($1, $2, $3)', [id, story.description, '']);
  await pool.query(
    `INSERT INTO chapters (story_id, chapter_number, title, published, num_words, date_published) VALUES ($1, 1, 'One', $2, $3, $4)`,
    [id, story.published, story.numWords, story.datePublished],
  );
  return { ...story, id };
}
