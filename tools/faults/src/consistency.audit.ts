import type pg from 'pg';

/**
 * Every idempotent consumer of the system (docs/api/*.md "Events" sections): the schema holding
 * its `processed_events`, its dedupe name, and the topics it reads. Each must have processed
 * every event of its topics that any service's outbox holds.
 */
export const CONSUMERS: readonly { schema: string; name: string; topics: readonly string[] }[] = [
  { schema: 'users', name: 'users-authored-content', topics: ['stories.story.v1', 'blog.post.v1'] },
  { schema: 'bookshelves', name: 'bookshelves-stories', topics: ['stories.story.v1'] },
  { schema: 'blog', name: 'blog-stories', topics: ['stories.story.v1'] },
  { schema: 'stories', name: 'stories-stats', topics: ['stories.story.v1', 'stories.comment.v1'] },
  { schema: 'stories', name: 'stories-bookshelves', topics: ['bookshelves.bookshelf.v1', 'bookshelves.item.v1'] },
  {
    schema: 'messaging',
    name: 'messaging-notifications',
    topics: ['users.follow.v1', 'stories.story.v1', 'stories.chapter.v1', 'stories.comment.v1', 'bookshelves.item.v1', 'blog.post.v1', 'messaging.message.v1'],
  },
];

/** The schemas whose outboxes publish events (one per service). */
export const OUTBOX_SCHEMAS: readonly string[] = ['users', 'stories', 'bookshelves', 'messaging', 'blog'];

/** One derived value that differs from its recount from the source tables. */
export interface Disagreement {
  /** What was compared, e.g. `stories.num_likes`. */
  readonly check: string;
  /** The row, e.g. a story id. */
  readonly id: string;
  readonly derived: string;
  readonly recount: string;
}

/** What the audit found at one moment. */
export interface AuditResult {
  /** Outbox rows not yet published, per schema. */
  readonly outboxBacklog: Record<string, number>;
  /** Events in some outbox that a consumer of their topic has not processed, per consumer. */
  readonly unprocessed: Record<string, number>;
  /** Notification fan-outs queued by the messaging consumer and not yet written to every inbox. */
  readonly queuedFanouts: number;
  /** Derived values that differ from a recount of their source. */
  readonly disagreements: readonly Disagreement[];
  /** Σ (derived − recount) over counters above their recount: events applied more than once. */
  readonly countedTwice: number;
  /** Σ (recount − derived) over counters below their recount. */
  readonly countedTooFew: number;
}

/** Every outbox event of the system, as one SQL relation (event_id, topic, type, key). */
const ALL_OUTBOX_EVENTS = OUTBOX_SCHEMAS.map((schema) => `SELECT event_id, topic, type, key FROM ${schema}.outbox`).join(' UNION ALL ');

/**
 * Counter checks: derived column vs recount of its source, per row. Each query yields
 * (id, derived, recount) for rows that disagree; `counter` checks are summed into
 * countedTwice/countedTooFew.
 */
const COUNTER_CHECKS: readonly { check: string; sql: string }[] = [
  {
    check: 'stories.num_likes',
    sql: `SELECT s.id::text, s.num_likes AS derived, (SELECT count(*) FROM stories.story_ratings r WHERE r.story_id = s.id AND r.value = 'like') AS recount FROM stories.stories s`,
  },
  {
    check: 'stories.num_dislikes',
    sql: `SELECT s.id::text, s.num_dislikes AS derived, (SELECT count(*) FROM stories.story_ratings r WHERE r.story_id = s.id AND r.value = 'dislike') AS recount FROM stories.stories s`,
  },
  {
    check: 'stories.num_comments',
    sql: `SELECT s.id::text, s.num_comments AS derived, (SELECT count(*) FROM stories.comments c WHERE c.story_id = s.id) AS recount FROM stories.stories s`,
  },
  {
    // A counted view exists only as its StoryViewed event (docs/api/stories.md, "Counts").
    check: 'stories.num_views',
    sql: `SELECT s.id::text, s.num_views AS derived, (SELECT count(*) FROM stories.outbox o WHERE o.key = s.id::text AND o.type = 'inkwell.stories.v1.StoryViewed') AS recount FROM stories.stories s`,
  },
  {
    check: 'users.num_followers',
    sql: `SELECT u.id::text, u.num_followers AS derived, (SELECT count(*) FROM users.follows f WHERE f.followed_id = u.id) AS recount FROM users.users u`,
  },
  {
    check: 'users.num_following',
    sql: `SELECT u.id::text, u.num_following AS derived, (SELECT count(*) FROM users.follows f WHERE f.follower_id = u.id) AS recount FROM users.users u`,
  },
  {
    check: 'users.num_stories',
    sql: `SELECT u.id::text, u.num_stories AS derived, (SELECT count(*) FROM stories.stories s WHERE s.author_id = u.id AND s.published) AS recount FROM users.users u`,
  },
  {
    check: 'bookshelves.num_stories',
    sql: `SELECT b.id::text, b.num_stories AS derived, (SELECT count(*) FROM bookshelves.bookshelf_items i JOIN stories.stories s ON s.id = i.story_id WHERE i.bookshelf_id = b.id AND s.published) AS recount FROM bookshelves.bookshelves b`,
  },
  {
    check: 'bookshelves.num_unread',
    sql: `SELECT b.id::text, b.num_unread AS derived, (SELECT count(*) FROM bookshelves.bookshelf_items i JOIN stories.stories s ON s.id = i.story_id WHERE i.bookshelf_id = b.id AND s.published AND NOT i.read) AS recount FROM bookshelves.bookshelves b`,
  },
];

/** Set checks: rows of a copy that are missing from, or not in, its source (symmetric difference). */
const COPY_CHECKS: readonly { check: string; source: string; copy: string }[] = [
  {
    check: 'stories copy of shelf items',
    source: `SELECT id, bookshelf_id, story_id, read FROM bookshelves.bookshelf_items`,
    copy: `SELECT id, bookshelf_id, story_id, read FROM stories.bookshelf_items WHERE NOT removed`,
  },
  {
    check: 'stories copy of shelves',
    source: `SELECT id, owner_id, privacy = 'private' AS private FROM bookshelves.bookshelves`,
    copy: `SELECT id, owner_id, private FROM stories.bookshelves WHERE NOT deleted`,
  },
  {
    check: 'bookshelves copy of stories',
    source: `SELECT s.id, s.author_id, s.published FROM stories.stories s WHERE EXISTS (SELECT 1 FROM bookshelves.bookshelf_items i WHERE i.story_id = s.id)`,
    copy: `SELECT k.id, k.author_id, k.published FROM bookshelves.known_stories k WHERE NOT k.deleted AND EXISTS (SELECT 1 FROM bookshelves.bookshelf_items i WHERE i.story_id = k.id)`,
  },
];

/**
 * Compares every derived value of the system with a recount from the tables it derives from,
 * and every consumer with the outboxes it reads. All schemas live in one database (one per
 * system, docs/api/foundation.md), so one connection sees them all. Read-only.
 */
export async function audit(pool: pg.Pool): Promise<AuditResult> {
  const outboxBacklog: Record<string, number> = {};
  for (const schema of OUTBOX_SCHEMAS) {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.outbox WHERE sent_at IS NULL`);
    outboxBacklog[schema] = Number(rows[0]?.n ?? 0);
  }
  const unprocessed: Record<string, number> = {};
  for (const consumer of CONSUMERS) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM (${ALL_OUTBOX_EVENTS}) o
       WHERE o.topic = ANY($1) AND NOT EXISTS (SELECT 1 FROM ${consumer.schema}.processed_events p WHERE p.consumer = $2 AND p.event_id = o.event_id)`,
      [consumer.topics, consumer.name],
    );
    unprocessed[consumer.name] = Number(rows[0]?.n ?? 0);
  }
  const { rows: fanouts } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM messaging.notification_fanouts');
  const queuedFanouts = Number(fanouts[0]?.n ?? 0);
  const disagreements: Disagreement[] = [];
  let countedTwice = 0;
  let countedTooFew = 0;
  for (const { check, sql } of COUNTER_CHECKS) {
    const { rows } = await pool.query<{ id: string; derived: string; recount: string }>(`SELECT * FROM (${sql}) c WHERE c.derived <> c.recount ORDER BY 1`);
    for (const row of rows) {
      const difference = Number(row.derived) - Number(row.recount);
      if (difference > 0) countedTwice += difference;
      else countedTooFew -= difference;
      disagreements.push({ check, id: row.id, derived: String(row.derived), recount: String(row.recount) });
    }
  }
  for (const { check, source, copy } of COPY_CHECKS) {
    const { rows } = await pool.query<{ side: string; row: string }>(
      `(SELECT 'only in source' AS side, s::text AS row FROM ((${source}) EXCEPT (${copy})) s)
       UNION ALL (SELECT 'only in copy', c::text FROM ((${copy}) EXCEPT (${source})) c) ORDER BY 2 LIMIT 100`,
    );
    for (const row of rows) disagreements.push({ check, id: row.row, derived: row.side === 'only in copy' ? row.row : '(missing)', recount: row.side === 'only in source' ? row.row : '(missing)' });
  }
  return { outboxBacklog, unprocessed, queuedFanouts, disagreements, countedTwice, countedTooFew };
}

/**
 * Compares the story search index (alias `<prefix>stories`, docs/api/stories.md, "Search") with
 * the published stories: every published story indexed at its row's current version, nothing
 * else indexed. Returns the disagreements (empty when they match).
 */
export async function auditSearchIndex(pool: pg.Pool, opensearchUrl: string, indexPrefix: string): Promise<Disagreement[]> {
  const { rows } = await pool.query<{ id: string; version: string }>(`SELECT id::text, index_version::text AS version FROM stories.stories WHERE published`);
  const expected = new Map(rows.map((row) => [row.id, row.version]));
  const response = await fetch(`${opensearchUrl}/${indexPrefix}stories/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ size: 10_000, _source: false, version: true, query: { match_all: {} } }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) return [{ check: 'search index', id: '(index)', derived: `HTTP ${response.status}`, recount: `${expected.size} published stories` }];
  const body = (await response.json()) as { hits: { hits: { _id: string; _version: number }[] } };
  const disagreements: Disagreement[] = [];
  const indexed = new Map(body.hits.hits.map((hit) => [hit._id, String(hit._version)]));
  for (const [id, version] of expected) {
    const found = indexed.get(id);
    if (found !== version) disagreements.push({ check: 'search index', id, derived: found ?? '(missing)', recount: version });
  }
  for (const [id, version] of indexed) if (!expected.has(id)) disagreements.push({ check: 'search index', id, derived: version, recount: '(not published)' });
  return disagreements;
}

/** True when nothing is waiting: no outbox backlog, every consumer has processed every event, and no notification fan-out is queued. */
export function drained(result: Pick<AuditResult, 'outboxBacklog' | 'unprocessed' | 'queuedFanouts'>): boolean {
  return Object.values(result.outboxBacklog).every((n) => n === 0) && Object.values(result.unprocessed).every((n) => n === 0) && result.queuedFanouts === 0;
}
