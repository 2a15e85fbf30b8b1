import pg from 'pg';
import type { Kafka, Producer } from 'kafkajs';
import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import type { components, operations } from '@inkwell/client';
import { createKafka, namespaced } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { Topics } from '@inkwell/proto/topics';
import { createAppToken, createTestUser, ensureDatabase, eventually, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually as eventuallyValue, expectError, follow as followLink, JsonApiClient, ok, walkPages } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_notifications';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
/** The consumer group of the messaging service's notifications and the topics it reads (docs/api/updates.md, "Fan-out model"). */
const NOTIFICATION_GROUP = 'messaging-notifications';
const NOTIFICATION_TOPICS = [Topics.usersFollow, Topics.storiesStory, Topics.storiesChapter, Topics.storiesComment, Topics.bookshelvesItem, Topics.blogPost, Topics.messagingMessage];
/** Events travel outbox → Kafka → consumer → fan-out: well within this on a busy machine. */
const EVENT_TIMEOUT_MS = 30_000;

let stack: GatewayStack;
let client: JsonApiClient;
let db: pg.Pool;
let kafka: Kafka;
let producer: Producer;
let appToken: string;

type Notification = components['schemas']['NotificationResource'];
type NotificationList = NonNullable<operations['getUsersByIdNotifications']['parameters']['query']>;
type Kind = Notification['attributes']['kind'];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => {
    throw new Error('every call here names its token');
  });
  appToken = (await createAppToken(stack.system, { scopes: ['read_notifications'] })).token;
  db = new pg.Pool({ connectionString: await ensureDatabase(stackEnv().databaseUrl, DATABASE), max: 2 });
  kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: 'notifications-test', logger: createLogger('notifications-test'), namespace: stack.system.kafkaNamespace });
  producer = kafka.producer();
  await producer.connect();
}, 180_000);

afterAll(async () => {
  await producer?.disconnect();
  await db?.end();
  await stack?.stop();
});

/** A new user whose token has every scope (or those given). */
const person = (scopes: readonly string[] = SCOPE_NAMES) => createTestUser(stack.system, { scopes });
const api = (user: TestUser | string) => client.as(typeof user === 'string' ? user : user.token);

/** One page of `user`'s inbox (`/users/me/...`, or `/users/<id>/...` when `id` is given). */
const inbox = (user: TestUser, query: NotificationList = {}, id = 'me') => api(user).GET('/users/{id}/notifications', { params: { path: { id }, query } });

/** Every notification of `user`'s inbox matching `query`, following links.next. */
const everything = (user: TestUser, query: NotificationList = {}) => walkPages((next) => api(user).GET('/users/{id}/notifications', { params: { path: { id: 'me' }, query: { 'page[size]': 100, ...query } }, ...next }));

/** Awaits the notifications of `user` (all pages) until `accept` holds for them; returns them. */
const awaitInbox = (user: TestUser, accept: (notifications: Notification[]) => boolean, what: string, query: NotificationList = {}) =>
  eventuallyValue(() => everything(user, query), accept, what, EVENT_TIMEOUT_MS);

/** Awaits a notification of `kind` whose relationship `name` names `id`. */
async function awaitNotification(user: TestUser, kind: Kind, name: string, id: string): Promise<Notification> {
  const found = await awaitInbox(user, (all) => all.some((n) => n.attributes.kind === kind && related(n, name) === id), `a ${kind} notification about ${name} ${id}`);
  return found.find((n) => n.attributes.kind === kind && related(n, name) === id)!;
}

/** The id a to-one relationship names, if the notification has it. */
function related(notification: Notification, name: string): string | undefined {
  const data = (notification.relationships as Record<string, { data: { id: string } | null } | undefined> | undefined)?.[name]?.data;
  return data?.id;
}

/**
 * Whether the messaging service has handled every event so far: its notifications group has
 * committed the end of each topic it reads, and no fan-out is left queued. What a redelivery or
 * a second shelf could add would be there by then.
 */
async function settled(): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const groupId = namespaced(kafka, NOTIFICATION_GROUP);
    for (const topic of NOTIFICATION_TOPICS.map((name) => namespaced(kafka, name))) {
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic).catch(() => []), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const caughtUp = ends.every(({ partition, high }) => high === '0' || committed?.partitions.find((entry) => entry.partition === partition)?.offset === high);
      if (!caughtUp) return false;
    }
  } finally {
    await admin.disconnect();
  }
  const { rows } = await db.query<{ queued: string }>('SELECT count(*) AS queued FROM messaging.notification_fanouts');
  return rows[0]?.queued === '0';
}
const awaitSettled = () => eventually(settled, { timeoutMs: EVENT_TIMEOUT_MS, what: 'the notifications consumer and fan-out to catch up' });

const followBody = (id: string) => ({ data: { type: 'follow' as const, relationships: { followed: { data: { type: 'user' as const, id } } } } });
async function followUser(follower: TestUser, followed: TestUser): Promise<string> {
  return ok(await api(follower).POST('/users/{id}/following', { params: { path: { id: 'me' } }, body: followBody(followed.id) }), 201).data!.id;
}

/** A published story of `author` with one published chapter; returns the story and chapter ids. */
async function publishStory(author: TestUser, title: string): Promise<{ story: string; chapter: string }> {
  const story = ok(await api(author).POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data.id;
  const chapter = await addChapter(author, story, 'One');
  ok(await api(author).PATCH('/stories/{id}', { params: { path: { id: story } }, body: { data: { type: 'story', id: story, attributes: { published: true } } } }));
  return { story, chapter };
}

/** A published chapter added to `story`; returns its id. */
async function addChapter(author: TestUser, story: string, title: string): Promise<string> {
  return ok(await api(author).POST('/stories/{id}/chapters', { params: { path: { id: story } }, body: { data: { type: 'chapter', attributes: { title, content: `${title} words here`, published: true } } } }), 201).data.id;
}

async function shelve(owner: TestUser, name: string, story: string): Promise<void> {
  const shelf = ok(await api(owner).POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes: { name } } } }), 201).data!.id;
  const body = { data: { type: 'bookshelf_item' as const, attributes: {}, relationships: { story: { data: { type: 'story' as const, id: story } } } } };
  ok(await api(owner).POST('/bookshelves/{id}/items', { params: { path: { id: shelf } }, body }), 201);
}

const markBody = (id: string, read: boolean) => ({ data: { type: 'notification' as const, id, attributes: { read } } });
const mark = (user: TestUser, id: string, read: boolean) => api(user).PATCH('/notifications/{id}', { params: { path: { id } }, body: markBody(id, read) });
const markUpTo = (user: TestUser, attributes: { up_to?: string; until?: string }, id = 'me') =>
  api(user).POST('/users/{id}/notifications/read', { params: { path: { id } }, body: { data: { type: 'notification_read_marker', attributes } } });

/**
 * `count` new users follow `user`, one after the other: `count` new_follower notifications, the
 * first fan's oldest. Each is awaited before the next follow, since follows of different users
 * travel in different partitions and could otherwise arrive in another order.
 */
async function followers(user: TestUser, count: number): Promise<TestUser[]> {
  const fans: TestUser[] = [];
  for (let i = 0; i < count; i += 1) {
    const fan = await person(['write_user']);
    await followUser(fan, user);
    await awaitNotification(user, 'new_follower', 'actor', fan.id);
    fans.push(fan);
  }
  return fans;
}

describe('every kind of notification', () => {
  it('tells a follower that an author published a story, then a chapter, then a blog post, with links to each and includes', async () => {
    const [reader, author] = await Promise.all([person(), person()]);
    await followUser(reader, author);
    const { story, chapter: first } = await publishStory(author, 'Followed story');

    const published = await awaitNotification(reader, 'story_published', 'story', story);
    expect(published).toMatchObject({ type: 'notification', attributes: { kind: 'story_published', read: false, reasons: [] } });
    expect(published.attributes.date_created).toMatch(ISO_UTC);
    expect(published.links?.self).toBe(`${stack.system.apiUrl}/notifications/${published.id}`);
    expect(published.relationships).toEqual({
      actor: { data: { type: 'user', id: author.id }, links: { related: `${stack.system.apiUrl}/users/${author.id}` } },
      story: { data: { type: 'story', id: story }, links: { related: `${stack.system.apiUrl}/stories/${story}` } },
    });

    const second = await addChapter(author, story, 'Two');
    const chapter = await awaitNotification(reader, 'chapter_published', 'chapter', second);
    expect(chapter.attributes.reasons).toEqual(['followed_author']);
    expect(related(chapter, 'story')).toBe(story);
    expect(related(chapter, 'actor')).toBe(author.id);
    // Publishing the story is one notification: its first chapter is not announced besides.
    await awaitSettled();
    expect((await everything(reader)).filter((n) => related(n, 'chapter') === first)).toEqual([]);

    const post = ok(await api(author).POST('/blog-posts', { body: { data: { type: 'blog_post', attributes: { title: 'News', content: 'Some news' } } } }), 201).data!.id;
    const blog = await awaitNotification(reader, 'blog_post', 'blog_post', post);
    expect(blog.relationships).toEqual({
      actor: { data: { type: 'user', id: author.id }, links: { related: `${stack.system.apiUrl}/users/${author.id}` } },
      blog_post: { data: { type: 'blog_post', id: post }, links: { related: `${stack.system.apiUrl}/blog-posts/${post}` } },
    });

    // Newest first; include brings the author, the story and the chapter in one document.
    const page = ok(await inbox(reader, { include: 'actor,story,chapter', 'fields[user]': 'name', 'fields[story]': 'title', 'fields[chapter]': 'title' }));
    expect(page.data.map((n) => n.attributes.kind)).toEqual(['blog_post', 'chapter_published', 'story_published']);
    expect((page.included ?? []).map((resource) => [resource.type, resource.id]).sort()).toEqual([['chapter', second], ['story', story], ['user', author.id]].sort());
    expect(page.meta.unread).toBe(3);
    // The author hears of the new follower.
    await awaitNotification(author, 'new_follower', 'actor', reader.id);
  });

  it('tells a user of a new follower, a comment on their story and a private message', async () => {
    const [writer, fan] = await Promise.all([person(), person()]);
    const { story } = await publishStory(writer, 'Commented story');
    await followUser(fan, writer);
    const followed = await awaitNotification(writer, 'new_follower', 'actor', fan.id);
    expect(Object.keys(followed.relationships ?? {})).toEqual(['actor']);

    const comment = ok(await api(fan).POST('/stories/{id}/comments', { params: { path: { id: story } }, body: { data: { type: 'comment', attributes: { content: 'Lovely' } } } }), 201).data.id;
    const commented = await awaitNotification(writer, 'story_comment', 'comment', comment);
    expect(related(commented, 'story')).toBe(story);
    expect(related(commented, 'actor')).toBe(fan.id);
    // Comments have no URL of their own: linkage only.
    expect((commented.relationships as Record<string, unknown>).comment).toEqual({ data: { type: 'comment', id: comment } });

    const message = ok(await api(fan).POST('/users/{id}/private-messages', { params: { path: { id: writer.id } }, body: { data: { type: 'private_message', attributes: { subject: 'Hi', content: 'Hello' } } } }), 201).data.id;
    const messaged = await awaitNotification(writer, 'private_message', 'private_message', message);
    expect((messaged.relationships as Record<string, unknown>).private_message).toEqual({ data: { type: 'private_message', id: message }, links: { related: `${stack.system.apiUrl}/private-messages/${message}` } });
    // The commenter and the sender never hear of their own doing.
    await awaitSettled();
    expect(await everything(fan, { 'filter[kind]': 'story_comment,private_message,new_follower' })).toEqual([]);
  });

  it('tells a reader once per chapter of a story on two shelves, with every reason that applies', async () => {
    const [author, shelver, both] = await Promise.all([person(), person(), person()]);
    const { story } = await publishStory(author, 'Shelved story');
    await shelve(shelver, 'To read', story);
    await shelve(shelver, 'Favourites', story);
    await shelve(both, 'Mine', story);
    await followUser(both, author);
    await awaitSettled();

    const chapter = await addChapter(author, story, 'Next');
    const shelved = await awaitNotification(shelver, 'chapter_published', 'chapter', chapter);
    expect(shelved.attributes.reasons).toEqual(['bookshelf']);
    const twice = await awaitNotification(both, 'chapter_published', 'chapter', chapter);
    expect(twice.attributes.reasons).toEqual(['followed_author', 'bookshelf']);
    await awaitSettled();
    for (const reader of [shelver, both]) expect((await everything(reader, { 'filter[kind]': 'chapter_published' })).filter((n) => related(n, 'chapter') === chapter)).toHaveLength(1);
  });
});

describe('GET /users/:id/notifications', () => {
  it('pages newest first through links.next, with meta.unread on every page', async () => {
    const reader = await person();
    const fans = await followers(reader, 5);
    const pages: Notification[][] = [];
    let result = await inbox(reader, { 'page[size]': 2 });
    for (;;) {
      const body = ok(result);
      expect(body.meta.unread).toBe(5);
      pages.push(body.data);
      if (body.links.next === undefined) break;
      result = await api(reader).GET('/users/{id}/notifications', { params: { path: { id: 'me' } }, ...followLink(body.links.next) });
    }
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((n) => related(n, 'actor'))).toEqual(fans.map((fan) => fan.id).reverse());
  });

  it('filters by kind and read state; the unread count stays the whole inbox', async () => {
    const [reader, writer] = await Promise.all([person(), person()]);
    await followers(reader, 2);
    ok(await api(writer).POST('/users/{id}/private-messages', { params: { path: { id: reader.id } }, body: { data: { type: 'private_message', attributes: { subject: 'Hi', content: 'Hello' } } } }), 201);
    const all = await awaitInbox(reader, (list) => list.length === 3, 'three notifications');
    const followerNotes = ok(await inbox(reader, { 'filter[kind]': 'new_follower,story_comment' }));
    expect(followerNotes.data.map((n) => n.attributes.kind)).toEqual(['new_follower', 'new_follower']);
    expect(ok(await inbox(reader, { 'filter[kind]': 'private_message' })).data).toHaveLength(1);

    ok(await mark(reader, all[0]!.id, true));
    const unread = ok(await inbox(reader, { 'filter[read]': 'false' }));
    expect(unread.data.map((n) => n.id)).toEqual(all.slice(1).map((n) => n.id));
    expect(unread.meta.unread).toBe(2);
    expect(ok(await inbox(reader, { 'filter[read]': 'true', 'filter[kind]': all[0]!.attributes.kind })).data.map((n) => n.id)).toEqual([all[0]!.id]);
    expect(ok(await inbox(reader, { 'filter[read]': 'true', 'filter[kind]': 'blog_post' })).data).toEqual([]);

    // A cursor is bound to its filters; malformed filters name their parameter.
    const first = ok(await inbox(reader, { 'filter[kind]': 'new_follower', 'page[size]': 1 }));
    const cursor = new URL(first.links.next!).searchParams.get('page[cursor]')!;
    expect(ok(await inbox(reader, { 'filter[kind]': 'new_follower', 'page[size]': 1, 'page[cursor]': cursor })).data).toHaveLength(1);
    expectError(await inbox(reader, { 'filter[kind]': 'private_message', 'page[cursor]': cursor }), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
    expectError(await client.call('GET', '/users/me/notifications?filter[kind]=likes', { token: reader.token }), 400, 'invalid_parameter', { parameter: 'filter[kind]' });
    expectError(await client.call('GET', '/users/me/notifications?filter[read]=yes', { token: reader.token }), 400, 'invalid_parameter', { parameter: 'filter[read]' });
    expectError(await client.call('GET', '/users/me/notifications?sort=-date_created', { token: reader.token }), 400, 'invalid_sort');
    expectError(await client.call('GET', '/users/me/notifications?page[size]=101', { token: reader.token }), 400, 'invalid_parameter', { parameter: 'page[size]' });
  });

  it("is the caller's own: another user's inbox is 404, their notifications too", async () => {
    const [reader, other] = await Promise.all([person(), person()]);
    const [note] = await followers(reader, 1).then(() => everything(reader));
    ok(await inbox(reader, {}, reader.id));
    expectError(await inbox(other, {}, reader.id), 404, 'not_found');
    expectError(await inbox(other, {}, '987654321'), 404, 'not_found');
    expectError(await api(other).GET('/notifications/{id}', { params: { path: { id: note!.id } } }), 404, 'not_found');
    expectError(await mark(other, note!.id, true), 404, 'not_found');
    expectError(await markUpTo(other, { up_to: note!.id }, reader.id), 404, 'not_found');
    expectError(await api(other).POST('/users/{id}/notifications/feed-token', { params: { path: { id: reader.id } }, body: { data: { type: 'notification_feed' } } }), 404, 'not_found');
    expectError(await api(other).DELETE('/users/{id}/notifications/feed-token', { params: { path: { id: reader.id } } }), 404, 'not_found');
    // Nothing of it was changed by the refused calls.
    expect(ok(await api(reader).GET('/notifications/{id}', { params: { path: { id: note!.id } } })).data.attributes.read).toBe(false);
  });
});

describe('scope', () => {
  it('needs read_notifications (403 insufficient_scope with its challenge) and a user (app-only 403)', async () => {
    const [reader, noScope] = await Promise.all([person(), person(SCOPE_NAMES.filter((scope) => scope !== 'read_notifications'))]);
    const calls = [
      (token: string) => client.call('GET', `/users/${reader.id}/notifications`, { token }),
      (token: string) => client.call('GET', '/notifications/1', { token }),
      (token: string) => client.call('PATCH', '/notifications/1', { token, body: markBody('1', true) }),
      (token: string) => client.call('POST', `/users/${reader.id}/notifications/read`, { token, body: { data: { type: 'notification_read_marker', attributes: { up_to: '1' } } } }),
      (token: string) => client.call('POST', `/users/${reader.id}/notifications/feed-token`, { token, body: { data: { type: 'notification_feed' } } }),
      (token: string) => client.call('DELETE', `/users/${reader.id}/notifications/feed-token`, { token }),
    ];
    for (const call of calls) {
      const refused = await call(noScope.token);
      expectError(refused, 403, 'insufficient_scope');
      expect(refused.headers.get('www-authenticate')).toContain('scope="read_notifications"');
      expectError(await call(appToken), 403, 'forbidden');
    }
    expectError(await client.call('GET', '/users/me/notifications', { token: null }), 401, 'invalid_token');
  });
});

describe('marking read', () => {
  it('marks one read and unread again with PATCH; the document and the count follow', async () => {
    const reader = await person();
    const [note] = await followers(reader, 1).then(() => everything(reader));
    const marked = ok(await mark(reader, note!.id, true));
    expect(marked.data).toMatchObject({ id: note!.id, type: 'notification', attributes: { read: true } });
    expect(marked.links.self).toBe(`${stack.system.apiUrl}/notifications/${note!.id}`);
    expect(ok(await inbox(reader)).meta.unread).toBe(0);
    expect(ok(await mark(reader, note!.id, true)).data.attributes.read).toBe(true);
    expect(ok(await mark(reader, note!.id, false)).data.attributes.read).toBe(false);
    expect(ok(await inbox(reader)).meta.unread).toBe(1);
    expect(ok(await api(reader).GET('/notifications/{id}', { params: { path: { id: note!.id }, query: { include: 'actor' } } })).included?.map((user) => user.id)).toEqual([related(note!, 'actor')]);

    expectError(await client.call('PATCH', `/notifications/${note!.id}`, { token: reader.token, body: { data: { type: 'notification', id: note!.id, attributes: { kind: 'blog_post' } } } }), 422, 'validation_failed', { pointer: '/data/attributes/kind' });
    expectError(await client.call('PATCH', `/notifications/${note!.id}`, { token: reader.token, body: { data: { type: 'notification', id: note!.id, attributes: { read: 'yes' } } } }), 422, 'validation_failed', { pointer: '/data/attributes/read' });
    expectError(await client.call('PATCH', `/notifications/${note!.id}`, { token: reader.token, body: markBody('1', true) }), 409, 'conflict');
    expectError(await mark(reader, '987654321', true), 404, 'not_found');
  });

  it('marks every notification up to one (up_to) or up to a moment (until), answering marked and unread', async () => {
    const reader = await person();
    await followers(reader, 5);
    const newestFirst = await everything(reader);
    const [fifth, fourth, third, second, first] = newestFirst as [Notification, Notification, Notification, Notification, Notification];

    const upTo = ok(await markUpTo(reader, { up_to: second.id }));
    expect(upTo).toEqual({ meta: { marked: 2, unread: 3 }, links: { self: `${stack.system.apiUrl}/users/me/notifications/read` } });
    expect((await everything(reader, { 'filter[read]': 'true' })).map((n) => n.id)).toEqual([second.id, first.id]);
    expect(ok(await markUpTo(reader, { up_to: second.id })).meta).toEqual({ marked: 0, unread: 3 });

    const until = ok(await markUpTo(reader, { until: third.attributes.date_created! }));
    expect(until.meta).toEqual({ marked: 1, unread: 2 });
    expect((await everything(reader, { 'filter[read]': 'false' })).map((n) => n.id)).toEqual([fifth.id, fourth.id]);
    // A date alone is its whole UTC day: everything of today.
    expect(ok(await markUpTo(reader, { until: fifth.attributes.date_created!.slice(0, 10) })).meta).toEqual({ marked: 2, unread: 0 });
    expect(ok(await inbox(reader)).meta.unread).toBe(0);
  });

  it('takes exactly one of up_to and until, each well-formed (422 at its pointer)', async () => {
    const reader = await person();
    const rule = { pointer: '/data/attributes' };
    for (const attributes of [{}, { up_to: '1', until: '2026-11-21T19:00:00Z' }]) {
      const refused = await markUpTo(reader, attributes);
      expectError(refused, 422, 'validation_failed', rule);
      expect((refused.error as { errors: { detail: string }[] }).errors[0]!.detail).toBe('Give exactly one of up_to and until.');
    }
    expectError(await client.call('POST', '/users/me/notifications/read', { token: reader.token, body: { data: { type: 'notification_read_marker', attributes: { up_to: 5 } } } }), 422, 'validation_failed', { pointer: '/data/attributes/up_to' });
    expectError(await markUpTo(reader, { until: 'yesterday' }), 422, 'validation_failed', { pointer: '/data/attributes/until' });
    expectError(await client.call('POST', '/users/me/notifications/read', { token: reader.token, body: { data: { type: 'notification', attributes: { up_to: '1' } } } }), 409, 'conflict');
    expectError(await client.call('POST', '/users/me/notifications/read', { token: reader.token, body: { data: { type: 'notification_read_marker', attributes: { read: true } } } }), 422, 'validation_failed', { pointer: '/data/attributes/read' });
  });
});

describe('delivery and visibility', () => {
  it('makes one notification of an event delivered twice', async () => {
    const [reader, fan] = await Promise.all([person(), person()]);
    const followId = await followUser(fan, reader);
    await awaitNotification(reader, 'new_follower', 'actor', fan.id);
    const { rows } = await db.query<{ key: string; payload: Buffer }>('SELECT key, payload FROM users.outbox WHERE topic = $1 AND key = $2 ORDER BY id LIMIT 1', [Topics.usersFollow, followId]);
    expect(rows).toHaveLength(1);
    // The same envelope (same event id) again, as a broker or relay retry would deliver it.
    await producer.send({ topic: namespaced(kafka, Topics.usersFollow), messages: [{ key: rows[0]!.key, value: rows[0]!.payload }] });
    await awaitSettled();
    expect((await everything(reader)).filter((n) => related(n, 'actor') === fan.id)).toHaveLength(1);
  });

  it('drops the notifications of a story its author unpublishes, and they stay out of the count', async () => {
    const [reader, author] = await Promise.all([person(), person()]);
    await followUser(reader, author);
    const { story } = await publishStory(author, 'Short-lived');
    const chapter = await addChapter(author, story, 'Two');
    await awaitNotification(reader, 'chapter_published', 'chapter', chapter);
    await awaitNotification(reader, 'story_published', 'story', story);
    expect(ok(await inbox(reader)).meta.unread).toBe(2);

    ok(await api(author).PATCH('/stories/{id}', { params: { path: { id: story } }, body: { data: { type: 'story', id: story, attributes: { published: false } } } }));
    await awaitInbox(reader, (all) => all.every((n) => related(n, 'story') !== story), 'the unpublished story to leave the inbox');
    expect(ok(await inbox(reader)).meta.unread).toBe(0);
  });
});

describe('the private feed token', () => {
  const feedOf = async (url: string) => {
    const response = await fetch(url);
    return { status: response.status, body: await response.text() };
  };

  it('creates a feed URL shown once, replaces it on a new POST, and revokes it: the feed 404s at once', async () => {
    const reader = await person();
    await followers(reader, 1);
    const create = () => api(reader).POST('/users/{id}/notifications/feed-token', { params: { path: { id: 'me' } }, body: { data: { type: 'notification_feed' } } });
    const created = await create();
    const feed = ok(created, 201);
    expect(created.response.headers.get('location')).toBeNull();
    expect(feed.data).toMatchObject({ type: 'notification_feed', id: reader.id });
    expect(feed.data.links).toBeUndefined();
    const url = feed.data.attributes.url!;
    expect(url).toMatch(new RegExp(`^${stack.origin}/feeds/notifications/[A-Za-z0-9_-]{43}\\.atom$`));
    expect(feed.data.attributes.date_created).toMatch(ISO_UTC);
    const atom = await feedOf(url);
    expect(atom.status).toBe(200);
    expect(atom.body).toContain('<feed');

    const replacement = ok(await create(), 201).data.attributes.url!;
    expect(replacement).not.toBe(url);
    expect((await feedOf(url)).status).toBe(404);
    expect((await feedOf(replacement)).status).toBe(200);

    expect((await api(reader).DELETE('/users/{id}/notifications/feed-token', { params: { path: { id: 'me' } } })).response.status).toBe(204);
    expect((await feedOf(replacement)).status).toBe(404);
    expect((await api(reader).DELETE('/users/{id}/notifications/feed-token', { params: { path: { id: reader.id } } })).response.status).toBe(204);
  });
});
