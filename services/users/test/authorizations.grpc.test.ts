import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, hashToken } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import { as, listenForRevocations, startUsersHarness, uniqueName, type RevocationListener, type UsersHarness } from './harness.js';

const REDIRECT = 'https://app.example.org/callback';
const HOUR = 3600_000;

function inMs(ms: number) {
  return timestampFromDate(new Date(Date.now() + ms));
}

/** ListAuthorizations and RevokeAuthorization (docs/api/accounts.md, "Authorized apps"). */
describe('authorized apps over gRPC', () => {
  let h: UsersHarness;
  let revocations: RevocationListener;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_authorizations');
    revocations = await listenForRevocations();
  });

  afterAll(async () => {
    revocations?.close();
    await h?.close();
  });

  async function newUser(): Promise<string> {
    const name = uniqueName('auz');
    return (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
  }

  async function newApp(owner: string, name: string): Promise<string> {
    return (await h.client.createClient({ name, redirectUris: [REDIRECT], confidential: true }, as(owner))).client!.id;
  }

  /** What the token endpoint does for `userId`'s consent to `clientId`: a code, consumed, exchanged for a pair. */
  async function authorize(userId: string, clientId: string, scopes: string[]) {
    const code = generateToken('authorizationCode');
    await h.client.saveAuthorizationCode({ code, clientId, redirectUri: REDIRECT, scopes, codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000) }, as(userId));
    const codeId = (await h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode!.id;
    const accessToken = generateToken('accessToken');
    const refreshToken = generateToken('refreshToken');
    await h.client.saveTokens({ accessToken, accessExpiresAt: inMs(HOUR), refreshToken, refreshExpiresAt: inMs(24 * HOUR), clientId, scopes, authorizationCodeId: codeId }, as(userId));
    return { accessToken, refreshToken };
  }

  /** A refresh of `refreshToken` as the token endpoint saves it: a new pair in the same family. */
  async function refresh(userId: string, clientId: string, refreshToken: string, scopes: string[]) {
    const accessToken = generateToken('accessToken');
    const next = generateToken('refreshToken');
    await h.client.saveTokens({ accessToken, accessExpiresAt: inMs(HOUR), refreshToken: next, refreshExpiresAt: inMs(24 * HOUR), clientId, scopes, rotatedFromRefresh: refreshToken }, as(userId));
    return { accessToken, refreshToken: next };
  }

  /** The user themself: a personal token or the signed-in page (no app). */
  const self = (userId: string, scopes = ['read_user', 'write_user']) => as(userId, scopes);
  /** The same user through an OAuth app's token. */
  const throughApp = (userId: string, appId: string, scopes = ['read_user', 'write_user']): { caller: CallerContext } => ({ caller: { requestId: 'req-app', userId, appId, scopes } });

  it('lists each authorized app once with its name, the union of its active scopes, when granted and last used, oldest grant first', async () => {
    const user = await newUser();
    const reader = await newApp(await newUser(), 'Reader app');
    const writer = await newApp(await newUser(), 'Writer app');
    const unused = await newApp(await newUser(), 'Never authorized');
    const first = await authorize(user, reader, ['read_stories']);
    await authorize(user, reader, ['read_user', 'read_stories']);
    await authorize(user, writer, ['write_stories']);
    // Another user's grants are not this user's business.
    await authorize(await newUser(), unused, ['read_pms']);
    const refreshed = await refresh(user, reader, first.refreshToken, ['read_stories']);

    const { authorizations, nextAfter } = await h.client.listAuthorizations({ userId: user }, self(user));
    expect(nextAfter).toBe('');
    expect(authorizations.map(({ clientId, appName, scopes }) => ({ clientId, appName, scopes }))).toEqual([
      { clientId: reader, appName: 'Reader app', scopes: ['read_stories', 'read_user'] },
      { clientId: writer, appName: 'Writer app', scopes: ['write_stories'] },
    ]);
    const [readerGrant] = authorizations;
    const { rows } = await h.pool.query<{ date_created: Date }>('SELECT date_created FROM access_tokens WHERE token_hash = $1', [hashToken(refreshed.accessToken)]);
    expect(timestampDate(readerGrant!.dateLastUsed!).getTime()).toBe(rows[0]!.date_created.getTime());
    expect(timestampDate(readerGrant!.dateGranted!).getTime()).toBeLessThan(timestampDate(readerGrant!.dateLastUsed!).getTime());

    // Pages of one, by cursor.
    const page1 = await h.client.listAuthorizations({ userId: user, pageSize: 1 }, self(user));
    const page2 = await h.client.listAuthorizations({ userId: user, pageSize: 1, after: page1.nextAfter }, self(user));
    expect([...page1.authorizations, ...page2.authorizations].map((authorization) => authorization.clientId)).toEqual([reader, writer]);
    expect(page2.nextAfter).toBe('');
    await expect(h.client.listAuthorizations({ userId: user, after: 'not-a-cursor' }, self(user))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason: 'invalid_cursor' }] });
  });

  it('revokes every access and refresh token of every family of the app at once, announces the access tokens, and leaves other apps alone', async () => {
    const user = await newUser();
    const app = await newApp(await newUser(), 'Revoked app');
    const other = await newApp(await newUser(), 'Kept app');
    const laptop = await authorize(user, app, ['read_user']);
    const phone = await authorize(user, app, ['read_stories']);
    const kept = await authorize(user, other, ['read_user']);
    const pending = generateToken('authorizationCode');
    await h.client.saveAuthorizationCode({ code: pending, clientId: app, redirectUri: REDIRECT, scopes: ['read_user'], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000) }, as(user));

    const { authorization } = await h.client.revokeAuthorization({ userId: user, clientId: app }, self(user));
    expect(authorization).toMatchObject({ clientId: app, appName: 'Revoked app', scopes: ['read_stories', 'read_user'] });

    for (const token of [laptop.accessToken, phone.accessToken]) {
      await expect(h.client.getAccessToken({ accessToken: token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
    }
    for (const token of [laptop.refreshToken, phone.refreshToken]) {
      await expect(h.client.getRefreshToken({ refreshToken: token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] });
    }
    // A code issued before the revocation can no longer be exchanged.
    await expect(h.client.consumeAuthorizationCode({ code: pending, clientId: app }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] });
    await revocations.announced([laptop.accessToken, phone.accessToken]);

    expect((await h.client.getAccessToken({ accessToken: kept.accessToken }, as(undefined))).token?.clientId).toBe(other);
    expect((await h.client.listAuthorizations({ userId: user }, self(user))).authorizations.map((listed) => listed.clientId)).toEqual([other]);
    // Revoked is gone: a second revocation, an app never authorized and a malformed id are all 404.
    for (const clientId of [app, 'no-such-app', 'x'.repeat(500)]) {
      await expect(h.client.revokeAuthorization({ userId: user, clientId }, self(user))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, details: [{ reason: 'not_found' }] });
    }
    // Authorizing again after a revocation works and lists the app anew.
    await authorize(user, app, ['write_user']);
    expect((await h.client.listAuthorizations({ userId: user }, self(user))).authorizations.map((listed) => [listed.clientId, listed.scopes])).toEqual([
      [other, ['read_user']],
      [app, ['write_user']],
    ]);
  });

  it('only the user themself: an app is forbidden whatever its scopes, the user needs read_user to list and write_user to revoke', async () => {
    const user = await newUser();
    const app = await newApp(await newUser(), 'Nosy app');
    await authorize(user, app, ['read_user', 'write_user']);
    for (const call of [h.client.listAuthorizations({ userId: user }, throughApp(user, app)), h.client.revokeAuthorization({ userId: user, clientId: app }, throughApp(user, app))]) {
      await expect(call).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    }
    await expect(h.client.listAuthorizations({ userId: user }, self(user, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'read_user' }] });
    await expect(h.client.revokeAuthorization({ userId: user, clientId: app }, self(user, ['read_user']))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'write_user' }] });
    await expect(h.client.listAuthorizations({ userId: user }, as(undefined, ['read_user']))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    // Another user's authorizations are answered as if there were none, and stay.
    const stranger = await newUser();
    await expect(h.client.listAuthorizations({ userId: user }, self(stranger))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, details: [{ reason: 'not_found' }] });
    await expect(h.client.revokeAuthorization({ userId: user, clientId: app }, self(stranger))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, details: [{ reason: 'not_found' }] });
    // Nothing was revoked by the refusals.
    expect((await h.client.listAuthorizations({ userId: user }, self(user))).authorizations.map((listed) => listed.clientId)).toEqual([app]);
  });
});
