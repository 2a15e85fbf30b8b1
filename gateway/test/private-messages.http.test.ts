import pg from 'pg';
import { createAppToken, createTestUser, ensureDatabase, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_messages';
const MiB = 1024 * 1024;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } }>;
  links?: { self: string };
}

interface Body {
  data?: Resource & Resource[];
  links?: { self: string; first?: string; prev?: string; next?: string; last?: string };
  meta?: { total?: number };
  errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string } }[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: Body;
}

let stack: GatewayStack;
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

async function api(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? ann.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const body = options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) };
  const response = await fetch(`${stack.system.apiUrl}${path}`, { method, headers, ...body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Body) };
}

function message(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { data: { type: 'private_message', attributes, ...extra } };
}

async function send(from: TestUser, to: string, subject: string, content = `${subject} body`): Promise<Resource> {
  const answer = await api('POST', `/users/${to}/private-messages`, { token: from.token, body: message({ subject, content }) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data!;
}

/** Back-dates a message (the service stamps "now"), for date-range edges and ordering. */
async function setDateSent(id: string, iso: string): Promise<void> {
  await db.query('UPDATE messaging.messages SET date_sent = $2 WHERE id = $1', [id, iso]);
}

function firstError(answer: Answer) {
  return answer.body.errors?.[0];
}

const pageOf = (link: string | undefined) => (link === undefined ? undefined : new URL(link).searchParams.get('page[number]'));

describe('POST /users/:id/private-messages', () => {
  it('sends from the caller: 201 with Location, the whole message, sender and recipient', async () => {
    const answer = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: '  Lunch?  ', content: 'Free *tomorrow*?' }) });
    expect(answer.status).toBe(201);
    const data = answer.body.data!;
    expect(answer.headers.get('location')).toBe(`${stack.system.apiUrl}/private-messages/${data.id}`);
    expect(answer.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(data).toMatchObject({
      type: 'private_message',
      attributes: { subject: 'Lunch?', content: 'Free *tomorrow*?', content_html: '<p>Free <em>tomorrow</em>?</p>', read: false },
      relationships: { sender: { data: { type: 'user', id: ann.id } }, recipient: { data: { type: 'user', id: ben.id } } },
      links: { self: `${stack.system.apiUrl}/private-messages/${data.id}` },
    });
    expect(data.attributes.date_sent).toMatch(ISO_UTC);
  });

  it('sends to oneself through /users/me', async () => {
    const answer = await api('POST', '/users/me/private-messages', { body: message({ subject: 'note', content: 'to self' }) });
    expect(answer.status).toBe(201);
    expect(answer.body.data?.relationships).toEqual({ sender: { data: { type: 'user', id: ann.id } }, recipient: { data: { type: 'user', id: ann.id } } });
  });

  it('answers 404 for a recipient who does not exist, also one registered a moment ago works', async () => {
    const missing = await api('POST', '/users/987654321/private-messages', { body: message({ subject: 's', content: 'c' }) });
    expect(missing.status).toBe(404);
    expect(firstError(missing)?.code).toBe('not_found');
    const newcomer = await createTestUser(stack.system);
    await send(ann, newcomer.id, 'welcome');
  });

  it('answers 422 with pointers for missing, blank, too long and read-only members', async () => {
    const missing = await api('POST', `/users/${ben.id}/private-messages`, { body: message({}) });
    expect(missing.status).toBe(422);
    expect(missing.body.errors?.map((error) => [error.code, error.source?.pointer])).toEqual([
      ['validation_failed', '/data/attributes/subject'],
      ['validation_failed', '/data/attributes/content'],
    ]);
    const blank = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: ' \t ', content: '\n\n' }) });
    expect(blank.status).toBe(422);
    expect(blank.body.errors?.map((error) => error.source?.pointer)).toEqual(['/data/attributes/subject', '/data/attributes/content']);
    const long = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: 's'.repeat(201), content: 'c' }) });
    expect(long.status).toBe(422);
    expect(firstError(long)?.source?.pointer).toBe('/data/attributes/subject');
    const readOnlyMembers = await api('POST', `/users/${ben.id}/private-messages`, {
      body: message({ subject: 's', content: 'c', read: true, date_sent: '2026-01-01T00:00:00Z', content_html: '<p>x</p>' }, { relationships: { recipient: { data: { type: 'user', id: cat.id } } } }),
    });
    expect(readOnlyMembers.status).toBe(422);
    expect(readOnlyMembers.body.errors?.map((error) => error.source?.pointer).sort()).toEqual([
      '/data/attributes/content_html',
      '/data/attributes/date_sent',
      '/data/attributes/read',
      '/data/relationships/recipient',
    ]);
    const notText = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: 42, content: ['c'] }) });
    expect(notText.status).toBe(422);
  });

  it('takes exactly 200 characters of subject and 1 MiB of content, and refuses one byte more (422, never 413 or 500)', async () => {
    const atLimit = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: 'é'.repeat(200), content: 'a'.repeat(MiB) }) });
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data?.attributes.content).toHaveLength(MiB);
    const over = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: 'big', content: 'a'.repeat(MiB + 1) }) });
    expect(over.status).toBe(422);
    expect(firstError(over)).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/attributes/content' } });
  });

  it('follows the JSON:API write rules: 409 wrong type, 403 client-chosen id, 400 not a resource object or not JSON', async () => {
    const wrongType = await api('POST', `/users/${ben.id}/private-messages`, { body: { data: { type: 'blog_post', attributes: { subject: 's', content: 'c' } } } });
    expect([wrongType.status, firstError(wrongType)?.code]).toEqual([409, 'conflict']);
    const clientId = await api('POST', `/users/${ben.id}/private-messages`, { body: message({ subject: 's', content: 'c' }, { id: '5' }) });
    expect([clientId.status, firstError(clientId)?.code]).toEqual([403, 'forbidden']);
    const many = await api('POST', `/users/${ben.id}/private-messages`, { body: { data: [] } });
    expect([many.status, firstError(many)?.code]).toEqual([400, 'invalid_body']);
    const notJson = await api('POST', `/users/${ben.id}/private-messages`, { body: '{"data": ' });
    expect([notJson.status, firstError(notJson)?.code]).toEqual([400, 'invalid_body']);
  });

  it('needs write_pms and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const body = message({ subject: 's', content: 'c' });
    const noScope = await api('POST', `/users/${ben.id}/private-messages`, { token: readOnly.token, body });
    expect([noScope.status, firstError(noScope)?.code]).toEqual([403, 'insufficient_scope']);
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_pms"');
    const app = await api('POST', `/users/${ben.id}/private-messages`, { token: appToken, body });
    expect(app.status).toBe(403);
    const anonymous = await api('POST', `/users/${ben.id}/private-messages`, { token: null, body });
    expect(anonymous.status).toBe(401);
    expect((await api('POST', `/users/${ben.id}/private-messages`, { token: writeOnly.token, body })).status).toBe(201);
  });
});

describe('GET /private-messages/:id', () => {
  it('shows a message to its sender and recipient only; anyone else gets 404 as for a missing one', async () => {
    const sent = await send(ann, ben.id, 'between us');
    for (const user of [ann, ben]) {
      const answer = await api('GET', `/private-messages/${sent.id}`, { token: user.token });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ id: sent.id, attributes: { subject: 'between us' } });
      expect(answer.body.links?.self).toBe(`${stack.system.apiUrl}/private-messages/${sent.id}`);
    }
    const third = await api('GET', `/private-messages/${sent.id}`, { token: cat.token });
    expect([third.status, firstError(third)?.code]).toEqual([404, 'not_found']);
    expect((await api('GET', '/private-messages/987654321')).status).toBe(404);
    expect((await api('GET', '/private-messages/abc')).status).toBe(404);
  });

  it('narrows with fields[private_message], includes sender and recipient, and refuses other includes and parameters', async () => {
    const sent = await send(ann, ben.id, 'narrow me');
    const narrowed = await api('GET', `/private-messages/${sent.id}?fields[private_message]=subject,sender`);
    expect(narrowed.body.data?.attributes).toEqual({ subject: 'narrow me' });
    expect(Object.keys(narrowed.body.data?.relationships ?? {})).toEqual(['sender']);
    const included = await api('GET', `/private-messages/${sent.id}?include=sender,recipient&fields[user]=name`);
    expect(included.status).toBe(200);
    expect(((included.body as { included?: Resource[] }).included ?? []).map((user) => [user.type, user.id, user.attributes])).toEqual([
      ['user', ann.id, { name: ann.name }],
      ['user', ben.id, { name: ben.name }],
    ]);
    const include = await api('GET', `/private-messages/${sent.id}?include=author`);
    expect([include.status, firstError(include)?.code]).toEqual([400, 'invalid_include']);
    const unknown = await api('GET', `/private-messages/${sent.id}?page[size]=2`);
    expect([unknown.status, firstError(unknown)?.code, firstError(unknown)?.source?.parameter]).toEqual([400, 'invalid_parameter', 'page[size]']);
  });

  it('needs read_pms', async () => {
    const sent = await send(writeOnly, ann.id, 'scoped');
    const answer = await api('GET', `/private-messages/${sent.id}`, { token: writeOnly.token });
    expect([answer.status, firstError(answer)?.code]).toEqual([403, 'insufficient_scope']);
    expect(answer.headers.get('www-authenticate')).toContain('scope="read_pms"');
  });
});

describe('PATCH /private-messages/:id', () => {
  const mark = (id: string, read: unknown, token: string, extra: Record<string, unknown> = {}) =>
    api('PATCH', `/private-messages/${id}`, { token, body: { data: { type: 'private_message', id, attributes: { read, ...extra } } } });

  it('lets the recipient mark a message read and unread', async () => {
    const sent = await send(ann, ben.id, 'mark me');
    const read = await mark(sent.id, true, ben.token);
    expect(read.status).toBe(200);
    expect(read.body.data?.attributes.read).toBe(true);
    expect((await api('GET', `/private-messages/${sent.id}`, { token: ann.token })).body.data?.attributes.read).toBe(true);
    const unread = await mark(sent.id, false, ben.token);
    expect(unread.body.data?.attributes.read).toBe(false);
  });

  it('refuses the sender with 403 forbidden and anyone else with 404', async () => {
    const sent = await send(ann, ben.id, 'not yours');
    const sender = await mark(sent.id, true, ann.token);
    expect([sender.status, firstError(sender)?.code]).toEqual([403, 'forbidden']);
    const third = await mark(sent.id, true, cat.token);
    expect([third.status, firstError(third)?.code]).toEqual([404, 'not_found']);
    expect((await api('GET', `/private-messages/${sent.id}`, { token: ben.token })).body.data?.attributes.read).toBe(false);
  });

  it('changes only read: other attributes are 422, a non-boolean 422, a mismatched id 409, a missing id 400', async () => {
    const sent = await send(ann, ben.id, 'only read');
    const subject = await mark(sent.id, true, ben.token, { subject: 'changed' });
    expect([subject.status, firstError(subject)?.source?.pointer]).toEqual([422, '/data/attributes/subject']);
    const notBoolean = await mark(sent.id, 'yes', ben.token);
    expect([notBoolean.status, firstError(notBoolean)?.source?.pointer]).toEqual([422, '/data/attributes/read']);
    const otherId = await api('PATCH', `/private-messages/${sent.id}`, { token: ben.token, body: { data: { type: 'private_message', id: '1', attributes: { read: true } } } });
    expect([otherId.status, firstError(otherId)?.code]).toEqual([409, 'conflict']);
    const noId = await api('PATCH', `/private-messages/${sent.id}`, { token: ben.token, body: { data: { type: 'private_message', attributes: { read: true } } } });
    expect([noId.status, firstError(noId)?.code]).toEqual([400, 'invalid_body']);
    expect((await api('GET', `/private-messages/${sent.id}`, { token: ben.token })).body.data?.attributes).toMatchObject({ subject: 'only read', read: false });
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
    for (const key of ['f2', 'g1']) {
      expect((await api('PATCH', `/private-messages/${m[key]}`, { token: eve.token, body: { data: { type: 'private_message', id: m[key], attributes: { read: true } } } })).status).toBe(200);
    }
  });

  const ids = (...keys: string[]) => keys.map((key) => m[key]!);
  const list = (user: TestUser, path: string, query = '') => api('GET', `/users/${path}/private-messages${query === '' ? '' : `?${query}`}`, { token: user.token });
  const listed = async (user: TestUser, path: string, query = ''): Promise<{ ids: string[]; total: number | undefined }> => {
    const answer = await list(user, path, query);
    expect(answer.status, JSON.stringify(answer.body.errors)).toBe(200);
    return { ids: (answer.body.data ?? []).map((item) => item.id), total: answer.body.meta?.total };
  };

  it('lists what the caller received by default, newest first (ties by id), with total and links', async () => {
    const answer = await list(eve, 'me');
    expect(answer.status).toBe(200);
    expect(answer.body.data?.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self', 'f2', 'g1', 'f1'));
    expect(answer.body.meta).toEqual({ total: 6 });
    const links = answer.body.links!;
    expect(links.self).toBe(`${stack.system.apiUrl}/users/me/private-messages`);
    expect([pageOf(links.first), pageOf(links.last)]).toEqual(['1', '1']);
    expect(links).not.toHaveProperty('prev');
    expect(links).not.toHaveProperty('next');
    expect(answer.body.data?.[0]).toMatchObject({ type: 'private_message', attributes: { subject: 'Same time B', content: 'tie two', content_html: '<p>tie two</p>', read: false } });
  });

  it('treats /users/<own id> like /users/me: the whole mailbox', async () => {
    expect(await listed(eve, eve.id, 'filter[sent]=true')).toEqual(await listed(eve, 'me', 'filter[sent]=true'));
  });

  it('adds sent messages with filter[sent]=true (a note to oneself once) and lists only sent ones with filter[received]=false', async () => {
    expect(await listed(eve, 'me', 'filter[sent]=true')).toEqual({ ids: ids('f4', 'f3', 'self', 'f2', 'e1', 'g1', 'f1'), total: 7 });
    expect(await listed(eve, 'me', 'filter[sent]=1&filter[received]=0')).toEqual({ ids: ids('self', 'e1'), total: 2 });
  });

  it('refuses filter[sent]=false with filter[received]=false: 400 invalid_filter_combination', async () => {
    const answer = await list(eve, 'me', 'filter[sent]=false&filter[received]=false');
    expect(answer.status).toBe(400);
    expect(firstError(answer)).toMatchObject({ code: 'invalid_filter_combination', source: { parameter: 'filter[sent]' } });
  });

  it('lists the conversation with another user under their id; an unknown user is 404', async () => {
    expect((await listed(eve, fay.id)).ids).toEqual(ids('f4', 'f3', 'f2', 'f1'));
    expect((await listed(eve, fay.id, 'filter[sent]=true')).ids).toEqual(ids('f4', 'f3', 'f2', 'e1', 'f1'));
    expect((await listed(fay, eve.id, 'filter[sent]=true&filter[received]=false')).ids).toEqual(ids('f4', 'f3', 'f2', 'f1'));
    expect(await listed(eve, hal.id, 'filter[sent]=true')).toEqual({ ids: [], total: 0 });
    const unknown = await list(eve, '987654321');
    expect([unknown.status, firstError(unknown)?.code]).toEqual([404, 'not_found']);
  });

  it('filters by sender', async () => {
    expect((await listed(eve, 'me', `filter[sender]=${gus.id}`)).ids).toEqual(ids('g1'));
    expect((await listed(eve, 'me', `filter[sender]=${eve.id}&filter[sent]=true`)).ids).toEqual(ids('self', 'e1'));
  });

  it('filters subject and content by case-insensitive substring, % and _ literal; an empty text filter is 400', async () => {
    expect((await listed(eve, 'me', 'filter[subject]=book%20club')).ids).toEqual(ids('g1', 'f1'));
    expect((await listed(eve, 'me', 'filter[subject]=_')).ids).toEqual(ids('f2'));
    expect((await listed(eve, 'me', 'filter[content]=DUNE')).ids).toEqual(ids('f1'));
    expect((await listed(eve, 'me', 'filter[content]=%25&filter[sent]=true')).ids).toEqual(ids('e1'));
    for (const query of ['filter[subject]=', 'filter[content]=', 'filter[subject]=%20%20']) {
      const answer = await list(eve, 'me', query);
      expect([answer.status, firstError(answer)?.code, firstError(answer)?.source?.parameter], query).toEqual([400, 'invalid_parameter', query.slice(0, query.indexOf('='))]);
    }
  });

  it('filters by read state', async () => {
    expect((await listed(eve, 'me', 'filter[read]=true')).ids).toEqual(ids('f2', 'g1'));
    expect((await listed(eve, 'me', 'filter[read]=0')).ids).toEqual(ids('f4', 'f3', 'self', 'f1'));
  });

  it('keeps both edges of a date range: a date is its whole UTC day, date-times are exact and inclusive', async () => {
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-01')).ids).toEqual(ids('g1', 'f1'));
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-01,2026-03-01')).ids).toEqual(ids('g1', 'f1'));
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-02,&filter[sent]=true')).ids).toEqual(ids('f4', 'f3', 'self', 'f2', 'e1'));
    expect((await listed(eve, 'me', 'filter[date_sent]=,2026-03-01T00:00:00Z')).ids).toEqual(ids('f1'));
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-01T23:59:59.999Z,2026-03-02T00:00:00Z&filter[sent]=true')).ids).toEqual(ids('e1', 'g1'));
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-01T00:00:00.001Z,2026-03-01T23:59:59.998Z')).ids).toEqual([]);
    expect((await listed(eve, 'me', 'filter[date_sent]=2026-03-04T11:00:00%2B01:00')).ids).toEqual(ids('f4', 'f3'));
    for (const bad of ['2026-02-30', '2026-03-02,2026-03-01', 'yesterday', ',']) {
      const answer = await list(eve, 'me', `filter[date_sent]=${bad}`);
      expect([answer.status, firstError(answer)?.source?.parameter], bad).toEqual([400, 'filter[date_sent]']);
    }
  });

  it('sorts by date_sent or read in either direction, ties by id in the same direction; other sorts are 400', async () => {
    expect((await listed(eve, 'me', 'sort=date_sent')).ids).toEqual(ids('f1', 'g1', 'f2', 'self', 'f3', 'f4'));
    const byId = (keys: string[]) => ids(...keys).sort((a, b) => Number(a) - Number(b));
    expect((await listed(eve, 'me', 'sort=read')).ids).toEqual([...byId(['f1', 'self', 'f3', 'f4']), ...byId(['g1', 'f2'])]);
    expect((await listed(eve, 'me', 'sort=-read')).ids).toEqual([...byId(['g1', 'f2']).reverse(), ...byId(['f1', 'self', 'f3', 'f4']).reverse()]);
    const unknown = await list(eve, 'me', 'sort=subject');
    expect([unknown.status, firstError(unknown)?.code]).toEqual([400, 'invalid_sort']);
    const two = await list(eve, 'me', 'sort=read,date_sent');
    expect([two.status, firstError(two)?.code]).toEqual([400, 'too_many_sort_fields']);
  });

  it('pages by number: first/prev/next/last and the total; past the end is 200 and empty', async () => {
    const first = await list(eve, 'me', 'page[size]=4');
    expect(first.body.data?.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self', 'f2'));
    expect(first.body.meta?.total).toBe(6);
    expect([pageOf(first.body.links?.first), pageOf(first.body.links?.prev), pageOf(first.body.links?.next), pageOf(first.body.links?.last)]).toEqual(['1', undefined, '2', '2']);
    expect(new URL(first.body.links!.next!).searchParams.get('page[size]')).toBe('4');

    const second = await api('GET', first.body.links!.next!.slice(stack.system.apiUrl.length), { token: eve.token });
    expect(second.body.data?.map((item) => item.id)).toEqual(ids('g1', 'f1'));
    expect([pageOf(second.body.links?.prev), second.body.links?.next, pageOf(second.body.links?.last)]).toEqual(['1', undefined, '2']);

    const past = await list(eve, 'me', 'page[size]=4&page[number]=3');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta?.total).toBe(6);
    expect([pageOf(past.body.links?.prev), past.body.links?.next]).toEqual(['2', undefined]);

    expect((await listed(eve, 'me', 'page[size]=1&page[number]=6')).ids).toEqual(ids('f1'));
    expect((await listed(eve, 'me', 'page[size]=1000')).ids).toHaveLength(6);
    const empty = await list(hal, 'me');
    expect(empty.body).toMatchObject({ data: [], meta: { total: 0 } });
    expect([pageOf(empty.body.links?.last), empty.body.links?.prev, empty.body.links?.next]).toEqual(['1', undefined, undefined]);
  });

  it('refuses page sizes 0 and 1001, page number 0, a cursor, and malformed or unknown filters with 400 naming the parameter', async () => {
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
      const answer = await list(eve, 'me', query);
      expect([answer.status, firstError(answer)?.code, firstError(answer)?.source?.parameter], query).toEqual([400, 'invalid_parameter', parameter]);
    }
  });

  it('includes each sender and recipient of the page once', async () => {
    const answer = await list(eve, 'me', 'include=sender,recipient&fields[user]=name&page[size]=3');
    expect(answer.body.data?.map((item) => item.id)).toEqual(ids('f4', 'f3', 'self'));
    const included = (answer.body as { included?: Resource[] }).included ?? [];
    expect(included.map((user) => user.id).sort()).toEqual([eve.id, fay.id].sort());
  });

  it('leaves content out when fields[private_message] does not name it', async () => {
    const answer = await list(eve, 'me', 'fields[private_message]=subject,date_sent&page[size]=1');
    expect(answer.body.data?.[0]?.attributes).toEqual({ subject: 'Same time B', date_sent: '2026-03-04T10:00:00Z' });
  });

  it('never shows or counts another pair’s messages to a third user: by list, filters, totals or id', async () => {
    const queries = ['', 'filter[sent]=true', `filter[sender]=${fay.id}`, `filter[sender]=${gus.id}&filter[sent]=true`, 'filter[subject]=book', 'filter[content]=fay&filter[sent]=true', 'filter[read]=true', 'filter[date_sent]=2026-03-01,2026-03-05&filter[sent]=true', 'sort=read&page[size]=1000'];
    for (const path of ['me', eve.id, fay.id, gus.id]) {
      for (const query of queries) {
        const answer = await list(hal, path, query);
        expect([answer.status, answer.body.data, answer.body.meta?.total], `${path}?${query}`).toEqual([200, [], 0]);
      }
    }
    // eve sees nothing of fay ↔ gus, even in her conversation with either of them.
    expect(await listed(eve, gus.id, 'filter[sent]=true&filter[content]=private')).toEqual({ ids: [], total: 0 });
    expect((await api('GET', `/private-messages/${m.g2}`, { token: eve.token })).status).toBe(404);
    expect((await api('GET', `/private-messages/${m.f1}`, { token: hal.token })).status).toBe(404);
  });

  it('needs read_pms and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const noScope = await list(writeOnly, 'me');
    expect([noScope.status, firstError(noScope)?.code]).toEqual([403, 'insufficient_scope']);
    const app = await api('GET', `/users/${eve.id}/private-messages`, { token: appToken });
    expect(app.status).toBe(403);
    const anonymous = await api('GET', `/users/${eve.id}/private-messages`, { token: null });
    expect(anonymous.status).toBe(401);
  });
});
