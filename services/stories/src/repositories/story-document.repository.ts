import type pg from 'pg';
import { advisoryLockKey, translatePgError, withPgErrors } from '@inkwell/pg';
import { DESCRIPTION_INDEXED_CHARS, LISTED_TEXT_MAX_BYTES, searchText, type StoryDocument } from '../search/story-index.mapping.js';

/** A story row as the search index needs it: its document, its version and whether it belongs in the index. */
export interface IndexedStory {
  id: string;
  /** The row's index_version (migration 0006): the document's external version. */
  version: string;
  published: boolean;
  document: StoryDocument;
}

/** A row of DOCUMENT_COLUMNS: the document's fields as stored, with the row's version and publication. */
interface DocumentRow extends Omit<StoryDocument, 'search_text' | 'date_published' | 'date_modified' | 'date_updated' | 'listed'> {
  version: string;
  published: boolean;
  date_published: Date | null;
  date_modified: Date;
  date_updated: Date | null;
  num_chapters: number;
  chapter_ids: string[];
  text_bytes: number;
  /** Null when the texts are over LISTED_TEXT_MAX_BYTES (lists read them from Postgres). */
  listed_description: string | null;
  listed_description_html: string | null;
}

/** The bytes of a story's description and its HTML, read from the texts' headers (a text over the limit is not read). */
const TEXT_BYTES = `(coalesce(octet_length(x.description), 0) + coalesce(octet_length(x.description_html), 0))`;

const DOCUMENT_COLUMNS = `s.id::text, s.index_version::text AS version, s.published, s.author_id::text, s.status, s.content_rating, s.tag_ids,
  ARRAY(SELECT t.name FROM tags t WHERE t.id = ANY (s.tag_ids) ORDER BY t.id) AS tag_names,
  s.title, s.short_description, left(coalesce(x.description, ''), ${DESCRIPTION_INDEXED_CHARS}) AS description,
  s.num_words, s.num_views, s.num_likes, s.num_dislikes, s.num_comments, s.rating, s.hotness, s.date_published, s.date_modified, s.date_updated,
  s.num_chapters, ARRAY(SELECT c.id FROM chapters c WHERE c.story_id = s.id AND c.published ORDER BY c.chapter_number)::text[] AS chapter_ids,
  ${TEXT_BYTES}::int AS text_bytes,
  CASE WHEN ${TEXT_BYTES} <= ${LISTED_TEXT_MAX_BYTES} THEN coalesce(x.description, '') END AS listed_description,
  CASE WHEN ${TEXT_BYTES} <= ${LISTED_TEXT_MAX_BYTES} THEN coalesce(x.description_html, '') END AS listed_description_html`;

function toIndexed(row: DocumentRow): IndexedStory {
  const { version, published, date_published, date_modified, date_updated, num_chapters, chapter_ids, text_bytes, listed_description, listed_description_html, ...fields } = row;
  const document: Omit<StoryDocument, 'search_text'> = {
    ...fields,
    // A published story always has one (migration 0001); drafts are never written.
    date_published: (date_published ?? date_modified).toISOString(),
    date_modified: date_modified.toISOString(),
    date_updated: date_updated === null ? null : date_updated.toISOString(),
    listed: {
      num_chapters,
      chapter_ids,
      text_bytes,
      ...(listed_description === null || listed_description_html === null ? {} : { description: listed_description, description_html: listed_description_html }),
    },
  };
  return { id: row.id, version, published, document: { ...document, search_text: searchText(document) } };
}

/** Reads stories from Postgres, the source of truth, as search index documents. */
export class StoryDocumentRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The stories among `ids` that exist (published or not), with their current versions. */
  async findByIds(ids: readonly string[]): Promise<IndexedStory[]> {
    if (ids.length === 0) return [];
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM stories s LEFT JOIN story_texts x ON x.story_id = s.id WHERE s.id = ANY ($1::bigint[])`,
        [ids],
      );
      return rows.map(toIndexed);
    });
  }

  /** Up to `limit` published stories with ids above `afterId`, in id order (a keyset walk of the whole table). */
  async publishedAfter(afterId: string, limit: number): Promise<IndexedStory[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM stories s LEFT JOIN story_texts x ON x.story_id = s.id
         WHERE s.published AND s.id > $1::bigint ORDER BY s.id LIMIT $2`,
        [afterId, limit],
      );
      return rows.map(toIndexed);
    });
  }

  /**
   * A version above every version any story has had: the version of the tombstone of a story
   * that no longer exists (ids are never reused, so nothing may bring its document back).
   */
  async versionAboveAll(): Promise<string> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ version: string }>("SELECT nextval('story_index_versions')::text AS version");
      return rows[0]!.version;
    });
  }

  /**
   * Runs `work` holding the session advisory lock `name` (waiting for it first), so that one such
   * job runs at a time across every process of the service.
   */
  async exclusively<T>(name: string, work: () => Promise<T>): Promise<T> {
    const key = advisoryLockKey(`stories:${name}`);
    let client;
    try {
      client = await this.pool.connect();
      await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
    } catch (error) {
      client?.release();
      throw translatePgError(error);
    }
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => {});
      client.release();
    }
  }
}
