import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import { createAppToken, createTestUser, eventually } from '@inkwell/testing';
import { PERSONAL_TOKEN_LIMITS } from '../src/domain/oauth.js';
import { CreatePersonalTokenRequestSchema, ListPersonalTokensRequestSchema, RevokePersonalTokenRequestSchema } from '@inkwell/proto/users';
import { as, startUsersHarness, uniqueName, withRemovedUserId, type UsersHarness } from './harness.js';

describe('personal access tokens and the test helpers', () => {
  let h: UsersHarness;
  let userId: string;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_pats');
    const { user } = await h.client.registerUser({ name: uniqueName('pat'), email: `${uniqueName('pat')}@example.org`, password: 'long enough password' }, as(undefined));
    userId = user!.id;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('caps active personal tokens at 50 per user, counted exactly under concurrency; revoked and expired ones do not count', async () => {
    const owner = (await h.client.registerUser({ name: uniqueName('cap'), email: `${uniqueName('cap')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
    const mint = (name: string, expiresAt?: Date) =>
      h.client.createPersonalToken({ name, scopes: [], ...(expiresAt === undefined ? {} : { expiresAt: timestampFromDate(expiresAt) }) }, as(owner));
    const max = PERSONAL_TOKEN_LIMITS.maxActivePerUser;
    expect(max).toBe(50);
    const soon = await mint('expires in a day', new Date(Date.now() + 86_400_000));
    for (let index = 0; index < max - 6; index++) await mint(`script ${index}`);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => mint(`parallel ${index}`)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused).toHaveLength(5);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      message: 'You already have 50 active personal access tokens, the most one user can have. Revoke one you no longer use first.',
      details: [{ reason: 'limit_reached' }],
    });
    const listed = (await h.client.listPersonalTokens({}, as(owner))).personalTokens;
    expect(listed).toHaveLength(max);
    await h.client.revokePersonalToken({ tokenId: listed.at(-1)!.id }, as(owner));
    await mint('after a revocation');
    await expect(mint('one too many')).rejects.toMatchObject({ code: ErrorCode.FAILED_PRECONDITION });
    // An expired token stops counting (its day is moved into the past rather than waited for).
    await h.pool.query(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [soon.personalToken!.id]);
    expect((await mint('after an expiry')).personalToken?.name).toBe('after an expiry');
  });

  it('mints a token shown once, resolves it as personal with its scopes, lists it without the secret, and revokes it', async () => {
    const created = await h.client.createPersonalToken({ name: 'my script', scopes: ['read_stories', 'write_stories'] }, as(userId));
    expect(created.token).toMatch(/^iwk_pat_[A-Za-z0-9_-]{43}$/);
    expect(created.personalToken).toMatchObject({ userId, name: 'my script', scopes: ['read_stories', 'write_stories'] });
    expect(created.personalToken?.expiresAt).toBeUndefined();

    const resolved = (await h.client.getAccessToken({ accessToken: created.token }, as(undefined))).token;
    expect(resolved).toMatchObject({ userId, clientId: '', personal: true, scopes: ['read_stories', 'write_stories'], tokenId: created.personalToken!.id, tokenHash: hashToken(created.token) });
    expect(resolved?.expiresAt).toBeUndefined();

    const listed = (await h.client.listPersonalTokens({}, as(userId))).personalTokens;
    expect(listed.map((token) => token.id)).toContain(created.personalToken!.id);
    expect(JSON.stringify(listed, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(created.token.slice(8));

    await h.client.revokePersonalToken({ tokenId: created.personalToken!.id }, as(userId));
    await expect(h.client.getAccessToken({ accessToken: created.token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
    expect((await h.client.listPersonalTokens({}, as(userId))).personalTokens.map((token) => token.id)).not.toContain(created.personalToken!.id);
    await expect(h.client.revokePersonalToken({ tokenId: created.personalToken!.id }, as(userId))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('mints, lists and revokes only for the signed caller: a request naming another user acts for the caller, one without a user is refused', async () => {
    const victim = await createTestUser(h, { scopes: ['write_user'] });
    const attacker = (await h.client.registerUser({ name: uniqueName('att'), email: `${uniqueName('att')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
    const victimsBefore = (await h.client.listPersonalTokens({}, as(victim.id))).personalTokens.map((token) => token.id);

    // user_id (field 1, now reserved) naming the victim, as a gateway of the old contract would send it.
    const request = withRemovedUserId(CreatePersonalTokenRequestSchema, { name: 'not yours', scopes: ['write_user'] }, 1, victim.id);
    const minted = await h.client.createPersonalToken(request, as(attacker));
    expect(minted.personalToken?.userId).toBe(attacker);
    expect((await h.client.getAccessToken({ accessToken: minted.token }, as(undefined))).token?.userId).toBe(attacker);
    await expect(h.client.createPersonalToken(request, as(undefined))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });

    expect((await h.client.listPersonalTokens(withRemovedUserId(ListPersonalTokensRequestSchema, {}, 1, victim.id), as(attacker))).personalTokens.map((token) => token.id)).toEqual([minted.personalToken!.id]);
    expect((await h.client.listPersonalTokens({}, as(victim.id))).personalTokens.map((token) => token.id)).toEqual(victimsBefore);
    await expect(h.client.listPersonalTokens({}, as(undefined))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    await expect(h.client.revokePersonalToken(withRemovedUserId(RevokePersonalTokenRequestSchema, { tokenId: victimsBefore[0]! }, 1, victim.id), as(attacker))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await h.client.getAccessToken({ accessToken: victim.token }, as(undefined))).token?.userId).toBe(victim.id);
  });

  it("does not let one user revoke another user's token", async () => {
    const created = await h.client.createPersonalToken({ name: 'mine', scopes: ['read_user'] }, as(userId));
    const other = await createTestUser(h);
    await expect(h.client.revokePersonalToken({ tokenId: created.personalToken!.id }, as(other.id))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await h.client.getAccessToken({ accessToken: created.token }, as(undefined))).token?.userId).toBe(userId);
  });

  it('rejects unknown scopes and a past expiry; an expiring token stops resolving after it expires', async () => {
    await expect(h.client.createPersonalToken({ name: 'x', scopes: ['read_user', 'admin'] }, as(userId))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/scopes' }],
    });
    await expect(h.client.createPersonalToken({ name: 'x', scopes: [], expiresAt: timestampFromDate(new Date(Date.now() - 1000)) }, as(userId))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
    });
    const soon = await h.client.createPersonalToken({ name: 'short', scopes: [], expiresAt: timestampFromDate(new Date(Date.now() + 1500)) }, as(userId));
    expect((await h.client.getAccessToken({ accessToken: soon.token }, as(undefined))).token?.scopes).toEqual([]);
    await eventually(() => h.client.getAccessToken({ accessToken: soon.token }, as(undefined)).then(() => false, () => true), { what: 'the token to expire' });
    await expect(h.client.getAccessToken({ accessToken: soon.token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('createTestUser registers a user whose token resolves to them with the scopes asked for', async () => {
    const user = await createTestUser(h, { scopes: ['read_user', 'write_user'], bio: 'hi *there*' });
    const resolved = (await h.client.getAccessToken({ accessToken: user.token }, as(undefined))).token;
    expect(resolved).toMatchObject({ userId: user.id, scopes: ['read_user', 'write_user'], personal: true });
    const profile = (await h.client.getUser({ id: user.id }, as(user.id, ['read_user']))).user;
    expect(profile).toMatchObject({ name: user.name, email: user.email, bioHtml: '<p>hi <em>there</em></p>' });
    const signedIn = await h.client.authenticate({ login: user.name, password: user.password }, as(undefined));
    expect(signedIn.user?.id).toBe(user.id);
  });

  it('createAppToken makes an app-only token: a client id, no user, the scopes asked for, expiring in an hour', async () => {
    const app = await createAppToken(h, { scopes: ['read_stories'] });
    const resolved = (await h.client.getAccessToken({ accessToken: app.token }, as(undefined))).token;
    expect(resolved).toMatchObject({ clientId: app.clientId, personal: false, scopes: ['read_stories'] });
    expect(resolved?.userId).toBeUndefined();
    const expiresInMs = Number(resolved!.expiresAt!.seconds) * 1000 - Date.now();
    expect(expiresInMs).toBeGreaterThan(3500_000);
    expect(expiresInMs).toBeLessThanOrEqual(3600_000);
    expect((await h.client.verifyClientSecret({ clientId: app.clientId, clientSecret: app.clientSecret }, as(undefined))).client?.id).toBe(app.clientId);
  });

  it('needs a name of 1 to 100 characters and an expiry in the future, reported where the developer page sent them', async () => {
    const owner = (await h.client.registerUser({ name: uniqueName('rules'), email: `${uniqueName('rules')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
    await expect(h.client.createPersonalToken({ name: ' ', scopes: [], expiresAt: timestampFromDate(new Date(Date.now() - 1000)) }, as(owner))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [
        { reason: 'validation_failed', pointer: '/data/attributes/name', detail: 'A name has 1 to 100 characters.' },
        { reason: 'validation_failed', pointer: '/data/attributes/expires_at', detail: 'The expiry must be in the future.' },
      ],
    });
    await expect(h.client.createPersonalToken({ name: 'x'.repeat(101), scopes: [] }, as(owner))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/name' }] });
    await expect(h.client.createPersonalToken({ name: ` ${'x'.repeat(100)} `, scopes: [] }, as(owner))).resolves.toMatchObject({ personalToken: { name: 'x'.repeat(100) } });
  });
});
