import pg from 'pg';
import type { components, operations } from '@inkwell/client';
import { createAppToken, createTestUser, ensureDatabase, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, follow, JsonApiClient, ok, type Answer } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_messages';
const MiB = 1024 * 1024;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

let stack: GatewayStack;
let client: JsonApiClient;
let db: pg.Pool;
let ann: TestUser;
let ben: TestUser;
let cat: TestUser;
let readOnly: TestUser;
let writeOnly: TestUser;
let appToken: string;

const both = ['read_pms', 'write_pms'];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => ann.token);
  [ann, ben, cat, readOnly, writeOnly] = await Promise.all([
    createTestUser(stack.system, { scopes: both }),
    createTestUser(stack.system, { scopes: both }),
    createTestUser(stack.system, { scopes: both }),
    createTestUser(stack.system, { scopes: ['read_pms'] }),
    createTestUser(stack.system, { scopes: ['write_pms'] }),
  ]);
  appToken = (await createAppToken(stack.system, { scopes: both })).token;
  db = new pg.Pool({ connectionString: await ensureDatabase(stackEnv().databaseUrl, DATABASE), max: 2 });
}, 180_000);

afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

type MessageAttributes = components['schemas']['PostUsersByIdPrivateMessagesRequest']['data']['attributes'];
type MessageList = NonNullable<operations['getUsersByIdPrivateMessages']['parameters']['query']>;
type Message = components['schemas']['PrivateMessageResource'];

/** The typed client (checked against the API document) as `token`: ann's when undefined, none when null. */
const api = (token?: string | null) => client.as(token);
/** A raw request as `token` (ann's by default): for bodies and parameters the API document says are invalid, sent on purpose. */
const raw = (method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> => client.call(method, path, options);

/** POST /users/:to/private-messages through the typed client as `token` (ann's by default). */
const write = async (to: string, attributes: MessageAttributes, token?: string | null) =>
  api(token).POST('/users/{id}/private-messages', { params: { path: { id: to } }, body: { data: { type: 'private_message', attributes } } });
/** A raw POST /users/:to/private-messages as ann: for bodies the document refuses. */
const writeRaw = (to: string, body: unknown): Promise<Answer> => raw('POST', `/users/${to}/private-messages`, { body });

async function send(from: TestUser, to: string, subject: string, content = `${subject} body`): Promise<Message> {
  return ok(await write(to, { subject, content }, from.token), 201).data;
}

const byId = (id: string, token?: string, query: NonNullable<operations['getPrivateMessagesById']['parameters']['query']> = {}) => api(token).GET('/private-messages/{id}', { params: { path: { id }, query } });
const mark = (id: string, read: boolean, token: string) => api(token).PATCH('/private-messages/{id}', { params: { path: { id } }, body: { data: { type: 'private_message', id, attributes: { read } } } });

/** Back-dates a message (the service stamps "now"), for date-range edges and ordering. */
async function setDateSent(id: string, iso: string): Promise<void> {
  await db.query('UPDATE messaging.messages SET date_sent = $2 WHERE id = $1', [id, iso]);
}

function firstError(result: Answer | { error?: unknown; response: Response }) {
  const { body } = 'response' in result ? answer(result) : result;
  return body.errors?.[0];
}
const statusOf = (result: { response: Response }) => result.response.status;

const pageOf = (link: string | undefined) => (link === undefined ? undefined : new URL(link).searchParams.get('page[number]'));

describe('POST /users/:id/private-messages', () => {
  it('sends from the caller: 201 with Location, the whole message, sender and recipient', async () => {
    const result = await write(ben.id, { subject: '  Lunch?  ', content: 'Free *tomorrow*?' });
    const data = ok(result, 201).data;
    expect(result.response.headers.get('location')).toBe(`${stack.system.apiUrl}/private-messages/${data.id}`);
    expect(result.response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(data).toMatchObject({
      type: 'private_message',
      attributes: { subject: 'Lunch?', content: 'Free *tomorrow*?', content_html: '<p>Free <em>tomorrow</em>?</p>', read: false },
      relationships: { sender: { data: { type: 'user', id: ann.id } }, recipient: { data: { type: 'user', id: ben.id } } },
      links: { self: `${stack.system.apiUrl}/private-messages/${data.id}` },
    });
    expect(data.attributes.date_sent).toMatch(ISO_UTC);
  });

  it('sends to oneself through /users/me', async () => {
    const sent = ok(await write('me', { subject: 'note', content: 'to self' }), 201);
    expect(sent.data.relationships).toEqual({ sender: { data: { type: 'user', id: ann.id } }, recipient: { data: { type: 'user', id: ann.id } } });
  });

  it('answers 404 for a recipient who does not exist, also one registered a moment ago works', async () => {
    const missing = await write('987654321', { subject: 's', content: 'c' });
    expect(statusOf(missing)).toBe(404);
    expect(firstError(missing)?.code).toBe('not_found');
    const newcomer = await createTestUser(stack.system);
    await send(ann, newcomer.id, 'welcome');
  });

  it('answers 422 with pointers for missing, blank, too long and read-only members', async () => {
    // Missing, read-only and mistyped members break the document on purpose: sent raw.
    const missing = await writeRaw(ben.id, { data: { type: 'private_message', attributes: {} } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors?.map((error) => [error.code, error.source?.pointer])).toEqual([
      ['validation_failed', '/data/attributes/subject'],
      ['validation_failed', '/data/attributes/content'],
    ]);
    const blank = answer(await write(ben.id, { subject: ' \t ', content: '\n\n' }));
    expect(blank.status).toBe(422);
    expect(blank.body.errors?.map((error) => error.source?.pointer)).toEqual(['/data/attributes/subject', '/data/attributes/content']);
    const long = await write(ben.id, { subject: 's'.repeat(201), content: 'c' });
    expect(statusOf(long)).toBe(422);
    expect(firstError(long)?.source?.pointer).toBe('/data/attributes/subject');
    const readOnlyMembers = await writeRaw(ben.id, {
      data: { type: 'private_message', attributes: { subject: 's', content: 'c', read: true, date_sent: '2026-01-01T00:00:00Z', content_html: '<p>x</p>' }, relationships: { recipient: { data: { type: 'user', id: cat.id } } } },
    });
    expect(readOnlyMembers.status).toBe(422);
    expect(readOnlyMembers.body.errors?.map((error) => error.source?.pointer).sort()).toEqual([
      '/data/attributes/content_html',
      '/data/attributes/date_sent',
      '/data/attributes/read',
      '/data/relationships/recipient',
    ]);
    const notText = await writeRaw(ben.id, { data: { type: 'private_message', attributes: { subject: 42, content: ['c'] } } });
    expect(notText.status).toBe(422);
  });

  it('takes exactly 200 characters of subject and 1 MiB of content, and refuses one byte more (422, never 413 or 500)', async () => {
    const atLimit = ok(await write(ben.id, { subject: 'é'.repeat(200), content: 'a'.repeat(MiB) }), 201);
    expect(atLimit.data.attributes.content).toHaveLength(MiB);
    const over = await write(ben.id, { subject: 'big', content: 'a'.repeat(MiB + 1) });
    expect(statusOf(over)).toBe(422);
    expect(firstError(over)).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/attributes/content' } });
  });

  it('follows the JSON:API write rules: 409 wrong type, 403 client-chosen id, 400 not a resource object or not JSON', async () => {
    // Each body breaks the document on purpose: sent raw.
    const wrongType = await writeRaw(ben.id, { data: { type: 'blog_post', attributes: { subject: 's', content: 'c' } } });
    expect([wrongType.status, firstError(wrongType)?.code]).toEqual([409, 'conflict']);
    const clientId = await writeRaw(ben.id, { data: { type: 'private_message', id: '5', attributes: { subject: 's', content: 'c' } } });
    expect([clientId.status, firstError(clientId)?.code]).toEqual([403, 'forbidden']);
    const many = await writeRaw(ben.id, { data: [] });
    expect([many.status, firstError(many)?.code]).toEqual([400, 'invalid_body']);
    const notJson = await fetch(`${stack.system.apiUrl}/users/${ben.id}/private-messages`, { method: 'POST', headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/vnd.api+json' }, body: '{"data": ' });
    expect([notJson.status, ((await notJson.json()) as { errors: { code: string }[] }).errors[0]?.code]).toEqual([400, 'invalid_body']);
  });

  it('needs write_pms and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const attributes = { subject: 's', content: 'c' };
    const noScope = await write(ben.id, attributes, readOnly.token);
    expect([statusOf(noScope), firstError(noScope)?.code]).toEqual([403, 'insufficient_scope']);
    expect(noScope.response.headers.get('www-authenticate')).toContain('scope="write_pms"');
    expect(statusOf(await write(ben.id, attributes, appToken))).toBe(403);
    expect(statusOf(await write(ben.id, attributes, null))).toBe(401);
    ok(await write(ben.id, attributes, writeOnly.token), 201);
  });
});

describe('GET /private-messages/:id', () => {
  it('shows a message to its sender and recipient only; anyone else gets 404 as for a missing one', async () => {
    const sent = await send(ann, ben.id, 'between us');
    for (const user of [ann, ben]) {
      const shown = ok(await byId(sent.id, user.token));
      expect(shown.data).toMatchObject({ id: sent.id, attributes: { subject: 'between us' } });
      expect(shown.links.self).toBe(`${stack.system.apiUrl}/private-messages/${sent.id}`);
    }
    const third = await byId(sent.id, cat.token);
    expect([statusOf(third), firstError(third)?.code]).toEqual([404, 'not_found']);
    expect(statusOf(await byId('987654321'))).toBe(404);
    expect(statusOf(await byId('abc'))).toBe(404);
  });

  it('narrows with fields[private_message], includes sender and recipient, and refuses other includes and parameters', async () => {
    const sent = await send(ann, ben.id, 'narrow me');
    const narrowed = ok(await byId(sent.id, undefined, { 'fields[private_message]': 'subject,sender' }));
    expect(narrowed.data.attributes).toEqual({ subject: 'narrow me' });
    expect(Object.keys(narrowed.data.relationships ?? {})).toEqual(['sender']);
    const included = ok(await byId(sent.id, undefined, { include: 'sender,recipient', 'fields[user]': 'name' }));
    expect((included.included ?? []).map((user) => [user.type, user.id, user.attributes])).toEqual([
      ['user', ann.id, { name: ann.name }],
      ['user', ben.id, { name: ben.name }],
    ]);
    const include = await byId(sent.id, undefined, { include: 'author' });
    expect([statusOf(include), firstError(include)?.code]).toEqual([400, 'invalid_include']);
    // page[size] is no parameter of this path: sent raw.
    const unknown = await raw('GET', `/private-messages/${sent.id}?page[size]=2`);
    expect([unknown.status, firstError(unknown)?.code, firstError(unknown)?.source?.parameter]).toEqual([400, 'invalid_parameter', 'page[size]']);
  });

  it('needs read_pms', async () => {
    const sent = await send(writeOnly, ann.id, 'scoped');
    const refused = await byId(sent.id, writeOnly.token);
    expect([statusOf(refused), firstError(refused)?.code]).toEqual([403, 'insufficient_scope']);
    expect(refused.response.headers.get('www-authenticate')).toContain('scope="read_pms"');
  });
});

describe('PATCH /private-messages/:id', () => {
  /** A raw PATCH as `token`: for bodies the document refuses. */
  const markRaw = (id: string, token: string, data: Record<string, unknown>) => raw('PATCH', `/private-messages/${id}`, { token, body: { data: { type: 'private_message', ...data } } });

  it('lets the recipient mark a message read and unread', async () => {
    const sent = await send(ann, ben.id, 'mark me');
    expect(ok(await mark(sent.id, true, ben.token)).data.attributes.read).toBe(true);
    expect(ok(await byId(sent.id, ann.token)).data.attributes.read).toBe(true);
    expect(ok(await mark(sent.id, false, ben.token)).data.attributes.read).toBe(false);
  });

  it('refuses the sender with 403 forbidden and anyone else with 404', async () => {
    const sent = await send(ann, ben.id, 'not yours');
    const sender = await mark(sent.id, true, ann.token);
    expect([statusOf(sender), firstError(sender)?.code]).toEqual([403, 'forbidden']);
    const third = await mark(sent.id, true, cat.token);
    expect([statusOf(third), firstError(third)?.code]).toEqual([404, 'not_found']);
    expect(ok(await byId(sent.id, ben.token)).data.attributes.read).toBe(false);
  });

  it('changes only read: other attributes are 422, a non-boolean 422, a mismatched id 409, a missing id 400', async () => {
    const sent = await send(ann, ben.id, 'only read');
    const subject = await markRaw(sent.id, ben.token, { id: sent.id, attributes: { read: true, subject: 'changed' } });
    expect([subject.status, firstError(subject)?.source?.pointer]).toEqual([422, '/data/attributes/subject']);
    const notBoolean = await markRaw(sent.id, ben.token, { id: sent.id, attributes: { read: 'yes' } });
    expect([notBoolean.status, firstError(notBoolean)?.source?.pointer]).toEqual([422, '/data/attributes/read']);
    const otherId = await api(ben.token).PATCH('/private-messages/{id}', { params: { path: { id: sent.id } }, body: { data: { type: 'private_message', id: '1', attributes: { read: true } } } });
    expect([statusOf(otherId), firstError(otherId)?.code]).toEqual([409, 'conflict']);
    const noId = await markRaw(sent.id, ben.token, { attributes: { read: true } });
    expect([noId.status, firstError(noId)?.code]).toEqual([400, 'invalid_body']);
    expect(ok(await byId(sent.id, ben.token)).data.attributes).toMatchObject({ subject: 'only read', read: false });
  });
});

describe('GET /users/:id/private-messages', () => {
  // A closed world: eve, fay and gus write to each other; hal only ever looks.
  let eve: TestUser;
  let fay: TestUser;
  let gus: TestUser;
  let hal: TestUser;
  const m: Record<string, string> = {};

  beforeAll(async () => {
    [eve, fay, gus, hal] = (await Promise.all([1, 2, 3, 4].map(() => createTestUser(stack.system, { scopes: both })))) as [TestUser, TestUser, TestUser, TestUser];
    const plan: [string, TestUser, TestUser, string, string, string][] = [
      ['f1', fay, eve, 'Book club', 'We read *Dune*', '2026-03-01T00:00:00.000Z'],
      ['g1', gus, eve, 'Re: Book CLUB', 'count me in', '2026-03-01T23:59:59.999Z'],
      ['e1', eve, fay, 'Question', 'which edition? 100% sure', '2026-03-02T00:00:00.000Z'],
      ['f2', fay, eve, 'Answer_1', 'the first one', '2026-03-02T12:00:00.000Z'],
      ['self', eve, eve, 'Reminder', 'buy the book', '2026-03-03T08:00:00.000Z'],
      ['g2', gus, fay, 'Hello fay', 'private to fay and gus', '2026-03-03T09:00:00.000Z'],
      ['f3', fay, eve, 'Same time A', 'tie one', '2026-03-04T10:00:00.000Z'],
      ['f4', fay, eve, 'Same time B', 'tie two', '2026-03-04T10:00:00.000Z'],
    ];
    for (const [key, from, to, subject, content, date] of plan) {
      m[key] = (await send(from, to.id, subject, content)).id;
      await setDateSent(m[key]!, date);
    }
    for (const key of ['f2', 'g1']) ok(await mark(m[key]!, true, eve.token));
  });

  const ids = (...keys: string[]) => keys.map((key) => m[key]!);
  const list = (user: TestUser, path: string, query: MessageList = {}) => api(user.token).GET('/users/{id}/private-messages', { params: { path: { id: path }, query } });
  const listed = async (user: TestUser, path: string, query: MessageList = {}): Promise<{ ids: string[]; total: number | undefined }> => {
    const body = ok(await list(user, path, query));
    return { ids: body.data.map((item) => item.id), total: body.meta?.total };
  };
  /** A raw list request: for parameters the document refuses, sent on purpose. */
  const listRaw = (user: TestUser, path: string, query: string) => raw('GET', `/users/${path}/private-messages?${query}`, { token: user.token });

  it('lists what the caller received by default, newest first (ties by id), with total and links', async () => {
    const body = ok(await list(eve, 'me'));
    expect(body.data.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self', 'f2', 'g1', 'f1'));
    expect(body.meta).toEqual({ total: 6 });
    const links = body.links;
    expect(links.self).toBe(`${stack.system.apiUrl}/users/me/private-messages`);
    expect([pageOf(links.first), pageOf(links.last)]).toEqual(['1', '1']);
    expect(links).not.toHaveProperty('prev');
    expect(links).not.toHaveProperty('next');
    expect(body.data[0]).toMatchObject({ type: 'private_message', attributes: { subject: 'Same time B', content: 'tie two', content_html: '<p>tie two</p>', read: false } });
  });

  it('treats /users/<own id> like /users/me: the whole mailbox', async () => {
    expect(await listed(eve, eve.id, { 'filter[sent]': 'true' })).toEqual(await listed(eve, 'me', { 'filter[sent]': 'true' }));
  });

  it('adds sent messages with filter[sent]=true (a note to oneself once) and lists only sent ones with filter[received]=false', async () => {
    expect(await listed(eve, 'me', { 'filter[sent]': 'true' })).toEqual({ ids: ids('f4', 'f3', 'self', 'f2', 'e1', 'g1', 'f1'), total: 7 });
    expect(await listed(eve, 'me', { 'filter[sent]': '1', 'filter[received]': '0' })).toEqual({ ids: ids('self', 'e1'), total: 2 });
  });

  it('refuses filter[sent]=false with filter[received]=false: 400 invalid_filter_combination', async () => {
    const refused = await list(eve, 'me', { 'filter[sent]': 'false', 'filter[received]': 'false' });
    expect(statusOf(refused)).toBe(400);
    expect(firstError(refused)).toMatchObject({ code: 'invalid_filter_combination', source: { parameter: 'filter[sent]' } });
  });

  it('lists the conversation with another user under their id; an unknown user is 404', async () => {
    expect((await listed(eve, fay.id)).ids).toEqual(ids('f4', 'f3', 'f2', 'f1'));
    expect((await listed(eve, fay.id, { 'filter[sent]': 'true' })).ids).toEqual(ids('f4', 'f3', 'f2', 'e1', 'f1'));
    expect((await listed(fay, eve.id, { 'filter[sent]': 'true', 'filter[received]': 'false' })).ids).toEqual(ids('f4', 'f3', 'f2', 'f1'));
    expect(await listed(eve, hal.id, { 'filter[sent]': 'true' })).toEqual({ ids: [], total: 0 });
    const unknown = await list(eve, '987654321');
    expect([statusOf(unknown), firstError(unknown)?.code]).toEqual([404, 'not_found']);
  });

  it('filters by sender', async () => {
    expect((await listed(eve, 'me', { 'filter[sender]': gus.id })).ids).toEqual(ids('g1'));
    expect((await listed(eve, 'me', { 'filter[sender]': eve.id, 'filter[sent]': 'true' })).ids).toEqual(ids('self', 'e1'));
  });

  it('filters subject and content by case-insensitive substring, % and _ literal; an empty text filter is 400', async () => {
    expect((await listed(eve, 'me', { 'filter[subject]': 'book club' })).ids).toEqual(ids('g1', 'f1'));
    expect((await listed(eve, 'me', { 'filter[subject]': '_' })).ids).toEqual(ids('f2'));
    expect((await listed(eve, 'me', { 'filter[content]': 'DUNE' })).ids).toEqual(ids('f1'));
    expect((await listed(eve, 'me', { 'filter[content]': '%', 'filter[sent]': 'true' })).ids).toEqual(ids('e1'));
    for (const query of [{ 'filter[subject]': '' }, { 'filter[content]': '' }, { 'filter[subject]': '  ' }]) {
      const refused = await list(eve, 'me', query);
      expect([statusOf(refused), firstError(refused)?.code, firstError(refused)?.source?.parameter], JSON.stringify(query)).toEqual([400, 'invalid_parameter', Object.keys(query)[0]]);
    }
  });

  it('filters by read state', async () => {
    expect((await listed(eve, 'me', { 'filter[read]': 'true' })).ids).toEqual(ids('f2', 'g1'));
    expect((await listed(eve, 'me', { 'filter[read]': '0' })).ids).toEqual(ids('f4', 'f3', 'self', 'f1'));
  });

  it('keeps both edges of a date range: a date is its whole UTC day, date-times are exact and inclusive', async () => {
    const sent = (range: string, query: MessageList = {}) => listed(eve, 'me', { 'filter[date_sent]': range, ...query });
    const alsoSent: MessageList = { 'filter[sent]': 'true' };
    expect((await sent('2026-03-01')).ids).toEqual(ids('g1', 'f1'));
    expect((await sent('2026-03-01,2026-03-01')).ids).toEqual(ids('g1', 'f1'));
    expect((await sent('2026-03-02,', alsoSent)).ids).toEqual(ids('f4', 'f3', 'self', 'f2', 'e1'));
    expect((await sent(',2026-03-01T00:00:00Z')).ids).toEqual(ids('f1'));
    expect((await sent('2026-03-01T23:59:59.999Z,2026-03-02T00:00:00Z', alsoSent)).ids).toEqual(ids('e1', 'g1'));
    expect((await sent('2026-03-01T00:00:00.001Z,2026-03-01T23:59:59.998Z')).ids).toEqual([]);
    expect((await sent('2026-03-04T11:00:00+01:00')).ids).toEqual(ids('f4', 'f3'));
    for (const bad of ['2026-02-30', '2026-03-02,2026-03-01', 'yesterday', ',']) {
      const refused = await list(eve, 'me', { 'filter[date_sent]': bad });
      expect([statusOf(refused), firstError(refused)?.source?.parameter], bad).toEqual([400, 'filter[date_sent]']);
    }
  });

  it('sorts by date_sent or read in either direction, ties by id in the same direction; other sorts are 400', async () => {
    expect((await listed(eve, 'me', { sort: 'date_sent' })).ids).toEqual(ids('f1', 'g1', 'f2', 'self', 'f3', 'f4'));
    const byNumber = (keys: string[]) => ids(...keys).sort((a, b) => Number(a) - Number(b));
    expect((await listed(eve, 'me', { sort: 'read' })).ids).toEqual([...byNumber(['f1', 'self', 'f3', 'f4']), ...byNumber(['g1', 'f2'])]);
    expect((await listed(eve, 'me', { sort: '-read' })).ids).toEqual([...byNumber(['g1', 'f2']).reverse(), ...byNumber(['f1', 'self', 'f3', 'f4']).reverse()]);
    // Sorts the document does not offer: sent raw.
    const unknown = await listRaw(eve, 'me', 'sort=subject');
    expect([unknown.status, firstError(unknown)?.code]).toEqual([400, 'invalid_sort']);
    const two = await listRaw(eve, 'me', 'sort=read,date_sent');
    expect([two.status, firstError(two)?.code]).toEqual([400, 'too_many_sort_fields']);
  });

  it('pages by number: first/prev/next/last and the total; past the end is 200 and empty', async () => {
    const first = ok(await list(eve, 'me', { 'page[size]': 4 }));
    expect(first.data.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self', 'f2'));
    expect(first.meta?.total).toBe(6);
    expect([pageOf(first.links.first), pageOf(first.links.prev), pageOf(first.links.next), pageOf(first.links.last)]).toEqual(['1', undefined, '2', '2']);
    expect(new URL(first.links.next!).searchParams.get('page[size]')).toBe('4');

    const second = ok(await api(eve.token).GET('/users/{id}/private-messages', { params: { path: { id: 'me' } }, ...follow(first.links.next!) }));
    expect(second.data.map((item) => item.id)).toEqual(ids('g1', 'f1'));
    expect([pageOf(second.links.prev), second.links.next, pageOf(second.links.last)]).toEqual(['1', undefined, '2']);

    const past = ok(await list(eve, 'me', { 'page[size]': 4, 'page[number]': 3 }));
    expect(past.data).toEqual([]);
    expect(past.meta?.total).toBe(6);
    expect([pageOf(past.links.prev), past.links.next]).toEqual(['2', undefined]);

    expect((await listed(eve, 'me', { 'page[size]': 1, 'page[number]': 6 })).ids).toEqual(ids('f1'));
    expect((await listed(eve, 'me', { 'page[size]': 1000 })).ids).toHaveLength(6);
    const empty = ok(await list(hal, 'me'));
    expect(empty).toMatchObject({ data: [], meta: { total: 0 } });
    expect([pageOf(empty.links.last), empty.links.prev, empty.links.next]).toEqual(['1', undefined, undefined]);
  });

  it('refuses page sizes 0 and 1001, page number 0, a cursor, and malformed or unknown filters with 400 naming the parameter', async () => {
    // Malformed on purpose (most break the document's own parameter schemas): sent raw.
    const cases: [string, string][] = [
      ['page[size]=0', 'page[size]'],
      ['page[size]=1001', 'page[size]'],
      ['page[number]=0', 'page[number]'],
      ['page[cursor]=abc', 'page[cursor]'],
      ['filter[sender]=abc', 'filter[sender]'],
      ['filter[read]=maybe', 'filter[read]'],
      ['filter[received]=yes', 'filter[received]'],
      ['filter[recipient]=1', 'filter[recipient]'],
      ['query=hello', 'query'],
    ];
    for (const [query, parameter] of cases) {
      const refused = await listRaw(eve, 'me', query);
      expect([refused.status, firstError(refused)?.code, firstError(refused)?.source?.parameter], query).toEqual([400, 'invalid_parameter', parameter]);
    }
  });

  it('includes each sender and recipient of the page once', async () => {
    const body = ok(await list(eve, 'me', { include: 'sender,recipient', 'fields[user]': 'name', 'page[size]': 3 }));
    expect(body.data.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self'));
    expect((body.included ?? []).map((user) => user.id).sort()).toEqual([eve.id, fay.id].sort());
  });

  it('leaves content out when fields[private_message] does not name it', async () => {
    const body = ok(await list(eve, 'me', { 'fields[private_message]': 'subject,date_sent', 'page[size]': 1 }));
    expect(body.data[0]?.attributes).toEqual({ subject: 'Same time B', date_sent: '2026-03-04T10:00:00Z' });
  });

  it('never shows or counts another pair’s messages to a third user: by list, filters, totals or id', async () => {
    const queries: MessageList[] = [
      {},
      { 'filter[sent]': 'true' },
      { 'filter[sender]': fay.id },
      { 'filter[sender]': gus.id, 'filter[sent]': 'true' },
      { 'filter[subject]': 'book' },
      { 'filter[content]': 'fay', 'filter[sent]': 'true' },
      { 'filter[read]': 'true' },
      { 'filter[date_sent]': '2026-03-01,2026-03-05', 'filter[sent]': 'true' },
      { sort: 'read', 'page[size]': 1000 },
    ];
    for (const path of ['me', eve.id, fay.id, gus.id]) {
      for (const query of queries) {
        const seen = answer(await list(hal, path, query));
        expect([seen.status, seen.body.data, seen.body.meta?.total], `${path}?${JSON.stringify(query)}`).toEqual([200, [], 0]);
      }
    }
    // eve sees nothing of fay ↔ gus, even in her conversation with either of them.
    expect(await listed(eve, gus.id, { 'filter[sent]': 'true', 'filter[content]': 'private' })).toEqual({ ids: [], total: 0 });
    expect(statusOf(await byId(m.g2!, eve.token))).toBe(404);
    expect(statusOf(await byId(m.f1!, hal.token))).toBe(404);
  });

  it('needs read_pms and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const noScope = await list(writeOnly, 'me');
    expect([statusOf(noScope), firstError(noScope)?.code]).toEqual([403, 'insufficient_scope']);
    const listAs = (token: string | null) => api(token).GET('/users/{id}/private-messages', { params: { path: { id: eve.id } } });
    expect(statusOf(await listAs(appToken))).toBe(403);
    expect(statusOf(await listAs(null))).toBe(401);
  });
});
