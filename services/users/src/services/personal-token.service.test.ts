import { hashToken } from '@inkwell/auth-tokens';
import { describe, expect, it } from 'vitest';
import { PERSONAL_TOKEN_LIMITS } from '../domain/oauth.js';
import { memoryUsers } from '../testing/memory.repositories.js';

describe('PersonalTokenService', () => {
  it('mints a token shown once that resolves as personal, lists it without the secret, and revokes it with a notice', async () => {
    const { personalTokens, tokens, data } = memoryUsers();
    const caller = { userId: data.putUser('ada'), scopes: [] };

    const { token, personalToken } = await personalTokens.create(caller, { name: '  backup script ', scopes: ['read_stories'] });
    expect(token).toMatch(/^iwk_pat_/);
    expect(personalToken).toMatchObject({ userId: caller.userId, name: 'backup script', scopes: ['read_stories'] });
    expect(await tokens.getAccessToken(token)).toMatchObject({ userId: caller.userId, personal: true, scopes: ['read_stories'] });
    expect(JSON.stringify(await personalTokens.list(caller))).not.toContain(token);

    await personalTokens.revoke(caller, personalToken.id);
    expect(data.notices).toEqual([[hashToken(token)]]);
    await expect(tokens.getAccessToken(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_token' }] });
    expect(await personalTokens.list(caller)).toEqual([]);
  });

  it('acts for the signed caller only: another user’s token is NOT_FOUND, a caller without a user is refused', async () => {
    const { personalTokens, tokens, data } = memoryUsers();
    const ada = { userId: data.putUser('ada'), scopes: [] };
    const grace = { userId: data.putUser('grace'), scopes: [] };
    const { token, personalToken } = await personalTokens.create(ada, { name: 'mine', scopes: [] });

    await expect(personalTokens.revoke(grace, personalToken.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await personalTokens.list(grace)).toEqual([]);
    await expect(tokens.getAccessToken(token)).resolves.toMatchObject({ userId: ada.userId });
    const forbidden = { code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] };
    await expect(personalTokens.create({ scopes: [] }, { name: 'app', scopes: [] })).rejects.toMatchObject(forbidden);
    await expect(personalTokens.list({ scopes: [] })).rejects.toMatchObject(forbidden);
  });

  it(`caps active tokens at ${PERSONAL_TOKEN_LIMITS.maxActivePerUser} per user; revoked and expired ones do not count`, async () => {
    const { personalTokens, data } = memoryUsers();
    const caller = { userId: data.putUser('ada'), scopes: [] };
    const made = [];
    for (let n = 0; n < PERSONAL_TOKEN_LIMITS.maxActivePerUser; n++) made.push(await personalTokens.create(caller, { name: `t${n}`, scopes: [] }));

    await expect(personalTokens.create(caller, { name: 'one more', scopes: [] })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', details: [{ reason: 'limit_reached' }] });
    await personalTokens.revoke(caller, made[0]!.personalToken.id);
    const soon = await personalTokens.create(caller, { name: 'expiring', scopes: [], expiresAt: new Date(Date.now() + 60_000) });
    data.accessTokens.find((stored) => stored.info.tokenId === soon.personalToken.id)!.info.expiresAt = new Date(Date.now() - 1);
    await personalTokens.create(caller, { name: 'fits again', scopes: [] });
    expect(await personalTokens.list(caller)).toHaveLength(PERSONAL_TOKEN_LIMITS.maxActivePerUser);
  });

  it('refuses an unknown user', async () => {
    const { personalTokens } = memoryUsers();
    await expect(personalTokens.create({ userId: '999', scopes: [] }, { name: 'ghost', scopes: [] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
