import type pg from 'pg';
import { eventually, quantile } from '@inkwell/testing';
import { pageByCursor } from '../cursors.js';
import type { BenchRequest } from '../load.runner.js';
import { migrateSchemas, runSeed, scaled } from '../seed.runner.js';
import type { BenchContext, Scenario, Suite } from '../suite.js';
import { withSchema } from '../plans.js';

const NOTIFICATIONS = 10_000_000;
const USERS = 100_000;
const FOLLOWERS = 100_000;
/** Published stories the data set's story and chapter notifications are about (seeded when fewer). */
const STORIES = 10_000;
/** Users whose inboxes are read: a fixed pseudo-random sample. */
const SAMPLE = 200;
/** Users with a private feed URL, and stories, authors and tags whose public feeds are read. */
const FEEDS = 50;
/** Chapters the author with the most followers publishes, one after another, each fan-out timed. */
const FAN_OUTS = 3;
/** Targets (docs/benchmarks.md): an inbox page and a feed p95 ≤ 20 ms; a chapter in a follower's inbox p95 ≤ 2 s, in all of them ≤ 10 s. */
const PAGE_TARGET_MS = 20;
const ARRIVAL_P95_TARGET_S = 2;
const ARRIVAL_ALL_TARGET_S = 10;
/** How often the arrivals are counted while a fan-out runs. */
const COUNT_EVERY_MS = 20;
const FAN_OUT_DEADLINE_MS = 120_000;

function withDatabase<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withSchema(databaseUrl, 'messaging', fn);
}

/** The data set as it stands: notifications, and the author with the most followers in the messaging service's copy. */
async function dataSet(databaseUrl: string): Promise<{ notifications: number; author?: string; followers: number }> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows: counted } = await client.query<{ n: string }>('SELECT count(*) AS n FROM notifications');
    const { rows } = await client.query<{ author: string; n: string }>(
      'SELECT followed_id::text AS author, count(*) AS n FROM follows WHERE NOT removed GROUP BY followed_id ORDER BY count(*) DESC LIMIT 1',
    );
    return { notifications: Number(counted[0]!.n), followers: Number(rows[0]?.n ?? 0), ...(rows[0] === undefined ? {} : { author: rows[0].author }) };
  });
}

/** Calls the API as `token`; returns the parsed JSON:API document, throwing on any other status than `status`. */
async function api(context: BenchContext, method: string, path: string, token: string, status: number, body?: unknown): Promise<{ data: { id: string; attributes: Record<string, unknown> } }> {
  const response = await fetch(`${context.system.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as { data: { id: string; attributes: Record<string, unknown> } };
}

/** What one timed fan-out saw: seconds from the publishing request's answer. */
interface FanOutTiming {
  followers: number;
  /** When 95% of the followers had the notification, and all of them. */
  p95Seconds: number;
  allSeconds: number;
  /** When one sample follower's inbox (GET /users/me/notifications) showed it. */
  apiSeconds: number;
}

/**
 * Publishes a chapter in `storyId` as the author and times its arrival: the notifications of that
 * chapter counted every COUNT_EVERY_MS in the messaging schema (arrival times of all followers),
 * and one follower's inbox polled through the gateway.
 */
async function timeChapterFanOut(context: BenchContext, author: { token: string }, storyId: string, followers: number, follower: { token: string }, number: number): Promise<FanOutTiming> {
  return withDatabase(context.databaseUrl, async (db) => {
    const attributes = { title: `Benchmark chapter ${number}`, content: `The ${number}. chapter of the fan-out benchmark.`, published: true };
    const chapter = await api(context, 'POST', `/stories/${storyId}/chapters`, author.token, 201, { data: { type: 'chapter', attributes } });
    const published = performance.now();
    const arrivals: Array<{ at: number; count: number }> = [];
    let apiSeconds = Number.NaN;
    const inbox = (async () => {
      await eventually(
        async () => {
          const page = await api(context, 'GET', '/users/me/notifications?page[size]=1', follower.token, 200);
          const first = (page as unknown as { data: Array<{ relationships?: { chapter?: { data?: { id: string } } } }> }).data[0];
          return first?.relationships?.chapter?.data?.id === chapter.data.id;
        },
        { timeoutMs: FAN_OUT_DEADLINE_MS, intervalMs: COUNT_EVERY_MS, what: () => `chapter ${chapter.data.id} in the sample follower's inbox` },
      );
      apiSeconds = (performance.now() - published) / 1000;
    })();
    await eventually(
      async () => {
        const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM notifications WHERE kind = 1 AND subject_id = $1', [chapter.data.id]);
        arrivals.push({ at: (performance.now() - published) / 1000, count: Number(rows[0]!.n) });
        return Number(rows[0]!.n) >= followers;
      },
      { timeoutMs: FAN_OUT_DEADLINE_MS, intervalMs: COUNT_EVERY_MS, what: () => `chapter ${chapter.data.id} in all ${followers} inboxes` },
    );
    await inbox;
    const reached = (share: number) => arrivals.find((arrival) => arrival.count >= Math.ceil(followers * share))!.at;
    return { followers, p95Seconds: reached(0.95), allSeconds: reached(1), apiSeconds };
  });
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Notifications (issue 23): the inbox (`GET /users/me/notifications` with `meta.unread`), its
 * unread filter and second page, the private and public Atom feeds under load, and, after the
 * table, the fan-out of a chapter by the author with 100,000 followers timed to every inbox. Data:
 * 10,000,000 notifications over 100,000 users (tools/seed --notifications), seeded whole when the
 * benchmark database holds fewer or that author is missing.
 */
export const notificationsSuite: Suite = {
  name: 'notifications',
  dataSet: `${NOTIFICATIONS.toLocaleString('en')} notifications over ${USERS.toLocaleString('en')} users; one author with ${FOLLOWERS.toLocaleString('en')} followers`,
  // Where an inbox request's time goes: the gateway, the mailbox's owner, and Postgres.
  cpuColumn: ['gateway', 'messaging'],

  async prepare(databaseUrl, options) {
    migrateSchemas(databaseUrl);
    const stories = await withSchema(databaseUrl, 'stories', async (client) => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM stories WHERE published')).rows[0]!.n));
    const wantStories = scaled(STORIES, options.scale, 100);
    if (stories < wantStories) runSeed(databaseUrl, ['--stories', String(wantStories - stories)]);
    const want = { notifications: scaled(NOTIFICATIONS, options.scale, 1000), users: scaled(USERS, options.scale, 100), followers: scaled(FOLLOWERS, options.scale, 100) };
    const have = await dataSet(databaseUrl);
    if (have.notifications >= want.notifications && have.followers >= want.followers) return;
    runSeed(databaseUrl, ['--stories', '0', '--notifications', String(want.notifications), '--notification-users', String(want.users), '--followers', String(want.followers)]);
  },

  async scenarios(context: BenchContext): Promise<Scenario[]> {
    const picked = await withDatabase(context.databaseUrl, async (client) => {
      const column = async (sql: string, values: unknown[]) => (await client.query<{ v: string }>(sql, values)).rows.map((row) => String(row.v));
      return {
        users: await column('SELECT user_id AS v FROM notifications GROUP BY user_id ORDER BY md5(user_id::text) LIMIT $1', [SAMPLE]),
        stories: await column('SELECT id AS v FROM known_stories WHERE published AND NOT deleted ORDER BY md5(id::text) LIMIT $1', [FEEDS]),
        authors: await column('SELECT author_id AS v FROM known_stories WHERE published AND NOT deleted GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [FEEDS]),
      };
    });
    const tags = await withSchema(context.databaseUrl, 'stories', async (client) =>
      (await client.query<{ v: string }>('SELECT id::text AS v FROM tags WHERE num_stories > 0 ORDER BY md5(id::text) LIMIT $1', [FEEDS])).rows.map((row) => row.v),
    );
    const readers = await Promise.all(picked.users.map(async (id) => ({ id, token: await context.mintToken(id, ['read_notifications']) })));
    const inbox = (path: string): BenchRequest[] => readers.map((reader) => ({ path, token: reader.token }));
    const secondPages = await Promise.all(readers.map((reader) => pageByCursor(context, '/users/me/notifications', reader.token, 2)));
    const feedPaths = await Promise.all(
      readers.slice(0, FEEDS).map(async (reader) => {
        const feed = await api(context, 'POST', '/users/me/notifications/feed-token', reader.token, 201, { data: { type: 'notification_feed' } });
        return new URL(String(feed.data.attributes.url)).pathname;
      }),
    );
    const publicFeed = (paths: readonly string[]): BenchRequest[] => paths.map((path) => ({ path, token: '', outsideApi: true }));
    return [
      { name: `inbox: \`/users/me/notifications\` (20 newest, \`meta.unread\`; ${SAMPLE} users)`, requests: inbox('/users/me/notifications'), targetMs: PAGE_TARGET_MS },
      { name: `unread only: \`?filter[read]=false\` (${SAMPLE} users)`, requests: inbox('/users/me/notifications?filter[read]=false'), targetMs: PAGE_TARGET_MS },
      { name: `second page by \`links.next\` (${SAMPLE} users)`, requests: secondPages, targetMs: PAGE_TARGET_MS },
      { name: `private feed: \`/feeds/notifications/<token>.atom\` (${FEEDS} users)`, requests: publicFeed(feedPaths), targetMs: PAGE_TARGET_MS },
      { name: `story feed: \`/feeds/stories/:id.atom\` (${FEEDS} stories)`, requests: publicFeed(picked.stories.map((id) => `/feeds/stories/${id}.atom`)), targetMs: PAGE_TARGET_MS },
      { name: `author feed: \`/feeds/users/:id.atom\` (${FEEDS} authors)`, requests: publicFeed(picked.authors.map((id) => `/feeds/users/${id}.atom`)), targetMs: PAGE_TARGET_MS },
      { name: `tag feed: \`/feeds/tags/:id.atom\` (${FEEDS} tags)`, requests: publicFeed(tags.map((id) => `/feeds/tags/${id}.atom`)), targetMs: PAGE_TARGET_MS },
    ];
  },

  async afterTable(context: BenchContext): Promise<string[]> {
    const { author: authorId, followers } = await dataSet(context.databaseUrl);
    if (authorId === undefined) throw new Error('the notifications data set has no followed author');
    const followerId = await withDatabase(context.databaseUrl, async (client) =>
      String((await client.query<{ v: string }>('SELECT follower_id AS v FROM follows WHERE followed_id = $1 AND NOT removed ORDER BY md5(follower_id::text) LIMIT 1', [authorId])).rows[0]!.v),
    );
    const author = { token: await context.mintToken(authorId, ['write_stories']) };
    const follower = { token: await context.mintToken(followerId, ['read_notifications']) };
    // A story of its own, published (its own fan-out to every follower, awaited before the timing starts).
    const story = await api(context, 'POST', '/stories', author.token, 201, { data: { type: 'story', attributes: { title: `Fan-out benchmark ${new Date().toISOString()}` } } });
    await api(context, 'POST', `/stories/${story.data.id}/chapters`, author.token, 201, { data: { type: 'chapter', attributes: { title: 'Prologue', content: 'Before the benchmark.', published: true } } });
    await api(context, 'PATCH', `/stories/${story.data.id}`, author.token, 200, { data: { type: 'story', id: story.data.id, attributes: { published: true } } });
    await withDatabase(context.databaseUrl, (db) =>
      eventually(async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM notifications WHERE kind = 2 AND subject_id = $1', [story.data.id])).rows[0]!.n) >= followers, {
        timeoutMs: FAN_OUT_DEADLINE_MS,
        intervalMs: 200,
        what: () => `story ${story.data.id} in all ${followers} inboxes`,
      }),
    );
    const timings: FanOutTiming[] = [];
    for (let n = 1; n <= FAN_OUTS; n++) {
      const timing = await timeChapterFanOut(context, author, story.data.id, followers, follower, n);
      process.stderr.write(`    fan-out ${n}: 95% in ${round2(timing.p95Seconds)} s, all ${timing.followers} in ${round2(timing.allSeconds)} s, sample inbox via the API in ${round2(timing.apiSeconds)} s\n`);
      timings.push(timing);
    }
    const worst = (pick: (timing: FanOutTiming) => number) => round2(Math.max(...timings.map(pick)));
    const mark = (value: number, target: number) => (value <= target ? `${value}` : `**${value}** (over ${target})`);
    return [
      `Fan-out: ${FAN_OUTS} chapters published one after another by the author with ${followers.toLocaleString('en')} followers (timed from the answer to the publishing request; arrivals counted every ${COUNT_EVERY_MS} ms in the messaging schema):`,
      '',
      '| chapter | 95% of followers, s | all followers, s | one follower through the API, s |',
      '|---|---|---|---|',
      ...timings.map((timing, i) => `| ${i + 1} | ${round2(timing.p95Seconds)} | ${round2(timing.allSeconds)} | ${round2(timing.apiSeconds)} |`),
      '',
      `Worst of the ${FAN_OUTS}: 95% in ${mark(worst((t) => t.p95Seconds), ARRIVAL_P95_TARGET_S)} s (target ${ARRIVAL_P95_TARGET_S}), all in ${mark(worst((t) => t.allSeconds), ARRIVAL_ALL_TARGET_S)} s (target ${ARRIVAL_ALL_TARGET_S}); median of the API view ${round2(quantile(timings.map((t) => t.apiSeconds).sort((a, b) => a - b), 0.5))} s.`,
    ];
  },
};
