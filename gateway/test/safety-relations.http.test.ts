import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import type { components } from '@inkwell/client';
import { createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually, expectError, JsonApiClient, ok, walkPages } from './support/json-api-client.js';

/**
 * Blocking and muting through the gateway (docs/api/safety.md, "Blocking" and "Muting"): each
 * rule enforced by the service that owns the action, at once, and the read-time filters of
 * inboxes, mailboxes and lists.
 */

const DATABASE = 'inkwell_test_gateway_safety_relations';
/** Events travel outbox → Kafka → consumer (→ fan-out, or the search index): well within this on a busy machine. */
const EVENT_TIMEOUT_MS = 30_000;
/** How many times the race of a message and a block is run. */
const RACE_ROUNDS = 12;

type Notification = components['schemas']['NotificationResource'];

let stack: GatewayStack;
let client: JsonApiClient;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => {
    throw new Error('every call here names its token');
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** A new user whose token has every scope. */
const person = () => createTestUser(stack.system, { scopes: SCOPE_NAMES });
const api = (user: TestUser) => client.as(user.token);

const block = (blocker: TestUser, blocked: TestUser | string) =>
  api(blocker).POST('/users/me/blocks', { body: { data: { type: 'block', relationships: { blocked: { data: { type: 'user', id: typeof blocked === 'string' ? blocked : blocked.id } } } } } });
const unblock = (blocker: TestUser, blocked: TestUser) => api(blocker).DELETE('/users/me/blocks/{id}', { params: { path: { id: blocked.id } } });
const muteAuthor = (muter: TestUser, author: TestUser) =>
  api(muter).POST('/users/me/mutes', { body: { data: { type: 'mute', relationships: { author: { data: { type: 'user', id: author.id } } } } } });
const muteTag = (muter: TestUser, tag: string) => api(muter).POST('/users/me/mutes', { body: { data: { type: 'mute', relationships: { tag: { data: { type: 'tag', id: tag } } } } } });

const send = (from: TestUser, to: string) =>
  api(from).POST('/users/{id}/private-messages', { params: { path: { id: to } }, body: { data: { type: 'private_message', attributes: { subject: 'Hello', content: 'Hi there' } } } });
const followBody = (id: string) => ({ data: { type: 'follow' as const, relationships: { followed: { data: { type: 'user' as const, id } } } } });
const followUser = (follower: TestUser, followed: TestUser) => api(follower).POST('/users/{id}/following', { params: { path: { id: 'me' } }, body: followBody(followed.id) });
const following = async (user: TestUser) => ok(await api(user).GET('/users/{id}/following', { params: { path: { id: user.id } } })).data.map((entry) => entry.relationships?.followed?.data?.id);
const profile = async (user: TestUser, as: TestUser) => ok(await api(as).GET('/users/{id}', { params: { path: { id: user.id } } })).data.attributes;

/** A published story of `author` with one published chapter and `tags`; returns its id. */
async function publishStory(author: TestUser, title: string, tags: string[] = []): Promise<string> {
  const body = { data: { type: 'story' as const, attributes: { title }, relationships: { tags: { data: tags.map((id) => ({ type: 'tag' as const, id })) } } } };
  const story = ok(await api(author).POST('/stories', { body }), 201).data.id;
  ok(await api(author).POST('/stories/{id}/chapters', { params: { path: { id: story } }, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'Words here', published: true } } } }), 201);
  ok(await api(author).PATCH('/stories/{id}', { params: { path: { id: story } }, body: { data: { type: 'story', id: story, attributes: { published: true } } } }));
  return story;
}

const comment = (author: TestUser, story: string) =>
  api(author).POST('/stories/{id}/comments', { params: { path: { id: story } }, body: { data: { type: 'comment', attributes: { content: 'Nice one' } } } });

/** The ids of GET /stories?filter[author]=… for `reader`, with `hideBlocked` when given. */
async function storiesBy(reader: TestUser, author: TestUser, hideBlocked?: boolean): Promise<string[]> {
  const query = { 'filter[author]': author.id, ...(hideBlocked === undefined ? {} : { 'filter[hide_blocked]': String(hideBlocked) as 'true' | 'false' }) };
  return ok(await api(reader).GET('/stories', { params: { query } })).data.map((story) => story.id);
}

/** Waits until the search index lists `story` among `author`'s stories (GET /stories reads the index). */
const indexed = (reader: TestUser, author: TestUser, story: string) =>
  eventually(() => storiesBy(reader, author), (ids) => ids.includes(story), `story ${story} in the search index`, EVENT_TIMEOUT_MS);

/** Every notification of `user`'s inbox. */
const inbox = (user: TestUser) => walkPages((next) => api(user).GET('/users/{id}/notifications', { params: { path: { id: 'me' }, query: { 'page[size]': 100 } }, ...next }));
const about = (notification: Notification, name: string) => (notification.relationships as Record<string, { data: { id: string } | null } | undefined> | undefined)?.[name]?.data?.id;
/** Waits until `user`'s inbox has a notification whose relationship `name` names `id`. */
const awaitNotification = (user: TestUser, name: string, id: string) =>
  eventually(() => inbox(user), (all) => all.some((notification) => about(notification, name) === id), `a notification about ${name} ${id}`, EVENT_TIMEOUT_MS);

describe('blocks', () => {
  it('are created, listed newest first in cursor pages, and removed; yourself, twice or nobody are refused', async () => {
    const [ann, bob, cat] = await Promise.all([person(), person(), person()]);
    const created = ok(await block(ann, bob), 201).data;
    expect(created).toMatchObject({ type: 'block', id: bob.id, relationships: { blocker: { data: { type: 'user', id: ann.id } }, blocked: { data: { type: 'user', id: bob.id } } } });
    ok(await block(ann, cat), 201);
    expectError(await block(ann, bob), 409, 'conflict', { pointer: '/data/relationships/blocked' });
    expectError(await block(ann, ann), 422, 'validation_failed', { pointer: '/data/relationships/blocked' });
    expectError(await block(ann, '999999999999'), 422, 'validation_failed', { pointer: '/data/relationships/blocked' });

    const first = ok(await api(ann).GET('/users/me/blocks', { params: { query: { 'page[size]': 1 } } }));
    expect(first.data.map((entry) => entry.id)).toEqual([cat.id]);
    const all = await walkPages((next) => api(ann).GET('/users/me/blocks', { params: { query: { 'page[size]': 1 } }, ...next }));
    expect(all.map((entry) => entry.id)).toEqual([cat.id, bob.id]);

    ok(await unblock(ann, bob), 204);
    expectError(await unblock(ann, bob), 404, 'not_found');
    expect(ok(await api(ann).GET('/users/me/blocks')).data.map((entry) => entry.id)).toEqual([cat.id]);
  });

  it('refuse private messages both ways exactly as a message to nobody, and hide what was sent before', async () => {
    const [ann, bob] = await Promise.all([person(), person()]);
    const earlier = ok(await send(bob, ann.id), 201).data.id;
    ok(await block(ann, bob), 201);
    const toNobody = await send(bob, '999999999999');
    expectError(toNobody, 404, 'not_found');
    for (const refused of [await send(bob, ann.id), await send(ann, bob.id)]) {
      expectError(refused, 404, 'not_found');
      expect(refused.error).toEqual(toNobody.error);
    }
    expectError(await api(ann).GET('/private-messages/{id}', { params: { path: { id: earlier } } }), 404, 'not_found');
    expect(ok(await api(ann).GET('/users/{id}/private-messages', { params: { path: { id: 'me' } } })).data).toEqual([]);
    // The sender still sees what they sent; after an unblock the blocker sees it again.
    ok(await api(bob).GET('/private-messages/{id}', { params: { path: { id: earlier } } }));
    ok(await unblock(ann, bob), 204);
    ok(await api(ann).GET('/private-messages/{id}', { params: { path: { id: earlier } } }));
  });

  it('end follows both ways with their counts, and refuse new ones both ways', async () => {
    const [ann, bob] = await Promise.all([person(), person()]);
    ok(await followUser(ann, bob), 201);
    ok(await followUser(bob, ann), 201);
    ok(await block(ann, bob), 201);
    expect(await following(ann)).toEqual([]);
    expect(await following(bob)).toEqual([]);
    expect(await profile(ann, ann)).toMatchObject({ num_followers: 0, num_following: 0 });
    expect(await profile(bob, ann)).toMatchObject({ num_followers: 0, num_following: 0 });
    expectError(await followUser(bob, ann), 403, 'forbidden');
    expectError(await followUser(ann, bob), 403, 'forbidden');
  });

  it("refuse comments on the blocker's stories, and on the blocked user's", async () => {
    const [ann, bob] = await Promise.all([person(), person()]);
    const [annStory, bobStory] = await Promise.all([publishStory(ann, 'Ann writes'), publishStory(bob, 'Bob writes')]);
    ok(await block(ann, bob), 201);
    expectError(await comment(bob, annStory), 403, 'forbidden');
    expectError(await comment(ann, bobStory), 403, 'forbidden');
    ok(await unblock(ann, bob), 204);
    ok(await comment(bob, annStory), 201);
  });

  it("hide the blocked user's actions from the blocker's notifications, also those written before", async () => {
    const [ann, bob] = await Promise.all([person(), person()]);
    const story = await publishStory(ann, 'Comment magnet');
    const remark = ok(await comment(bob, story), 201).data.id;
    const note = (await awaitNotification(ann, 'comment', remark)).find((notification) => about(notification, 'comment') === remark)!;
    ok(await block(ann, bob), 201);
    expect((await inbox(ann)).filter((notification) => about(notification, 'actor') === bob.id)).toEqual([]);
    expect(ok(await api(ann).GET('/users/{id}/notifications', { params: { path: { id: 'me' } } })).meta.unread).toBe(0);
    // Nor by its id: reading or marking it answers as for a notification that does not exist.
    expectError(await api(ann).GET('/notifications/{id}', { params: { path: { id: note.id } } }), 404, 'not_found');
    const marking = { data: { type: 'notification' as const, id: note.id, attributes: { read: true } } };
    expectError(await api(ann).PATCH('/notifications/{id}', { params: { path: { id: note.id } }, body: marking }), 404, 'not_found');
  });

  it("hide the blocked user's stories, comments and blog posts from the blocker's lists only with filter[hide_blocked]=true", async () => {
    const [ann, bob, cat] = await Promise.all([person(), person(), person()]);
    const [bobStory, catStory] = await Promise.all([publishStory(bob, 'Hidden tale'), publishStory(cat, 'Open tale')]);
    const remark = ok(await comment(bob, catStory), 201).data.id;
    const post = ok(await api(bob).POST('/blog-posts', { body: { data: { type: 'blog_post', attributes: { title: 'Bob posts', content: 'Text' } } } }), 201).data!.id;
    await indexed(ann, bob, bobStory);
    ok(await block(ann, bob), 201);

    expect(await storiesBy(ann, bob)).toEqual([bobStory]);
    expect(await storiesBy(ann, bob, false)).toEqual([bobStory]);
    expect(await storiesBy(ann, bob, true)).toEqual([]);
    expect(await storiesBy(cat, bob, true)).toEqual([bobStory]);

    const comments = async (hideBlocked: 'true' | 'false') =>
      ok(await api(ann).GET('/stories/{id}/comments', { params: { path: { id: catStory }, query: { 'filter[hide_blocked]': hideBlocked } } })).data.map((entry) => entry.id);
    expect(await comments('false')).toEqual([remark]);
    expect(await comments('true')).toEqual([]);

    const posts = async (hideBlocked: 'true' | 'false') =>
      ok(await api(ann).GET('/blog-posts', { params: { query: { 'filter[author]': bob.id, 'filter[hide_blocked]': hideBlocked } } })).data.map((entry) => entry.id);
    expect(await posts('false')).toEqual([post]);
    expect(await posts('true')).toEqual([]);
  });

  it('let no message sent while the block is being made reach the blocker', async () => {
    const [ann, bob] = await Promise.all([person(), person()]);
    const accepted: string[] = [];
    for (let round = 0; round < RACE_ROUNDS; round += 1) {
      const [sent, blocked] = await Promise.all([send(bob, ann.id), block(ann, bob)]);
      ok(blocked, 201);
      if (sent.response.status === 201) accepted.push(sent.data!.data.id);
      else expectError(sent, 404, 'not_found');
      // While the block stands, none of the messages that got through is in the blocker's mailbox or readable by id.
      const mailbox = ok(await api(ann).GET('/users/{id}/private-messages', { params: { path: { id: 'me' }, query: { 'page[size]': 1000 } } })).data.map((message) => message.id);
      expect(mailbox.filter((id) => accepted.includes(id))).toEqual([]);
      for (const id of accepted) expectError(await api(ann).GET('/private-messages/{id}', { params: { path: { id } } }), 404, 'not_found');
      ok(await unblock(ann, bob), 204);
    }
  });
});

describe('mutes', () => {
  it('of an author and of a tag leave GET /stories and the notifications of the muter only, until unmuted', async () => {
    const [ann, dan, eve] = await Promise.all([person(), person(), person()]);
    const genre = ok(await api(ann).GET('/tags', { params: { query: { 'filter[kind]': 'genre', 'page[size]': 1 } } })).data[0]!.id;
    ok(await followUser(ann, dan), 201);
    ok(await followUser(ann, eve), 201);
    const [danStory, eveStory] = await Promise.all([publishStory(dan, 'Dan tells'), publishStory(eve, 'Eve tells', [genre])]);
    await Promise.all([indexed(ann, dan, danStory), indexed(ann, eve, eveStory), awaitNotification(ann, 'story', danStory), awaitNotification(ann, 'story', eveStory)]);

    const byAuthor = ok(await muteAuthor(ann, dan), 201).data;
    expect(byAuthor).toMatchObject({ type: 'mute', relationships: { author: { data: { type: 'user', id: dan.id } }, tag: { data: null } } });
    const byTag = ok(await muteTag(ann, genre), 201).data;
    expect(byTag).toMatchObject({ type: 'mute', relationships: { author: { data: null }, tag: { data: { type: 'tag', id: genre } } } });
    expectError(await muteAuthor(ann, dan), 409, 'conflict');
    expectError(await muteAuthor(ann, ann), 422, 'validation_failed');
    expect(ok(await api(ann).GET('/users/me/mutes')).data.map((mute) => mute.id)).toEqual([byTag.id, byAuthor.id]);

    expect(await storiesBy(ann, dan)).toEqual([]);
    expect(await storiesBy(ann, eve)).toEqual([]);
    const tagged = ok(await api(ann).GET('/stories', { params: { query: { 'filter[tags]': genre, 'filter[author]': `${dan.id},${eve.id}` } } })).data;
    expect(tagged).toEqual([]);
    expect((await inbox(ann)).filter((notification) => [danStory, eveStory].includes(about(notification, 'story') ?? ''))).toEqual([]);
    // Nobody else is affected, and nobody is told.
    expect(await storiesBy(dan, dan)).toEqual([danStory]);
    expect(await storiesBy(eve, eve)).toEqual([eveStory]);

    ok(await api(ann).DELETE('/users/me/mutes/{id}', { params: { path: { id: byAuthor.id } } }), 204);
    expect(await storiesBy(ann, dan)).toEqual([danStory]);
    expectError(await api(ann).DELETE('/users/me/mutes/{id}', { params: { path: { id: byAuthor.id } } }), 404, 'not_found');
  });
});
