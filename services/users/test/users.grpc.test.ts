import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import { createLogger } from '@inkwell/logging';
import { seedDemoData } from '../src/seed/demo.seed.js';
import { as, startUsersHarness, type UsersHarness } from './harness.js';

describe('UsersService over gRPC: users and the demo seed', () => {
  let h: UsersHarness;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_grpc');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('returns a registered user, with the e-mail only for the user themself holding read_user', async () => {
    const ada = await h.services.accounts.ensureUser({ name: 'ada-grpc', email: 'ada-grpc@example.org', password: 'pw-123456789', bio: 'Hello *there*' });

    const anonymous = await h.client.getUser({ id: ada.id }, as(undefined));
    expect(anonymous.user?.name).toBe('ada-grpc');
    expect(anonymous.user?.bioHtml).toBe('<p>Hello <em>there</em></p>');
    expect(anonymous.user?.email).toBeUndefined();

    const self = await h.client.getUser({ id: ada.id }, as(ada.id, ['read_user']));
    expect(self.user?.email).toBe('ada-grpc@example.org');

    const selfWithoutScope = await h.client.getUser({ id: ada.id }, as(ada.id));
    expect(selfWithoutScope.user?.email).toBeUndefined();
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    await expect(h.client.getUser({ id: '987654321' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('seeds idempotently: the same name twice is one user', async () => {
    const first = await h.services.accounts.ensureUser({ name: 'twice', email: 'twice@example.org', password: 'pw-123456789' });
    const second = await h.services.accounts.ensureUser({ name: 'TWICE', email: 'other@example.org', password: 'pw-123456789' });
    expect(second.id).toBe(first.id);
  });

  it('writes a UserCreated event to the outbox in the same transaction as the user', async () => {
    const created = await h.services.accounts.ensureUser({ name: 'evented', email: 'evented@example.org', password: 'pw-123456789' });
    const { rows } = await h.pool.query<{ key: string; topic: string; type: string }>('SELECT key, topic, type FROM outbox WHERE key = $1', [created.id]);
    expect(rows).toEqual([{ key: created.id, topic: 'users.user.v1', type: 'inkwell.users.v1.UserCreated' }]);
  });

  it('demo seed: a working token for ada with every scope and app credentials; a re-run revokes the previous token and keeps the app', async () => {
    const logger = createLogger('seed-test');
    const first = await seedDemoData(h.services, logger);
    expect(first.user.name).toBe('ada');
    // Every scope there is: the demo token does everything ada may do.
    expect([...first.personalToken.scopes].sort()).toEqual([...SCOPE_NAMES].sort());
    const resolved = await h.client.getAccessToken({ accessToken: first.personalToken.token }, as(undefined));
    expect(resolved.token).toMatchObject({ userId: first.user.id, personal: true, clientId: '' });
    expect(await h.client.verifyClientSecret({ clientId: first.app.clientId, clientSecret: first.app.clientSecret }, as(undefined))).toMatchObject({
      client: { name: 'Inkwell demo app', confidential: true, ownerUserId: first.user.id },
    });

    const second = await seedDemoData(h.services, logger);
    expect(second.personalToken.token).not.toBe(first.personalToken.token);
    expect(second.app.clientId).toBe(first.app.clientId);
    await expect(h.client.getAccessToken({ accessToken: first.personalToken.token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    await expect(h.client.verifyClientSecret({ clientId: first.app.clientId, clientSecret: first.app.clientSecret }, as(undefined))).rejects.toMatchObject({
      code: ErrorCode.UNAUTHENTICATED,
    });
    expect((await h.client.getAccessToken({ accessToken: second.personalToken.token }, as(undefined))).token?.userId).toBe(second.user.id);
    expect(await h.services.personalTokens.list({ userId: second.user.id, scopes: [] })).toHaveLength(1);
  });
});
