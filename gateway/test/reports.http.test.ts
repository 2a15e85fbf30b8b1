import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestUser, ensureDatabase, eventually, repoRoot, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

/**
 * Reports and the moderation queue through the gateway, on the real stack (docs/api/safety.md,
 * "Reports and moderation"): POST /reports for each kind of item, the operator CLI run as a
 * process against the users database, and what hiding and suspending do to the API.
 */

const DATABASE = 'inkwell_test_gateway_reports';
/** Events reach the other services well within this, on a busy machine. */
const EVENT_WAIT_MS = 30_000;
/** Stories of the suspended author: each one's time to leave GET /stories is one sample. */
const SUSPECT_STORIES = 20;

let stack: GatewayStack;
let author: TestUser;
let reporter: TestUser;
let second: TestUser;

/**
 * Rendered public feeds are kept this long here (10 min, not 2 s): a feed read before a hiding or
 * a suspension can only leave the cache by being dropped when the gateway hears of it.
 */
const FEED_CACHE_TTL_MS = 600_000;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE, { FEED_CACHE_TTL_MS: String(FEED_CACHE_TTL_MS) });
  const writer = ['write_stories', 'read_stories', 'write_comments', 'write_blog_posts', 'write_pms', 'read_pms'];
  [author, reporter, second] = await Promise.all([
    createTestUser(stack.system, { scopes: writer }),
    createTestUser(stack.system, { scopes: ['read_pms', 'write_pms', 'write_comments', 'read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system, { scopes: ['read_pms'] }),
  ]);
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { data?: Resource; errors?: { code: string; source?: { pointer?: string } }[] } & Record<string, unknown>;
}

interface Resource {
  readonly id: string;
  readonly attributes: Record<string, unknown>;
  readonly relationships?: Record<string, { data: { type: string; id: string } | null }>;
}

/** A JSON:API request as `token`. */
async function call(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

/** A write as `user` that must succeed; its primary data. */
async function write(user: TestUser, method: string, path: string, body: unknown): Promise<Resource> {
  const answer = await call(user.token, method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body.data!;
}

/** A published story of the author with one published chapter. */
async function publishedStory(title: string): Promise<{ id: string; chapterId: string }> {
  const { id } = await write(author, 'POST', '/stories', { data: { type: 'story', attributes: { title } } });
  const chapter = await write(author, 'POST', `/stories/${id}/chapters`, { data: { type: 'chapter', attributes: { title: 'One', content: 'Some words.', published: true } } });
  await write(author, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } });
  return { id, chapterId: chapter.id };
}

/** POST /reports as `user`. */
function report(user: TestUser, targetType: string, targetId: string, reason = 'spam', details?: string): Promise<Answer> {
  return call(user.token, 'POST', '/reports', { data: { type: 'report', attributes: { target_type: targetType, target_id: targetId, reason, ...(details === undefined ? {} : { details }) } } });
}

interface QueueEntry {
  id: string;
  targetType: string;
  targetId: string;
  ownerId: string | null;
  numReports: number;
  snapshot: string;
}

/** Runs the operator CLI (`npm run cli -- …`) as a process against this file's users database; its JSON answer. */
async function cli<T>(...args: string[]): Promise<T> {
  const root = repoRoot();
  const env = { ...process.env, DATABASE_URL: await ensureDatabase(stackEnv().databaseUrl, DATABASE), REDIS_URL: stackEnv().redisUrl, LOG_LEVEL: 'warn' };
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'services/users/src/cli/main.ts'), ...args, '--json'], { cwd: root, env });
  return JSON.parse(stdout) as T;
}

/** The open queue (`reports list`), and a finder of one item's entry in it (undefined when there is none). */
async function openQueue(): Promise<(targetType: string, targetId: string) => QueueEntry | undefined> {
  const { reports } = await cli<{ reports: QueueEntry[] }>('reports', 'list', '--limit', '200');
  return (targetType, targetId) => reports.find((entry) => entry.targetType === targetType && entry.targetId === targetId);
}

/** The open queue entry of one item (undefined when there is none). */
async function openEntry(targetType: string, targetId: string): Promise<QueueEntry | undefined> {
  return (await openQueue())(targetType, targetId);
}

/** What GET /stories last answered in {@link listedStories}, for the message of a wait that timed out. */
let lastListing = '';

/** The ids GET /stories lists for `authorId`, as `token`. */
async function listedStories(token: string, authorId: string): Promise<string[]> {
  const answer = await call(token, 'GET', `/stories?filter[author]=${authorId}`);
  lastListing = `${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}; the stories service said: ${stack.process('stories').output().slice(-3000)}`;
  expect(answer.status).toBe(200);
  return (answer.body.data as unknown as Resource[]).map((story) => story.id);
}

/** A public Atom feed (docs/api/updates.md, "Atom feeds"): its status and text. */
async function feed(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${stack.origin}/feeds/${path}.atom`);
  return { status: response.status, text: await response.text() };
}

// Every CLI run starts node + tsx: seconds each on a busy machine, hence the generous timeouts.
describe('POST /reports', { timeout: 600_000 }, () => {
  it('reports each kind of item the reporter can see, and answers the report', async () => {
    const { id: storyId, chapterId } = await publishedStory('Reported tale');
    const comment = await write(author, 'POST', `/stories/${storyId}/comments`, { data: { type: 'comment', attributes: { content: 'A rude comment' } } });
    const post = await write(author, 'POST', '/blog-posts', { data: { type: 'blog_post', attributes: { title: 'A post', content: 'Some text' } } });
    const message = await write(author, 'POST', `/users/${reporter.id}/private-messages`, { data: { type: 'private_message', attributes: { subject: 'Hi', content: 'Unwanted' } } });
    const targets: [string, string][] = [
      ['story', storyId],
      ['chapter', chapterId],
      ['comment', comment.id],
      ['blog_post', post.id],
      ['private_message', message.id],
      ['user', author.id],
    ];
    for (const [type, id] of targets) {
      const answer = await report(reporter, type, id, 'harassment', `  about ${type}  `);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body.data).toMatchObject({
        type: 'report',
        attributes: { target_type: type, target_id: id, reason: 'harassment', details: `about ${type}` },
        relationships: { reporter: { data: { type: 'user', id: reporter.id } } },
      });
    }
    const entryOf = await openQueue();
    for (const [type, id] of targets) expect(entryOf(type, id), `${type} ${id}`).toMatchObject({ numReports: 1, ownerId: author.id });
    // The queue keeps what the reporter saw.
    expect(JSON.parse(entryOf('comment', comment.id)!.snapshot)).toMatchObject({ content: 'A rude comment' });
  });

  it('answers 404 for a message the reporter did not receive, and for what they cannot see', async () => {
    const sent = await write(reporter, 'POST', `/users/${author.id}/private-messages`, { data: { type: 'private_message', attributes: { subject: 'Mine', content: 'Sent by me' } } });
    expect((await report(reporter, 'private_message', sent.id)).status).toBe(404);
    const between = await write(author, 'POST', `/users/${second.id}/private-messages`, { data: { type: 'private_message', attributes: { subject: 'Theirs', content: 'Not yours' } } });
    expect((await report(reporter, 'private_message', between.id)).status).toBe(404);
    const draft = await write(author, 'POST', '/stories', { data: { type: 'story', attributes: { title: 'A draft' } } });
    expect((await report(reporter, 'story', draft.id)).status).toBe(404);
    expect((await report(reporter, 'user', '999999999')).status).toBe(404);
  });

  it('takes only a listed reason, bounded details and a known target type', async () => {
    const { id } = await publishedStory('Validated');
    const badReason = await report(reporter, 'story', id, 'rude');
    expect(badReason.status).toBe(422);
    expect(badReason.body.errors?.[0]).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/attributes/reason' } });
    const longDetails = await report(reporter, 'story', id, 'other', 'x'.repeat(2001));
    expect(longDetails.status).toBe(422);
    expect(longDetails.body.errors?.[0]).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/attributes/details' } });
    const badType = await report(reporter, 'bookshelf', id);
    expect(badType.status).toBe(422);
    expect(badType.body.errors?.[0]).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/attributes/target_type' } });
    const own = await report(author, 'story', id);
    expect(own.status).toBe(422);
  });

  it('collapses reports of one item into one entry, counting each reporter once', async () => {
    const { id } = await publishedStory('Reported twice');
    const first = await report(reporter, 'story', id, 'spam');
    const again = await report(reporter, 'story', id, 'hate');
    expect(again.status).toBe(201);
    expect(again.body.data?.id).toBe(first.body.data?.id);
    expect(again.body.data?.attributes.reason).toBe('spam');
    expect((await report(second, 'story', id, 'plagiarism')).status).toBe(201);
    expect(await openEntry('story', id)).toMatchObject({ numReports: 2 });
  });

  it('limits each reporter to 20 reports an hour: then 429 with Retry-After', async () => {
    const busy = await createTestUser(stack.system);
    const { id } = await publishedStory('Reported often');
    for (let index = 0; index < 20; index++) expect((await report(busy, 'story', id)).status).toBe(201);
    const refused = await report(busy, 'story', id);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).not.toBeNull();
    // Someone else still reports.
    expect((await report(second, 'story', id)).status).toBe(201);
  });
});

describe('the operator CLI and its decisions', { timeout: 600_000 }, () => {
  it('shows an entry with its reports, and records a dismissal once', async () => {
    const { id } = await publishedStory('Dismissed');
    await report(reporter, 'story', id, 'violence', 'graphic');
    const entry = (await openEntry('story', id))!;
    const shown = await cli<{ report: QueueEntry; reports: { reporterId: string; reason: string; details: string }[]; actions: unknown[] }>('reports', 'show', entry.id);
    expect(shown.reports).toEqual([expect.objectContaining({ reporterId: reporter.id, reason: 'violence', details: 'graphic' })]);
    expect(JSON.parse(shown.report.snapshot)).toMatchObject({ id, title: 'Dismissed' });
    const resolved = await cli<{ action: { action: string; operator: string; reason: string; dateTaken: string } }>('reports', 'resolve', entry.id, '--action', 'dismiss', '--reason', 'Fiction, not a threat', '--operator', 'olga');
    expect(resolved.action).toMatchObject({ action: 'dismiss', operator: 'olga', reason: 'Fiction, not a threat' });
    expect(await openEntry('story', id)).toBeUndefined();
    await expect(cli('reports', 'resolve', entry.id, '--action', 'hide', '--reason', 'again', '--operator', 'olga')).rejects.toThrow(/already resolved/);
    // The story stays.
    expect((await call(reporter.token, 'GET', `/stories/${id}`)).status).toBe(200);
  });

  it('hides a story: gone from GET /stories, search, by id for everyone, downloads, shelves and feeds', async () => {
    const { id } = await publishedStory('Hidden tale');
    await eventually(async () => (await listedStories(reporter.token, author.id)).includes(id), { timeoutMs: EVENT_WAIT_MS, what: () => `the story in GET /stories (last answer: ${lastListing})` });
    const shelf = await write(reporter, 'POST', '/users/me/bookshelves', { data: { type: 'bookshelf', attributes: { name: 'Reported', privacy: 'public' } } });
    await write(reporter, 'POST', `/bookshelves/${shelf.id}/items`, { data: { type: 'bookshelf_item', relationships: { story: { data: { type: 'story', id } } } } });
    const shelfStories = async () => ((await call(reporter.token, 'GET', `/bookshelves/${shelf.id}/items?include=story`)).body.included as Resource[] | undefined ?? []).map((story) => story.id);
    const searched = async () => ((await call(reporter.token, 'GET', `/stories?query=${encodeURIComponent('Hidden tale')}`)).body.data as unknown as Resource[]).map((story) => story.id);
    expect(await shelfStories()).toContain(id);
    expect(await searched()).toContain(id);
    expect((await feed(`stories/${id}`)).status).toBe(200);
    await report(reporter, 'story', id, 'sexual_content');
    const entry = (await openEntry('story', id))!;
    await cli('reports', 'resolve', entry.id, '--action', 'hide', '--reason', 'Against the rules', '--operator', 'olga');
    await eventually(async () => (await call(reporter.token, 'GET', `/stories/${id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: 'the hidden story to answer 404' });
    expect((await call(author.token, 'GET', `/stories/${id}`)).status).toBe(404);
    expect((await call(reporter.token, 'GET', `/stories/${id}/download.txt`)).status).toBe(404);
    expect((await call(reporter.token, 'GET', `/stories/${id}/chapters`)).status).toBe(404);
    await eventually(async () => !(await listedStories(reporter.token, author.id)).includes(id), { timeoutMs: EVENT_WAIT_MS, what: () => `the story to leave GET /stories (last answer: ${lastListing})` });
    expect((await call(author.token, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } })).status).toBe(404);
    expect(await searched()).not.toContain(id);
    expect(await shelfStories()).not.toContain(id);
    // Read (and so cached) before the hiding: dropped when the gateway hears of it.
    await eventually(async () => (await feed(`stories/${id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: "the hidden story's feed to answer 404" });
    // Both feeds answer (not read before: nothing of them was cached), without the story.
    for (const path of [`users/${author.id}`, `bookshelves/${shelf.id}`]) expect(await feed(path)).toMatchObject({ status: 200, text: expect.not.stringContaining('Hidden tale') });
  });

  it('hides a chapter and a comment', async () => {
    const { id, chapterId } = await publishedStory('Partly hidden');
    const comment = await write(author, 'POST', `/stories/${id}/comments`, { data: { type: 'comment', attributes: { content: 'Nasty words' } } });
    await report(reporter, 'chapter', chapterId, 'plagiarism');
    await report(reporter, 'comment', comment.id, 'harassment');
    const entryOf = await openQueue();
    for (const [type, target] of [['chapter', chapterId], ['comment', comment.id]] as const) {
      const entry = entryOf(type, target)!;
      await cli('reports', 'resolve', entry.id, '--action', 'hide', '--reason', 'Against the rules', '--operator', 'olga');
    }
    await eventually(async () => (await call(reporter.token, 'GET', `/chapters/${chapterId}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: 'the hidden chapter to answer 404' });
    expect((await call(author.token, 'GET', `/chapters/${chapterId}`)).status).toBe(404);
    await eventually(
      async () => !((await call(reporter.token, 'GET', `/stories/${id}/comments`)).body.data as unknown as Resource[]).some((item) => item.id === comment.id),
      { timeoutMs: EVENT_WAIT_MS, what: 'the hidden comment to leave the comments' },
    );
  });

  it('hides a blog post and a private message', async () => {
    // A blogger of their own: their feed is first read here, with the post in it (and so cached).
    const blogger = await createTestUser(stack.system, { scopes: ['write_blog_posts'] });
    const post = await write(blogger, 'POST', '/blog-posts', { data: { type: 'blog_post', attributes: { title: 'Hidden post', content: 'Spam spam spam' } } });
    expect(await feed(`users/${blogger.id}`)).toMatchObject({ status: 200, text: expect.stringContaining('Hidden post') });
    const message = await write(author, 'POST', `/users/${reporter.id}/private-messages`, { data: { type: 'private_message', attributes: { subject: 'Spam', content: 'Buy now' } } });
    await report(reporter, 'blog_post', post.id, 'spam');
    await report(reporter, 'private_message', message.id, 'spam');
    const entryOf = await openQueue();
    for (const [type, target] of [['blog_post', post.id], ['private_message', message.id]] as const) {
      await cli('reports', 'resolve', entryOf(type, target)!.id, '--action', 'hide', '--reason', 'Spam', '--operator', 'olga');
    }
    await eventually(async () => (await call(reporter.token, 'GET', `/blog-posts/${post.id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: 'the hidden blog post to answer 404' });
    expect((await call(blogger.token, 'GET', `/blog-posts/${post.id}`)).status).toBe(404);
    const posts = await call(reporter.token, 'GET', `/users/${blogger.id}/blog-posts`);
    expect((posts.body.data as unknown as Resource[]).map((item) => item.id)).not.toContain(post.id);
    const found = await call(reporter.token, 'GET', `/blog-posts?query=${encodeURIComponent('Hidden post')}`);
    expect(found.status).toBe(200);
    expect((found.body.data as unknown as Resource[]).map((item) => item.id)).not.toContain(post.id);
    // Cached before the hiding: dropped when the gateway hears of it.
    await eventually(
      async () => {
        const answer = await feed(`users/${blogger.id}`);
        return answer.status === 200 && !answer.text.includes('Hidden post');
      },
      { timeoutMs: EVENT_WAIT_MS, what: "the hidden post to leave its author's feed" },
    );
    await eventually(async () => (await call(reporter.token, 'GET', `/private-messages/${message.id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: 'the hidden message to answer 404' });
    expect((await call(author.token, 'GET', `/private-messages/${message.id}`)).status).toBe(404);
    const mailbox = await call(reporter.token, 'GET', '/users/me/private-messages');
    expect((mailbox.body.data as unknown as Resource[]).map((item) => item.id)).not.toContain(message.id);
  });

  it('suspends an account: every token 401 at once, its stories leave GET /stories, the action recorded', async () => {
    const suspect = await createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] });
    const { token: otherToken } = await cli<{ token: string }>('mint-token', '--user', suspect.name, '--scopes', 'read_user');
    // Twenty stories: each one's time to leave GET /stories is a sample of the event bound.
    const ids: string[] = [];
    for (let i = 0; i < SUSPECT_STORIES; i++) {
      const { id } = await write(suspect, 'POST', '/stories', { data: { type: 'story', attributes: { title: `By a troll ${i}` } } });
      await write(suspect, 'POST', `/stories/${id}/chapters`, { data: { type: 'chapter', attributes: { title: 'One', content: 'Words.', published: true } } });
      await write(suspect, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } });
      ids.push(id);
    }
    await eventually(async () => (await listedStories(reporter.token, suspect.id)).length === SUSPECT_STORIES, { timeoutMs: EVENT_WAIT_MS, what: () => `the stories in GET /stories (last answer: ${lastListing})` });
    // Its profile is public, and held by the gateway's public cache.
    expect((await call(reporter.token, 'GET', `/users/${suspect.id}`)).status).toBe(200);
    expect((await call(reporter.token, 'GET', `/users/${suspect.id}`)).status).toBe(200);
    expect((await feed(`users/${suspect.id}`)).status).toBe(200);
    // Both tokens work, and are cached by the gateway.
    expect((await call(suspect.token, 'GET', '/users/me')).status).toBe(200);
    expect((await call(otherToken, 'GET', '/users/me')).status).toBe(200);
    await report(reporter, 'user', suspect.id, 'harassment', 'Threats in messages');
    const entry = (await openEntry('user', suspect.id))!;

    const started = Date.now();
    const resolved = await cli<{ suspendedUserId: string; revokedTokens: number }>('reports', 'resolve', entry.id, '--action', 'suspend', '--reason', 'Repeated threats', '--operator', 'olga');
    const resolvedAt = Date.now();
    expect(resolved).toMatchObject({ suspendedUserId: suspect.id });
    expect(resolved.revokedTokens).toBeGreaterThanOrEqual(2);
    expect((await call(suspect.token, 'GET', '/users/me')).status).toBe(401);
    expect((await call(otherToken, 'GET', '/users/me')).status).toBe(401);
    // When each story was first seen gone, from the moment the resolve command returned.
    const goneAfter = new Map<string, number>();
    await eventually(
      async () => {
        const listed = new Set(await listedStories(reporter.token, suspect.id));
        for (const id of ids) if (!listed.has(id) && !goneAfter.has(id)) goneAfter.set(id, Date.now() - resolvedAt);
        return goneAfter.size === ids.length;
      },
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 20, what: () => `the suspended author's stories to leave GET /stories (last answer: ${lastListing})` },
    );
    const delays = [...goneAfter.values()].sort((a, b) => a - b);
    // The event bound of docs/api/safety.md ("Suspended accounts"), 1 s at p95, is reported here and recorded in the closing notes: no timed assertion.
    console.info(`suspension → stories gone from GET /stories, ms after the resolve command returned: p50 ${delays[Math.floor(delays.length / 2)]}, p95 ${delays[Math.ceil(0.95 * delays.length) - 1]}, max ${delays.at(-1)} over ${delays.length} stories (the command took ${resolvedAt - started} ms, its process start included)`);
    // The account is nobody: no profile, no feed, nobody to follow or write to.
    await eventually(async () => (await call(reporter.token, 'GET', `/users/${suspect.id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: 'the suspended profile to answer 404' });
    // Read (and so cached) before the suspension: dropped when the gateway hears of it.
    await eventually(async () => (await feed(`users/${suspect.id}`)).status === 404, { timeoutMs: EVENT_WAIT_MS, what: "the suspended account's feed to answer 404" });
    const message = await call(reporter.token, 'POST', `/users/${suspect.id}/private-messages`, { data: { type: 'private_message', attributes: { subject: 'Hi', content: 'Hello' } } });
    expect(message.status).toBe(404);

    const shown = await cli<{ actions: { action: string; operator: string; reason: string; userId: string; dateTaken: string }[] }>('reports', 'show', entry.id);
    expect(shown.actions).toEqual([expect.objectContaining({ action: 'suspend', operator: 'olga', reason: 'Repeated threats', userId: suspect.id })]);
  });
});
