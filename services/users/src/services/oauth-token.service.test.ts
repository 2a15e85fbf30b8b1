import { hashToken } from '@inkwell/auth-tokens';
import { describe, expect, it } from 'vitest';
import { OAUTH_TOKEN_LIMITS } from '../domain/oauth.js';
import { memoryUsers, type MemoryUsers } from '../testing/memory.repositories.js';

const REDIRECT = 'https://reader.example/callback';
const HOUR = 60 * 60 * 1000;
const invalidGrant = { code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_grant' }] };
const invalidToken = { code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_token' }] };

let serial = 0;

/** A user and a confidential app of theirs in a fresh store. */
async function world(): Promise<MemoryUsers & { userId: string; clientId: string; caller: { userId: string; scopes: string[] } }> {
  const users = memoryUsers();
  const userId = users.data.putUser('ada');
  const { client } = await users.clients.create({ name: 'Reader', redirectUris: [REDIRECT], confidential: true });
  return { ...users, userId, clientId: client.id, caller: { userId, scopes: [] } };
}

/** A code for `userId` consented to `clientId`, as the gateway stores it. */
async function issueCode(users: MemoryUsers, userId: string, clientId: string, scopes = ['read_stories', 'write_stories']): Promise<{ code: string; id: string }> {
  const code = `code-${++serial}`;
  const stored = await users.tokens.saveCode({ userId, scopes: [] }, { code, clientId, redirectUri: REDIRECT, scopes, codeChallenge: '', codeChallengeMethod: '', expiresAt: new Date(Date.now() + 60_000) });
  return { code, id: stored.id };
}

/** A code exchanged for an access and a refresh token, as the gateway's token endpoint does it. */
async function authorize(users: MemoryUsers, userId: string, clientId: string): Promise<{ access: string; refresh: string; codeId: string }> {
  const { code, id } = await issueCode(users, userId, clientId);
  await users.tokens.consumeCode(code, clientId);
  const access = `access-${++serial}`;
  const refresh = `refresh-${serial}`;
  await users.tokens.saveTokens({ userId, scopes: [] }, { accessToken: access, accessExpiresAt: new Date(Date.now() + HOUR), refreshToken: refresh, refreshExpiresAt: new Date(Date.now() + 24 * HOUR), clientId, scopes: ['read_stories', 'write_stories'], authorizationCodeId: id });
  return { access, refresh, codeId: id };
}

/** Exchanges refresh token `refresh` for a new pair. */
async function rotate(users: MemoryUsers, userId: string, clientId: string, refresh: string, scopes = ['read_stories']): Promise<{ access: string; refresh: string }> {
  const next = { access: `access-${++serial}`, refresh: `refresh-${serial}` };
  await users.tokens.saveTokens({ userId, scopes: [] }, { accessToken: next.access, accessExpiresAt: new Date(Date.now() + HOUR), refreshToken: next.refresh, refreshExpiresAt: new Date(Date.now() + 24 * HOUR), clientId, scopes, rotatedFromRefresh: refresh });
  return next;
}

describe('OAuthTokenService codes', () => {
  it('stores a code for the signed caller only; redirect URIs must be the client’s; public clients need PKCE', async () => {
    const users = await world();
    const { client: open } = await users.clients.create({ name: 'Mobile', redirectUris: [REDIRECT], confidential: false });
    const issue = { code: 'c', clientId: users.clientId, redirectUri: REDIRECT, scopes: [], codeChallenge: '', codeChallengeMethod: '', expiresAt: new Date(Date.now() + 60_000) };

    await expect(users.tokens.saveCode({ scopes: [] }, issue)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(users.tokens.saveCode(users.caller, { ...issue, redirectUri: 'https://evil.example/' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_request' }] });
    await expect(users.tokens.saveCode(users.caller, { ...issue, clientId: open.id })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_request' }] });
    await expect(users.tokens.saveCode(users.caller, { ...issue, clientId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'invalid_client' }] });
    expect(await users.tokens.saveCode(users.caller, { ...issue, clientId: open.id, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256' })).toMatchObject({ userId: users.userId });
  });

  it('lets its client peek at an unused code without using it up; an expired code is invalid_grant', async () => {
    const users = await world();
    const { code } = await issueCode(users, users.userId, users.clientId);
    expect(await users.tokens.getCode(code, users.clientId)).toMatchObject({ userId: users.userId, redirectUri: REDIRECT });
    expect(await users.tokens.consumeCode(code, users.clientId)).toMatchObject({ userId: users.userId });

    const expired = await issueCode(users, users.userId, users.clientId);
    users.data.codes.find((stored) => stored.code.id === expired.id)!.code.expiresAt = new Date(Date.now() - 1);
    await expect(users.tokens.consumeCode(expired.code, users.clientId)).rejects.toMatchObject({ ...invalidGrant, message: 'The authorization code has expired.' });
  });

  it('treats a consumed code presented again, by consuming or by peeking, as reuse', async () => {
    const users = await world();
    const first = await issueCode(users, users.userId, users.clientId);
    await users.tokens.consumeCode(first.code, users.clientId);
    await users.tokens.saveTokens(users.caller, { accessToken: 'a1', accessExpiresAt: new Date(Date.now() + HOUR), clientId: users.clientId, scopes: [], authorizationCodeId: first.id });

    await expect(users.tokens.consumeCode(first.code, users.clientId)).rejects.toMatchObject(invalidGrant);
    await expect(users.tokens.getAccessToken('a1')).rejects.toMatchObject(invalidToken);
    expect(users.data.notices).toEqual([[hashToken('a1')]]);

    const second = await issueCode(users, users.userId, users.clientId);
    await users.tokens.consumeCode(second.code, users.clientId);
    await expect(users.tokens.getCode(second.code, users.clientId)).rejects.toMatchObject(invalidGrant);
    await expect(users.tokens.saveTokens(users.caller, { accessToken: 'a2', accessExpiresAt: new Date(Date.now() + HOUR), clientId: users.clientId, scopes: [], authorizationCodeId: second.id })).rejects.toMatchObject(invalidGrant);
  });

  it('refuses another client’s code, and uses it up all the same', async () => {
    const users = await world();
    const { client: other } = await users.clients.create({ name: 'Other', redirectUris: [REDIRECT], confidential: true });
    const { code } = await issueCode(users, users.userId, users.clientId);

    await expect(users.tokens.consumeCode(code, other.id)).rejects.toMatchObject(invalidGrant);
    await expect(users.tokens.consumeCode(code, users.clientId)).rejects.toMatchObject(invalidGrant);
  });
});

describe('OAuthTokenService tokens', () => {
  it('mints a user’s tokens only from that user’s own code or refresh token', async () => {
    const users = await world();
    const grace = users.data.putUser('grace');
    const { id } = await issueCode(users, users.userId, users.clientId);
    const tokens = { accessToken: 'a', accessExpiresAt: new Date(Date.now() + HOUR), clientId: users.clientId, scopes: [] };

    await expect(users.tokens.saveTokens(users.caller, tokens)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(users.tokens.saveTokens({ userId: grace, scopes: [] }, { ...tokens, authorizationCodeId: id })).rejects.toMatchObject(invalidGrant);
    const saved = await users.tokens.saveTokens({ scopes: [] }, tokens);
    expect(saved.accessToken).toMatchObject({ clientId: users.clientId, personal: false });
    expect(saved.accessToken.userId).toBeUndefined();
  });

  it('rotates refresh tokens: the old access token is revoked and announced; presenting the old refresh token again revokes the family', async () => {
    const users = await world();
    const first = await authorize(users, users.userId, users.clientId);
    const second = await rotate(users, users.userId, users.clientId, first.refresh);

    await expect(users.tokens.getAccessToken(first.access)).rejects.toMatchObject(invalidToken);
    expect(users.data.notices).toEqual([[hashToken(first.access)]]);
    await expect(users.tokens.getAccessToken(second.access)).resolves.toMatchObject({ scopes: ['read_stories'] });

    await expect(users.tokens.getRefreshToken(first.refresh)).rejects.toMatchObject({ ...invalidGrant, message: 'The refresh token was used already; its whole family is revoked.' });
    await expect(users.tokens.getAccessToken(second.access)).rejects.toMatchObject(invalidToken);
    await expect(users.tokens.getRefreshToken(second.refresh)).rejects.toMatchObject(invalidGrant);
  });

  it('refuses a rotation that widens the scopes or comes from another client', async () => {
    const users = await world();
    const { client: other } = await users.clients.create({ name: 'Other', redirectUris: [REDIRECT], confidential: true });
    const first = await authorize(users, users.userId, users.clientId);

    await expect(rotate(users, users.userId, users.clientId, first.refresh, ['read_stories', 'write_bookshelves'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_scope' }] });
    await expect(rotate(users, users.userId, other.id, first.refresh)).rejects.toMatchObject(invalidGrant);
    await expect(users.tokens.getRefreshToken(first.refresh)).resolves.toMatchObject({ clientId: users.clientId });
  });

  it(`revokes the least recently used of a user’s authorizations of one app beyond ${OAUTH_TOKEN_LIMITS.maxActivePerAppUser}; other users keep theirs`, async () => {
    const users = await world();
    const grace = users.data.putUser('grace');
    const graces = await authorize(users, grace, users.clientId);
    const adas = [];
    for (let n = 0; n < OAUTH_TOKEN_LIMITS.maxActivePerAppUser; n++) adas.push(await authorize(users, users.userId, users.clientId));
    await rotate(users, users.userId, users.clientId, adas[0]!.refresh);

    await authorize(users, users.userId, users.clientId);
    await expect(users.tokens.getAccessToken(adas[1]!.access)).rejects.toMatchObject(invalidToken);
    await expect(users.tokens.getRefreshToken(adas[1]!.refresh)).rejects.toMatchObject(invalidGrant);
    for (const kept of adas.slice(2)) await expect(users.tokens.getAccessToken(kept.access)).resolves.toBeDefined();
    await expect(users.tokens.getAccessToken(graces.access)).resolves.toMatchObject({ userId: grace });
  });

  it('resolves an access token until it expires', async () => {
    const users = await world();
    await users.tokens.saveTokens({ scopes: [] }, { accessToken: 'short', accessExpiresAt: new Date(Date.now() - 1), clientId: users.clientId, scopes: [] });

    await expect(users.tokens.getAccessToken('short')).rejects.toMatchObject(invalidToken);
    await expect(users.tokens.getAccessToken('never-issued')).rejects.toMatchObject(invalidToken);
  });

  it('revokes a refresh token with its family, refusing another client; revokes every token of a user at once', async () => {
    const users = await world();
    const { client: other } = await users.clients.create({ name: 'Other', redirectUris: [REDIRECT], confidential: true });
    const first = await authorize(users, users.userId, users.clientId);
    const second = await authorize(users, users.userId, users.clientId);
    await users.personalTokens.create(users.caller, { name: 'script', scopes: ['read_stories'] });

    await expect(users.tokens.revokeToken(first.refresh, other.id)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'unauthorized_client' }] });
    expect(await users.tokens.revokeToken(first.refresh, users.clientId)).toBe(true);
    await expect(users.tokens.getAccessToken(first.access)).rejects.toMatchObject(invalidToken);
    expect(await users.tokens.revokeToken(first.refresh, users.clientId)).toBe(false);

    expect(await users.tokens.revokeUserTokens(users.userId)).toBe(3);
    await expect(users.tokens.getAccessToken(second.access)).rejects.toMatchObject(invalidToken);
    expect(await users.personalTokens.list(users.caller)).toEqual([]);
  });
});

describe('OAuthTokenService.appScopes (docs/api/webhooks.md, "Private events")', () => {
  it('answers the scopes a user grants each app now, leaving out apps never authorized or revoked', async () => {
    const users = await world();
    const { client: other } = await users.clients.create({ name: 'Other', redirectUris: [REDIRECT], confidential: true });
    const { access, refresh } = await authorize(users, users.userId, users.clientId);
    expect(await users.tokens.appScopes(users.userId, [users.clientId, other.id])).toEqual(new Map([[users.clientId, ['read_stories', 'write_stories']]]));
    expect(await users.tokens.appScopes('not-a-user', [users.clientId])).toEqual(new Map());

    await users.tokens.revokeToken(refresh, undefined);
    await users.tokens.revokeToken(access, undefined);
    expect(await users.tokens.appScopes(users.userId, [users.clientId])).toEqual(new Map());
  });
});
