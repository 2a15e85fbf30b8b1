import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRevocationNotice, generateToken, hashToken, REVOCATION_CHANNEL } from '@inkwell/auth-tokens';
import { ErrorCode } from '@inkwell/errors';
import { createRedis, type Redis } from '@inkwell/redis';
import { eventually, stackEnv } from '@inkwell/testing';
import { CLIENT_LIMITS } from '../src/domain/oauth.js';
import { SaveAuthorizationCodeRequestSchema, SaveTokensRequestSchema } from '@inkwell/proto/users';
import { as, startUsersHarness, uniqueName, withRemovedUserId, type UsersHarness } from './harness.js';

const REDIRECT = 'https://app.example.org/callback';
const HOUR = 3600_000;

function inMs(ms: number) {
  return timestampFromDate(new Date(Date.now() + ms));
}

describe('the OAuth store over gRPC', () => {
  let h: UsersHarness;
  let subscriber: Redis;
  const notices: string[][] = [];
  /** Every secret handed to or returned by the service in this file, to look for in the tables. */
  const secrets: string[] = [];
  let userId: string;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_oauth');
    subscriber = createRedis(stackEnv().redisUrl);
    subscriber.on('message', (_channel: string, message: string) => notices.push(decodeRevocationNotice(message).tokenHashes));
    await subscriber.subscribe(REVOCATION_CHANNEL);
    const name = uniqueName('oauth');
    userId = (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
  });

  afterAll(async () => {
    subscriber?.disconnect();
    await h?.close();
  });

  /** Whether `call` is refused (for waiting on an expiry without sleeping). */
  const refused = (call: Promise<unknown>): Promise<boolean> => call.then(() => false, () => true);

  /** Resolves once a revocation notice naming every hash in `hashes` has arrived. */
  async function noticeOf(hashes: string[], timeoutMs = 1_000): Promise<void> {
    const seen = () => new Set(notices.flat());
    await eventually(() => hashes.every((hash) => seen().has(hash)), { timeoutMs, intervalMs: 10, what: `a revocation notice for ${hashes.join(', ')}` });
  }

  async function confidentialClient() {
    const created = await h.client.createClient({ name: 'My app', redirectUris: [REDIRECT], confidential: true }, as(userId));
    secrets.push(created.clientSecret);
    return { clientId: created.client!.id, secret: created.clientSecret };
  }

  /** Stores a code for `forUser` (the caller the gateway signs as: the signed-in user who consented). */
  async function issueCode(clientId: string, scopes = ['read_user', 'write_user'], forUser = userId) {
    const code = generateToken('authorizationCode');
    secrets.push(code);
    const saved = await h.client.saveAuthorizationCode(
      { code, clientId, redirectUri: REDIRECT, scopes, codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', codeChallengeMethod: 'S256', expiresAt: inMs(60_000) },
      as(forUser),
    );
    return { code, id: saved.authorizationCode!.id };
  }

  /** The id of a code of `forUser` that was just issued and consumed, as the token endpoint has it before it saves tokens. */
  async function consumedCodeId(clientId: string, scopes?: string[], forUser = userId): Promise<string> {
    const { code } = await issueCode(clientId, scopes, forUser);
    return (await h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode!.id;
  }

  /**
   * Saves tokens for `userId` as the gateway's token endpoint does: signed as the user of the grant
   * they come from, a consumed code of theirs unless the refresh token being rotated or a code is given.
   */
  async function issueTokens(clientId: string, extra: { authorizationCodeId?: string; rotatedFromRefresh?: string; scopes?: string[] } = {}) {
    const accessToken = generateToken('accessToken');
    const refreshToken = generateToken('refreshToken');
    secrets.push(accessToken, refreshToken);
    const scopes = extra.scopes ?? ['read_user', 'write_user'];
    const grant = extra.authorizationCodeId === undefined && extra.rotatedFromRefresh === undefined ? { authorizationCodeId: await consumedCodeId(clientId, scopes) } : {};
    const saved = await h.client.saveTokens(
      { accessToken, accessExpiresAt: inMs(HOUR), refreshToken, refreshExpiresAt: inMs(30 * 24 * HOUR), clientId, scopes, ...grant, ...extra },
      as(userId),
    );
    return { accessToken, refreshToken, saved };
  }

  describe('clients', () => {
    it('shows a confidential client’s secret once, stores only its hash, and verifies it', async () => {
      const { clientId, secret } = await confidentialClient();
      expect(clientId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(secret).toMatch(/^iwk_cs_/);
      const { rows } = await h.pool.query<{ secret_hash: string }>('SELECT secret_hash FROM oauth_clients WHERE id = $1', [clientId]);
      expect(rows[0]!.secret_hash).toBe(hashToken(secret));

      const fetched = (await h.client.getClient({ clientId }, as(undefined))).client;
      expect(fetched).toMatchObject({ id: clientId, name: 'My app', redirectUris: [REDIRECT], confidential: true, ownerUserId: userId });
      expect((await h.client.verifyClientSecret({ clientId, clientSecret: secret }, as(undefined))).client?.id).toBe(clientId);
      for (const [id, attempt] of [[clientId, `${secret}x`], [clientId, ''], ['no-such-client', secret]] as const) {
        await expect(h.client.verifyClientSecret({ clientId: id, clientSecret: attempt }, as(undefined))).rejects.toMatchObject({
          code: ErrorCode.UNAUTHENTICATED,
          details: [{ reason: 'invalid_client' }],
        });
      }
    });

    it('gives public clients no secret (and verifying one fails), ids that are not sequential, and lists a user’s clients', async () => {
      const owner = (await h.client.registerUser({ name: uniqueName('own'), email: `${uniqueName('own')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
      const first = await h.client.createClient({ name: 'SPA', redirectUris: ['http://127.0.0.1:5173/cb'], confidential: false }, as(owner));
      const second = await h.client.createClient({ name: 'CLI', redirectUris: ['com.example.cli:/cb'], confidential: true }, as(owner));
      expect(first.clientSecret).toBe('');
      expect(first.client!.id).not.toBe(second.client!.id);
      await expect(h.client.verifyClientSecret({ clientId: first.client!.id, clientSecret: '' }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      expect((await h.client.listClients({}, as(owner))).clients.map((client) => client.name)).toEqual(['SPA', 'CLI']);
      const operatorApp = await h.client.createClient({ name: 'Operator app', redirectUris: [REDIRECT], confidential: true }, as(undefined));
      expect(operatorApp.client?.ownerUserId).toBeUndefined();
    });

    it('caps the apps of one owner at 25, counted exactly under concurrency; deleting one makes room; operator apps are not capped', async () => {
      const owner = (await h.client.registerUser({ name: uniqueName('cap'), email: `${uniqueName('cap')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
      const register = (index: number) => h.client.createClient({ name: `App ${index}`, redirectUris: [REDIRECT], confidential: false }, as(owner));
      for (let index = 0; index < CLIENT_LIMITS.maxPerOwner - 5; index++) await register(index);
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => register(100 + index)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused).toHaveLength(5);
      expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
        code: ErrorCode.FAILED_PRECONDITION,
        message: 'You already own 25 applications, the most one user can have. Delete one you no longer use first.',
        details: [{ reason: 'limit_reached' }],
      });
      const { clients } = await h.client.listClients({}, as(owner));
      expect(clients).toHaveLength(25);
      await h.client.deleteClient({ clientId: clients[0]!.id }, as(owner));
      expect((await register(200)).client?.name).toBe('App 200');
      for (let index = 0; index < 30; index++) await h.client.createClient({ name: `Operator ${index}`, redirectUris: [REDIRECT], confidential: true }, as(undefined));
    });

    it('validates names and redirect URIs', async () => {
      const create = (name: string, redirectUris: string[]) => h.client.createClient({ name, redirectUris, confidential: true }, as(userId));
      await expect(create('', [REDIRECT])).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ pointer: '/data/attributes/name' }] });
      await expect(create('x', [])).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/redirect_uris' }] });
      for (const bad of ['/relative', 'http://evil.example.org/cb', 'https://a.example.org/cb#frag', 'javascript:alert(1)', 'https://user:pw@a.example.org/']) {
        await expect(create('x', [REDIRECT, bad])).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ pointer: '/data/attributes/redirect_uris/1' }] });
      }
      await expect(create('x', [REDIRECT, REDIRECT])).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/redirect_uris/1' }] });
    });

    it('deletes a client only for its owner, revoking its tokens and announcing them', async () => {
      const { clientId } = await confidentialClient();
      const { accessToken } = await issueTokens(clientId);
      const stranger = (await h.client.registerUser({ name: uniqueName('str'), email: `${uniqueName('str')}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
      await expect(h.client.deleteClient({ clientId }, as(stranger))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
      await h.client.deleteClient({ clientId }, as(userId));
      await noticeOf([hashToken(accessToken)]);
      await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      await expect(h.client.getClient({ clientId }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    });
  });

  describe('authorization codes', () => {
    it('are single use: the second consumption fails and revokes every token issued from the code', async () => {
      const { clientId } = await confidentialClient();
      const { code, id } = await issueCode(clientId);
      expect((await h.client.getAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode).toMatchObject({
        id, clientId, userId, redirectUri: REDIRECT, scopes: ['read_user', 'write_user'], codeChallengeMethod: 'S256',
      });
      const consumed = (await h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode!;
      const { accessToken, refreshToken } = await issueTokens(clientId, { authorizationCodeId: consumed.id });
      expect((await h.client.getAccessToken({ accessToken }, as(undefined))).token?.userId).toBe(userId);

      await expect(h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] });
      await noticeOf([hashToken(accessToken)]);
      await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      await expect(h.client.getRefreshToken({ refreshToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] });
      // And no new tokens can be issued from it.
      await expect(issueTokens(clientId, { authorizationCodeId: consumed.id })).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
    });

    it('exactly one of many concurrent consumptions succeeds', async () => {
      const { clientId } = await confidentialClient();
      const { code } = await issueCode(clientId);
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    });

    it('a peek at a consumed code (GetAuthorizationCode) is reuse too', async () => {
      const { clientId } = await confidentialClient();
      const { code } = await issueCode(clientId);
      const consumed = (await h.client.consumeAuthorizationCode({ code, clientId }, as(undefined))).authorizationCode!;
      const { accessToken } = await issueTokens(clientId, { authorizationCodeId: consumed.id });
      await expect(h.client.getAuthorizationCode({ code, clientId }, as(undefined))).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
      await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    });

    it('refuses unknown codes, another client’s code, expired codes, unregistered redirect URIs, unknown scopes and public clients without PKCE', async () => {
      const { clientId } = await confidentialClient();
      const other = await confidentialClient();
      await expect(h.client.getAuthorizationCode({ code: 'iwk_ac_nope', clientId }, as(undefined))).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
      const { code } = await issueCode(clientId);
      await expect(h.client.getAuthorizationCode({ code, clientId: other.clientId }, as(undefined))).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
      const expired = generateToken('authorizationCode');
      await h.client.saveAuthorizationCode({ code: expired, clientId, redirectUri: REDIRECT, scopes: [], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(300) }, as(userId));
      // Wait for the expiry without consuming the code: reading it is refused once it has expired.
      await eventually(() => refused(h.client.getAuthorizationCode({ code: expired, clientId }, as(undefined))), { what: 'the code to expire' });
      await expect(h.client.consumeAuthorizationCode({ code: expired, clientId }, as(undefined))).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });

      const save = (overrides: Record<string, unknown>) =>
        h.client.saveAuthorizationCode({ code: generateToken('authorizationCode'), clientId, redirectUri: REDIRECT, scopes: ['read_user'], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000), ...overrides }, as(userId));
      await expect(save({ redirectUri: 'https://app.example.org/callback/' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
      await expect(save({ scopes: ['read_user', 'root'] })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason: 'invalid_scope' }] });
      await expect(save({ codeChallenge: 'abc', codeChallengeMethod: 'S512' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
      const spa = await h.client.createClient({ name: 'SPA', redirectUris: [REDIRECT], confidential: false }, as(userId));
      await expect(save({ clientId: spa.client!.id })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    });
  });

  describe('the user of a code or token is the signed caller (docs/api/foundation.md, "Internal calls")', () => {
    async function newUser(prefix: string): Promise<string> {
      const name = uniqueName(prefix);
      return (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
    }

    it('stores a code for the caller, whatever user the request names; a caller without a user gets none', async () => {
      const { clientId } = await confidentialClient();
      const victim = await newUser('vic');
      const init = { code: generateToken('authorizationCode'), clientId, redirectUri: REDIRECT, scopes: ['write_user'], codeChallenge: '', codeChallengeMethod: '', expiresAt: inMs(60_000) };
      // user_id (field 3, now reserved) naming the victim, as a gateway of the old contract would send it.
      const saved = await h.client.saveAuthorizationCode(withRemovedUserId(SaveAuthorizationCodeRequestSchema, init, 3, victim), as(userId));
      expect(saved.authorizationCode?.userId).toBe(userId);
      const other = { ...init, code: generateToken('authorizationCode') };
      await expect(h.client.saveAuthorizationCode(withRemovedUserId(SaveAuthorizationCodeRequestSchema, other, 3, victim), as(undefined))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        details: [{ reason: 'forbidden' }],
      });
      await expect(h.client.consumeAuthorizationCode({ code: other.code, clientId }, as(undefined))).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
    });

    it("mints a user's tokens only from that user's own code or refresh token, and never from a user id in the request", async () => {
      const { clientId } = await confidentialClient();
      const other = await confidentialClient();
      const victim = await newUser('vic');
      const save = (caller: string | undefined, extra: { authorizationCodeId?: string; rotatedFromRefresh?: string; clientId?: string } = {}) => {
        const accessToken = generateToken('accessToken');
        secrets.push(accessToken);
        // user_id (field 6, now reserved) naming the victim in every request.
        const request = withRemovedUserId(SaveTokensRequestSchema, { accessToken, accessExpiresAt: inMs(HOUR), clientId, scopes: ['write_user'], ...extra }, 6, victim);
        return h.client.saveTokens(request, as(caller)).then((saved) => ({ accessToken, saved }));
      };
      const invalidGrant = { code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] };

      // The victim's code, exchanged by a caller signed as someone else, or by another client: no tokens.
      const victimsCode = await consumedCodeId(clientId, ['write_user'], victim);
      await expect(save(userId, { authorizationCodeId: victimsCode })).rejects.toMatchObject(invalidGrant);
      await expect(save(undefined, { authorizationCodeId: victimsCode })).rejects.toMatchObject(invalidGrant);
      await expect(save(victim, { authorizationCodeId: victimsCode, clientId: other.clientId })).rejects.toMatchObject(invalidGrant);
      // Nor without any grant: a user token does not come out of nothing.
      await expect(save(userId)).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
      // Without a user it is the client's own token (client credentials), whatever the request names.
      const appOnly = await save(undefined);
      expect((await h.client.getAccessToken({ accessToken: appOnly.accessToken }, as(undefined))).token?.userId).toBeUndefined();

      // The caller's own refresh token cannot be rotated into the victim's, nor theirs into the caller's.
      const mine = await issueTokens(clientId, { scopes: ['write_user'] });
      await expect(save(victim, { rotatedFromRefresh: mine.refreshToken })).rejects.toMatchObject(invalidGrant);
      // The victim's own exchange works, and the token is theirs.
      const theirs = await save(victim, { authorizationCodeId: await consumedCodeId(clientId, ['write_user'], victim) });
      expect((await h.client.getAccessToken({ accessToken: theirs.accessToken }, as(undefined))).token?.userId).toBe(victim);
    });
  });

  describe('tokens', () => {
    it('rotates refresh tokens: the new pair works, the old refresh token is used, and presenting it again revokes the whole family', async () => {
      const { clientId } = await confidentialClient();
      const first = await issueTokens(clientId);
      const family = first.saved.refreshToken!.familyId;
      expect((await h.client.getRefreshToken({ refreshToken: first.refreshToken }, as(undefined))).token).toMatchObject({ clientId, userId, familyId: family });

      const second = await issueTokens(clientId, { rotatedFromRefresh: first.refreshToken, scopes: ['read_user'] });
      expect(second.saved.refreshToken?.familyId).toBe(family);
      expect((await h.client.getAccessToken({ accessToken: second.accessToken }, as(undefined))).token?.scopes).toEqual(['read_user']);
      const third = await issueTokens(clientId, { rotatedFromRefresh: second.refreshToken, scopes: ['read_user'] });

      // Reuse of the first refresh token: everything in the family goes, including the newest pair.
      await expect(h.client.getRefreshToken({ refreshToken: first.refreshToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_grant' }] });
      await noticeOf([first.accessToken, second.accessToken, third.accessToken].map(hashToken));
      for (const accessToken of [first.accessToken, second.accessToken, third.accessToken]) {
        await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      await expect(h.client.getRefreshToken({ refreshToken: third.refreshToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    });

    it('rotating the same refresh token twice at once lets at most one win and then revokes the family', async () => {
      const { clientId } = await confidentialClient();
      const first = await issueTokens(clientId);
      const outcomes = await Promise.allSettled([1, 2, 3].map(() => issueTokens(clientId, { rotatedFromRefresh: first.refreshToken })));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(won.length).toBeLessThanOrEqual(1);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected').length).toBeGreaterThanOrEqual(2);
      for (const outcome of won) {
        await expect(h.client.getAccessToken({ accessToken: outcome.value.accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
    });

    it('refuses a rotation that widens the scopes or comes from another client', async () => {
      const { clientId } = await confidentialClient();
      const other = await confidentialClient();
      const first = await issueTokens(clientId, { scopes: ['read_user'] });
      await expect(issueTokens(clientId, { rotatedFromRefresh: first.refreshToken, scopes: ['read_user', 'write_pms'] })).rejects.toMatchObject({ details: [{ reason: 'invalid_scope' }] });
      await expect(issueTokens(other.clientId, { rotatedFromRefresh: first.refreshToken, scopes: ['read_user'] })).rejects.toMatchObject({ details: [{ reason: 'invalid_grant' }] });
      expect((await h.client.getRefreshToken({ refreshToken: first.refreshToken }, as(undefined))).token?.scopes).toEqual(['read_user']);
    });

    it('resolves access tokens until they expire; unknown ones are invalid_token', async () => {
      const { clientId } = await confidentialClient();
      const accessToken = generateToken('accessToken');
      await h.client.saveTokens({ accessToken, accessExpiresAt: inMs(300), clientId, scopes: ['read_stories'] }, as(undefined));
      const resolved = (await h.client.getAccessToken({ accessToken }, as(undefined))).token;
      expect(resolved).toMatchObject({ clientId, scopes: ['read_stories'], personal: false, tokenHash: hashToken(accessToken) });
      expect(resolved?.userId).toBeUndefined();
      await eventually(() => refused(h.client.getAccessToken({ accessToken }, as(undefined))), { what: 'the token to expire' });
      await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
      for (const garbage of ['', 'iwk_at_unknown', 'x'.repeat(5000)]) {
        await expect(h.client.getAccessToken({ accessToken: garbage }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
      }
    });

    it('revokes an access token and publishes its hash on the Redis channel within a second', async () => {
      const { clientId } = await confidentialClient();
      const { accessToken, refreshToken } = await issueTokens(clientId);
      const started = Date.now();
      expect((await h.client.revokeToken({ token: accessToken, clientId }, as(undefined))).revoked).toBe(true);
      await noticeOf([hashToken(accessToken)]);
      expect(Date.now() - started).toBeLessThan(1_000);
      await expect(h.client.getAccessToken({ accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      // Revoking an access token leaves its refresh token alone; revoking twice is not an error.
      expect((await h.client.getRefreshToken({ refreshToken }, as(undefined))).token?.clientId).toBe(clientId);
      expect((await h.client.revokeToken({ token: accessToken }, as(undefined))).revoked).toBe(false);
      expect((await h.client.revokeToken({ token: 'iwk_at_never-issued' }, as(undefined))).revoked).toBe(false);
    });

    it('revoking a refresh token revokes its family; another client may not revoke it', async () => {
      const { clientId } = await confidentialClient();
      const other = await confidentialClient();
      const first = await issueTokens(clientId);
      const second = await issueTokens(clientId, { rotatedFromRefresh: first.refreshToken });
      await expect(h.client.revokeToken({ token: second.refreshToken, clientId: other.clientId }, as(undefined))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        details: [{ reason: 'unauthorized_client' }],
      });
      expect((await h.client.revokeToken({ token: second.refreshToken, clientId }, as(undefined))).revoked).toBe(true);
      await noticeOf([first.accessToken, second.accessToken].map(hashToken));
      await expect(h.client.getAccessToken({ accessToken: second.accessToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      await expect(h.client.getRefreshToken({ refreshToken: second.refreshToken }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    });

    it('revokes every token of a user (OAuth and personal) at once', async () => {
      const name = uniqueName('all');
      const victim = (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
      const { clientId } = await confidentialClient();
      const accessToken = generateToken('accessToken');
      const authorizationCodeId = await consumedCodeId(clientId, [], victim);
      await h.client.saveTokens({ accessToken, accessExpiresAt: inMs(HOUR), clientId, authorizationCodeId, scopes: [] }, as(victim));
      const pat = await h.client.createPersonalToken({ name: 'script', scopes: ['read_user'] }, as(victim));
      expect((await h.client.revokeUserTokens({ userId: victim }, as(undefined))).revokedCount).toBe(2);
      await noticeOf([hashToken(accessToken), hashToken(pat.token)]);
      for (const token of [accessToken, pat.token]) {
        await expect(h.client.getAccessToken({ accessToken: token }, as(undefined))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
      }
      // Tokens of other users are untouched.
      const mine = await issueTokens(clientId);
      expect((await h.client.getAccessToken({ accessToken: mine.accessToken }, as(undefined))).token?.userId).toBe(userId);
    });
  });

  it('never stores a secret in plaintext: no table contains any secret handed out in this file', async () => {
    expect(secrets.length).toBeGreaterThan(20);
    const tables = ['oauth_clients', 'authorization_codes', 'token_grants', 'access_tokens', 'refresh_tokens', 'users', 'outbox'];
    for (const table of tables) {
      const { rows } = await h.pool.query<{ dump: string }>(`SELECT coalesce(string_agg(t::text, E'\\n'), '') AS dump FROM ${table} t`);
      const dump = rows[0]!.dump;
      expect(dump.length, table).toBeGreaterThan(0);
      const leaked = secrets.filter((secret) => secret !== '' && dump.includes(secret.slice(7)));
      expect(leaked, table).toEqual([]);
    }
    // And the hashes are there, so the test looks in the right place.
    const { rows } = await h.pool.query('SELECT 1 FROM access_tokens WHERE token_hash = ANY($1)', [secrets.map(hashToken)]);
    expect(rows.length).toBeGreaterThan(5);
  });
});
