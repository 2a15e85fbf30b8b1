import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { type Queryable, withPgErrors, withTransaction } from '@inkwell/pg';
import type { BlogPost, Reader } from '../domain/blog-post.js';
import type { BlogPostListQuery, Keyset, SortField } from '../domain/blog-post-list.js';
import { blogPostCreated, blogPostDeleted, blogPostUpdated, blogPostViewed } from '../events/blog-post.events.js';

/** A blog post row as selected, before the domain shapes it. */
interface BlogPostRow {
  id: string;
  author_id: string | null;
  title: string;
  intro: string;
  tags: string[];
  story_ids: string[];
  site_post: boolean;
  site_post_tag: string | null;
  num_views: number;
  date_posted: Date;
  date_modified: Date;
  content?: string;
  content_html?: string;
  rank?: string;
}

/** Everything stored for a new post; the HTML and intro are already derived. */
export interface NewBlogPost {
  authorId: string | undefined;
  title: string;
  content: string;
  contentHtml: string;
  intro: string;
  tags: readonly string[];
  storyIds: readonly string[];
  sitePost: boolean;
  sitePostTag: string | undefined;
}

/** The columns a PATCH changes; content comes with its HTML and intro. */
export interface BlogPostUpdate {
  title?: string;
  content?: { markdown: string; html: string; intro: string };
  tags?: readonly string[];
  storyIds?: readonly string[];
}

/** One page of posts, the keyset of each (where a page after it would start), and whether more posts follow the page. */
export interface BlogPostPage {
  posts: BlogPost[];
  keysets: Keyset[];
  more: boolean;
}

// Only links to stories that are published right now are shown (see migrations/0001_blog.sql).
const VISIBLE_STORY_IDS = `ARRAY(
  SELECT s.story_id::text FROM blog_post_stories s JOIN known_stories k ON k.id = s.story_id
  WHERE s.blog_post_id = p.id AND k.published AND NOT k.deleted ORDER BY s.position) AS story_ids`;
const COLUMNS = `p.id::text AS id, p.author_id::text AS author_id, p.title, p.intro, p.tags, p.site_post, p.site_post_tag,
  p.num_views, p.date_posted, p.date_modified, ${VISIBLE_STORY_IDS}`;
const CONTENT_COLUMNS = 'p.content, p.content_html';
const NOW = "date_trunc('milliseconds', now())";

const SORT_KEY: Readonly<Record<Exclude<SortField, 'relevance'>, { expression: string; type: string }>> = {
  date_posted: { expression: 'p.date_posted', type: 'timestamptz' },
  num_views: { expression: 'p.num_views', type: 'integer' },
};

function toBlogPost(row: BlogPostRow): BlogPost {
  const post: BlogPost = {
    id: row.id,
    authorId: row.author_id ?? undefined,
    title: row.title,
    intro: row.intro,
    tags: row.tags,
    storyIds: row.story_ids,
    datePosted: row.date_posted,
    dateModified: row.date_modified,
    numViews: row.num_views,
    sitePost: row.site_post,
    sitePostTag: row.site_post_tag ?? undefined,
  };
  if (row.content !== undefined) post.content = row.content;
  if (row.content_html !== undefined) post.contentHtml = row.content_html;
  return post;
}

/** SQL access to the blog schema's posts, with their outbox events. */
export class BlogPostRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The post with this id (content only when asked for), or undefined. */
  async findById(id: string, includeContent: boolean): Promise<BlogPost | undefined> {
    return withPgErrors(async () => {
      return await selectPost(this.pool, id, includeContent);
    });
  }

  /**
   * One page of `query`: the posts matching its search and filters, in its order (ties by id in
   * the same direction), starting after its keyset. Fetches one row more than the page to know
   * whether more posts follow.
   */
  async list(query: BlogPostListQuery): Promise<BlogPostPage> {
    const params: unknown[] = [];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const from = ['blog_posts p'];
    const where: string[] = ['p.hidden_at IS NULL'];
    let rank: string | undefined;
    if (query.query !== '') {
      from.push(`websearch_to_tsquery('english', ${param(query.query)}) q`);
      where.push('p.search @@ q');
      rank = 'ts_rank(p.search, q)';
    }
    const filter = query.filter;
    if (filter.ids !== undefined) where.push(`p.id = ANY(${param(filter.ids)}::bigint[])`);
    if (filter.authorId !== undefined) where.push(`p.author_id = ${param(filter.authorId)}::bigint`);
    if (filter.hiddenAuthorIds !== undefined && filter.hiddenAuthorIds.length > 0) where.push(`p.author_id <> ALL (${param(filter.hiddenAuthorIds)}::bigint[])`);
    if (filter.tags !== undefined) where.push(`p.tags && ${param(filter.tags)}::text[]`);
    if (filter.sitePost !== undefined) where.push(`p.site_post = ${param(filter.sitePost)}`);
    if (filter.sitePostTag !== undefined) where.push(`p.site_post_tag = ${param(filter.sitePostTag)}`);
    if (filter.datePostedMin !== undefined) where.push(`p.date_posted >= ${param(filter.datePostedMin)}`);
    if (filter.datePostedMax !== undefined) where.push(`p.date_posted <= ${param(filter.datePostedMax)}`);

    const { field, direction } = query.sort;
    if (field === 'relevance' && rank === undefined) throw new TypeError('relevance needs a query');
    const key = field === 'relevance' ? { expression: rank as string, type: 'real' } : SORT_KEY[field];
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    if (query.after !== undefined) {
      const value = field === 'date_posted' ? new Date(Number(query.after.value)) : query.after.value;
      where.push(`(${key.expression}, p.id) ${direction === 'desc' ? '<' : '>'} (${param(value)}::${key.type}, ${param(query.after.id)}::bigint)`);
    }
    const select = [COLUMNS];
    if (query.includeContent) select.push(CONTENT_COLUMNS);
    if (rank !== undefined) select.push(`${rank}::text AS rank`);
    const sql = `SELECT ${select.join(', ')} FROM ${from.join(', ')}
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${key.expression} ${order}, p.id ${order} LIMIT ${param(query.pageSize + 1)}`;
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<BlogPostRow>(sql, params);
      const more = rows.length > query.pageSize;
      const page = more ? rows.slice(0, query.pageSize) : rows;
      return { posts: page.map(toBlogPost), keysets: page.map((row) => ({ value: keyValue(field, row), id: row.id })), more };
    });
  }

  /** Stores a post and its story links, and writes `BlogPostCreated` in the same transaction; nothing once `signal` has aborted. */
  async create(post: NewBlogPost, signal?: AbortSignal): Promise<BlogPost> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO blog_posts (author_id, title, content, content_html, intro, tags, site_post, site_post_tag)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id::text AS id`,
          [post.authorId ?? null, post.title, post.content, post.contentHtml, post.intro, post.tags, post.sitePost, post.sitePostTag ?? null],
        );
        const id = rows[0]!.id;
        await insertStoryLinks(client, id, post.storyIds);
        const created = (await selectPost(client, id, true))!;
        await appendEvent(client, { key: id, payload: blogPostCreated(created, post.storyIds) });
        return created;
      }, { signal });
    });
  }

  /**
   * Applies `update` to the user post `id` (site posts are never changed here), sets
   * date_modified, and writes `BlogPostUpdated`. Returns the post after the change with its
   * content, or undefined when there is no such user post. Nothing is stored once `signal` has
   * aborted (checked right before COMMIT).
   */
  async update(id: string, update: BlogPostUpdate, signal?: AbortSignal): Promise<BlogPost | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rowCount } = await client.query(
          `UPDATE blog_posts SET title = COALESCE($2, title), content = COALESCE($3, content), content_html = COALESCE($4, content_html),
             intro = COALESCE($5, intro), tags = COALESCE($6::text[], tags), date_modified = ${NOW}
           WHERE id = $1 AND NOT site_post AND hidden_at IS NULL`,
          [id, update.title ?? null, update.content?.markdown ?? null, update.content?.html ?? null, update.content?.intro ?? null, update.tags ?? null],
        );
        if (rowCount === 0) return undefined;
        if (update.storyIds !== undefined) {
          await client.query('DELETE FROM blog_post_stories WHERE blog_post_id = $1', [id]);
          await insertStoryLinks(client, id, update.storyIds);
        }
        const updated = (await selectPost(client, id, true))!;
        await appendEvent(client, { key: id, payload: blogPostUpdated(updated, await storedStoryIds(client, id)) });
        return updated;
      }, { signal });
    });
  }

  /** Deletes the user post `id` and writes `BlogPostDeleted` (its last state); false when there is none. */
  async delete(id: string): Promise<boolean> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ id: string }>('SELECT id::text AS id FROM blog_posts WHERE id = $1 AND NOT site_post AND hidden_at IS NULL FOR UPDATE', [id]);
        if (rows.length === 0) return false;
        const last = (await selectPost(client, id, false))!;
        const storyIds = await storedStoryIds(client, id);
        await client.query('DELETE FROM blog_posts WHERE id = $1', [id]);
        await appendEvent(client, { key: id, payload: blogPostDeleted(last, storyIds) });
        return true;
      });
    });
  }

  /**
   * Hides posts for good (docs/api/safety.md, "Reports and moderation"): post `id`, or with
   * `byAuthor` every post of that user. Each leaves every read, list, search and feed, and writes
   * `BlogPostDeleted` (its last state), so that everything derived from it goes as if it had been
   * deleted; the row stays. Already hidden or unknown posts are skipped; returns how many were hidden.
   */
  async hide(target: { id: string } | { byAuthor: string }): Promise<number> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = 'id' in target
          ? await client.query<{ id: string }>('SELECT id::text AS id FROM blog_posts WHERE id = $1 AND hidden_at IS NULL ORDER BY id FOR UPDATE', [target.id])
          : await client.query<{ id: string }>('SELECT id::text AS id FROM blog_posts WHERE author_id = $1 AND hidden_at IS NULL ORDER BY id FOR UPDATE', [target.byAuthor]);
        for (const { id } of rows) {
          const last = (await selectPost(client, id, false))!;
          const storyIds = await storedStoryIds(client, id);
          await client.query(`UPDATE blog_posts SET hidden_at = ${NOW} WHERE id = $1`, [id]);
          await appendEvent(client, { key: id, payload: blogPostDeleted(last, storyIds) });
        }
        return rows.length;
      });
    });
  }

  /**
   * Counts one view of each post in `postIds` by `reader` and writes one `BlogPostViewed` per
   * post, in one transaction. Returns the new view counts by post id (posts deleted meanwhile
   * are left out).
   */
  async recordViews(postIds: readonly string[], reader: Reader): Promise<Map<string, number>> {
    if (postIds.length === 0) return new Map();
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ id: string; num_views: number }>(
          // Rows are locked in id order, so concurrent readers of overlapping pages cannot deadlock.
          `UPDATE blog_posts p SET num_views = p.num_views + 1
           FROM (SELECT id FROM blog_posts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE) locked
           WHERE p.id = locked.id RETURNING p.id::text AS id, p.num_views`,
          [postIds],
        );
        for (const row of rows) await appendEvent(client, { key: row.id, payload: blogPostViewed(row.id, reader) });
        return new Map(rows.map((row) => [row.id, row.num_views]));
      });
    });
  }
}

async function selectPost(db: Queryable, id: string, includeContent: boolean): Promise<BlogPost | undefined> {
  const columns = includeContent ? `${COLUMNS}, ${CONTENT_COLUMNS}` : COLUMNS;
  const { rows } = await db.query<BlogPostRow>(`SELECT ${columns} FROM blog_posts p WHERE p.id = $1 AND p.hidden_at IS NULL`, [id]);
  return rows[0] && toBlogPost(rows[0]);
}

async function insertStoryLinks(client: pg.PoolClient, postId: string, storyIds: readonly string[]): Promise<void> {
  if (storyIds.length === 0) return;
  await client.query(
    `INSERT INTO blog_post_stories (blog_post_id, story_id, position)
     SELECT $1, story_id, ordinality FROM unnest($2::bigint[]) WITH ORDINALITY AS t(story_id, ordinality)`,
    [postId, storyIds],
  );
}

async function storedStoryIds(client: pg.PoolClient, postId: string): Promise<string[]> {
  const { rows } = await client.query<{ story_id: string }>('SELECT story_id::text AS story_id FROM blog_post_stories WHERE blog_post_id = $1 ORDER BY position', [postId]);
  return rows.map((row) => row.story_id);
}

function keyValue(field: SortField, row: BlogPostRow): string {
  if (field === 'date_posted') return String(row.date_posted.getTime());
  if (field === 'num_views') return String(row.num_views);
  return row.rank ?? '0';
}
