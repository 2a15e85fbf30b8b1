import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, hashToken } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import { OAUTH_TOKEN_LIMITS } from '../src/domain/oauth.js';
import { TokenRepository } from '../src/repositories/token.repository.js';
import { as, listenForRevocations, startUsersHarness, uniqueName, type RevocationListener, type UsersHarness } from './harness.js';

const REDIRECT = 'https://app.example.org/callback';
const HOUR = 3600_000;
const DAY = 24 * HOUR;

function inMs(ms: number) {
  return timestampFromDate(new Date(Date.now() + ms));
}

/** Token rotation, the caps on active tokens and the pruning of inactive ones (docs/api/accounts.md, "Codes and tokens"). */
describe('token rotation, caps and pruning over gRPC', () => {
  let h: UsersHarness;
  let revocations: RevocationListener;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_token_limits');
    revocations = await listenForRevocations();
  });

  afterAll(async () => {
    revocations?.close();
    await h?.close();
  });

  const announced = (tokens: string[]) => revocations.announced(tokens);

  async function user(): Promise<string> {
    const name = uniqueName('lim');
    return (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
  }

  async function app(owner: string): Promise<string> {
    return (await h.client.createClient({ name: 'Reader', redirectUris: [REDIRECT], confidential: true }, as(owner))).client!.id;
  }

  /** An authorization of `clientId` by `userId` as the token endpoint makes it: a consumed code exchanged for a pair. */
  async function authorize(clientId: string, userId: string) {
    const code = generateToken('authorizationCode');
    await h.client.saveAuthorizationCode(
      { code, clientId, redirectUri: REDIRECT, scopes: ['read_user'], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000) },
      as(userId),
    );
    const consumed = (await h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode!;
    return pair(clientId, userId, { authorizationCodeId: consumed.id });
  }

  /** The pair a refresh of `refreshToken` issues. */
  function refresh(clientId: string, userId: string, refreshToken: string) {
    return pair(clientId, userId, { rotatedFromRefresh: refreshToken });
  }

  async function pair(clientId: string, userId: string, from: { authorizationCodeId: string } | { rotatedFromRefresh: string }) {
    const accessToken = generateToken('accessToken');
    const refreshToken = generateToken('refreshToken');
    await h.client.saveTokens(
      { accessToken, accessExpiresAt: inMs(HOUR), refreshToken, refreshExpiresAt: inMs(30 * DAY), clientId, scopes: ['read_user'], ...from },
      as(userId),
    );
    return { accessToken, refreshToken };
  }

  /** A client-credentials token of `clientId` (no user, no refresh token). */
  async function appToken(clientId: string): Promise<string> {
    const accessToken = generateToken('accessToken');
    await h.client.saveTokens({ accessToken, accessExpiresAt: inMs(HOUR), clientId, scopes: [] }, as(undefined));
    return accessToken;
  }

  const works = (accessToken: string): Promise<boolean> => h.client.getAccessToken({ accessToken }, as(undefined)).then(() => true, () => false);
  const refreshes = (refreshToken: string): Promise<boolean> => h.client.getRefreshToken({ refreshToken }, as(undefined)).then(() => true, () => false);

  it('a refresh revokes the access token issued with the presented refresh token and announces it to the gateways', async () => {
    const owner = await user();
    const clientId = await app(owner);
    const first = await authorize(clientId, owner);
    expect(await works(first.accessToken)).toBe(true);

    const second = await refresh(clientId, owner, first.refreshToken);
    await announced([first.accessToken]);
    await expect(h.client.getAccessToken({ accessToken: first.accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
    expect(await works(second.accessToken)).toBe(true);

    const third = await refresh(clientId, owner, second.refreshToken);
    await announced([second.accessToken]);
    expect([await works(second.accessToken), await works(third.accessToken)]).toEqual([false, true]);
    // Reuse detection is unchanged: presenting a used refresh token still takes the family down.
    await expect(refresh(clientId, owner, first.refreshToken)).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
    await announced([third.accessToken]);
  });

  it(`a user's ${OAUTH_TOKEN_LIMITS.maxActivePerAppUser + 1}th authorization of one app revokes the one used least recently; other users and apps keep theirs`, async () => {
    const max = OAUTH_TOKEN_LIMITS.maxActivePerAppUser;
    expect(max).toBe(10);
    const owner = await user();
    const neighbour = await user();
    const clientId = await app(owner);
    const otherApp = await app(owner);
    const families = [];
    for (let index = 0; index < max; index++) families.push(await authorize(clientId, owner));
    const neighbours = await authorize(clientId, neighbour);
    const elsewhere = await authorize(otherApp, owner);

    // The first family is refreshed (used), so the second is now the one used least recently.
    const refreshed = await refresh(clientId, owner, families[0]!.refreshToken);
    const newest = await authorize(clientId, owner);
    const evicted = families[1]!;
    await announced([evicted.accessToken]);
    expect(await works(evicted.accessToken)).toBe(false);
    expect(await refreshes(evicted.refreshToken)).toBe(false);
    const kept = [refreshed, ...families.slice(2), newest];
    expect(kept).toHaveLength(max);
    for (const family of kept) expect(await works(family.accessToken)).toBe(true);
    for (const family of [neighbours, elsewhere]) expect(await works(family.accessToken)).toBe(true);
  });

  it(`client credentials: at most ${OAUTH_TOKEN_LIMITS.maxActiveAppOnly} active tokens per app, counted exactly under concurrency, the oldest revoked first`, async () => {
    const max = OAUTH_TOKEN_LIMITS.maxActiveAppOnly;
    expect(max).toBe(10);
    const clientId = await app(await user());
    const otherApp = await app(await user());
    const other = await appToken(otherApp);
    const sequential: string[] = [];
    for (let index = 0; index < max; index++) sequential.push(await appToken(clientId));
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => appToken(clientId)));

    await announced(sequential.slice(0, 5));
    const active = await Promise.all([...sequential, ...concurrent].map(works));
    expect(active).toEqual([...Array<boolean>(5).fill(false), ...Array<boolean>(5).fill(true), ...Array<boolean>(5).fill(true)]);
    expect(await works(other)).toBe(true);
  });

  it('pruning deletes tokens and codes a day after they expired or were revoked; used refresh tokens stay until they expire, so reuse is still caught', async () => {
    const owner = await user();
    const clientId = await app(owner);
    const first = await authorize(clientId, owner);
    const second = await refresh(clientId, owner, first.refreshToken);
    // The first access token was revoked by the refresh two days ago; the app-only token expired two days ago.
    await h.pool.query(`UPDATE access_tokens SET revoked_at = now() - interval '2 days' WHERE token_hash = $1`, [hashToken(first.accessToken)]);
    const expired = await appToken(clientId);
    await h.pool.query(`UPDATE access_tokens SET expires_at = now() - interval '2 days' WHERE token_hash = $1`, [hashToken(expired)]);
    const expiredFamily = (await h.pool.query<{ grant_id: string }>('SELECT grant_id FROM access_tokens WHERE token_hash = $1', [hashToken(expired)])).rows[0]!.grant_id;
    // A token revoked an hour ago is kept for now; so is a code that expired an hour ago, while one two days gone is not.
    const recentlyRevoked = await appToken(clientId);
    await h.client.revokeToken({ token: recentlyRevoked }, as(undefined));
    const codes = [generateToken('authorizationCode'), generateToken('authorizationCode')];
    for (const code of codes) {
      await h.client.saveAuthorizationCode({ code, clientId, redirectUri: REDIRECT, scopes: [], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000) }, as(owner));
    }
    await h.pool.query(`UPDATE authorization_codes SET expires_at = now() - interval '2 days' WHERE code_hash = $1`, [hashToken(codes[0]!)]);
    await h.pool.query(`UPDATE authorization_codes SET expires_at = now() - interval '1 hour' WHERE code_hash = $1`, [hashToken(codes[1]!)]);

    const pruned = await h.services.tokens.pruneInactive();
    expect(pruned.accessTokens).toBeGreaterThanOrEqual(2);
    expect(pruned.authorizationCodes).toBeGreaterThanOrEqual(1);
    const stored = async (table: 'access_tokens' | 'refresh_tokens', token: string) => (await h.pool.query(`SELECT 1 FROM ${table} WHERE token_hash = $1`, [hashToken(token)])).rows.length === 1;
    expect(await stored('access_tokens', first.accessToken)).toBe(false);
    expect(await stored('access_tokens', expired)).toBe(false);
    expect((await h.pool.query('SELECT 1 FROM token_grants WHERE id = $1', [expiredFamily])).rows).toEqual([]);
    expect(await stored('access_tokens', recentlyRevoked)).toBe(true);
    const codeLeft = async (code: string) => (await h.pool.query('SELECT 1 FROM authorization_codes WHERE code_hash = $1', [hashToken(code)])).rows.length === 1;
    expect([await codeLeft(codes[0]!), await codeLeft(codes[1]!)]).toEqual([false, true]);
    // What is in use is untouched, and the used refresh token is still known: presenting it again revokes the family.
    expect(await works(second.accessToken)).toBe(true);
    expect(await stored('refresh_tokens', first.refreshToken)).toBe(true);
    await expect(refresh(clientId, owner, first.refreshToken)).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
    await announced([second.accessToken]);
  });

  it('prunes in bounded batches: one statement deletes at most its batch, the sweep goes on until nothing is left', async () => {
    const clientId = await app(await user());
    const tokens = [await appToken(clientId), await appToken(clientId), await appToken(clientId)];
    await h.pool.query(`UPDATE access_tokens SET expires_at = now() - interval '2 days' WHERE token_hash = ANY($1)`, [tokens.map(hashToken)]);
    const repository = new TokenRepository(h.pool);
    const before = new Date(Date.now() - OAUTH_TOKEN_LIMITS.retainInactiveMs);
    expect((await repository.pruneInactive(before, 2)).accessTokens).toBe(2);
    await h.services.tokens.pruneInactive();
    expect((await h.pool.query('SELECT 1 FROM access_tokens WHERE token_hash = ANY($1)', [tokens.map(hashToken)])).rows).toEqual([]);
  });
});
