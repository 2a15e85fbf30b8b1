import { describe, expect, it } from 'vitest';
import type { Authorization, AuthorizationPosition } from '../domain/authorization.js';
import { encodeAuthorizationPosition } from '../domain/authorization.js';
import type { RevocationNotifier } from '../repositories/revocation.notifier.js';
import { AuthorizationService, type AuthorizationStore } from './authorization.service.js';

/** A store that answers one fixed authorization and records what it was asked. */
function fixture(authorization: Authorization | undefined) {
  const asked: string[] = [];
  const notices: string[][] = [];
  const store: AuthorizationStore = {
    async list(userId: string, size: number, after: AuthorizationPosition | undefined) {
      asked.push(`list ${userId} ${size} ${after?.clientId ?? '-'}`);
      return { authorizations: authorization === undefined ? [] : [authorization] };
    },
    async revoke(userId: string, clientId: string) {
      asked.push(`revoke ${userId} ${clientId}`);
      return authorization === undefined || authorization.clientId !== clientId ? undefined : { accessTokenHashes: ['h1', 'h2'], authorization };
    },
  };
  const notifier: RevocationNotifier = {
    async notify(hashes) {
      notices.push([...hashes]);
    },
  };
  return { service: new AuthorizationService(store, notifier), asked, notices };
}

const READER: Authorization = {
  clientId: 'h1YBcQ0x9Qy6pTvZrXkW2A',
  appName: 'Reader',
  scopes: ['write_user', 'read_user', 'read_stories'],
  dateGranted: new Date('2026-01-01T00:00:00Z'),
  dateLastUsed: new Date('2026-02-01T00:00:00Z'),
};

describe('AuthorizationService', () => {
  it('lists and revokes only for the caller: another user in the path is NOT_FOUND before the store is read', async () => {
    const { service, asked, notices } = fixture(READER);
    const ada = { userId: '7', scopes: ['read_user', 'write_user'] };
    await expect(service.list(ada, '8', 0, '')).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(service.revoke(ada, '8', READER.clientId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.list({ scopes: ['read_user'] }, '7', 0, '')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(asked).toEqual([]);
    expect(notices).toEqual([]);
  });

  it('lists with the default page size and the scopes in the order of the scope list; a foreign cursor is invalid_cursor', async () => {
    const { service, asked } = fixture(READER);
    const ada = { userId: '7', scopes: ['read_user'] };
    const page = await service.list(ada, '7', 0, '');
    expect(page.authorizations).toEqual([{ ...READER, scopes: ['read_stories', 'read_user', 'write_user'] }]);
    await service.list(ada, '7', 5, encodeAuthorizationPosition({ dateMicros: '1', clientId: 'abc' }));
    expect(asked).toEqual(['list 7 20 -', 'list 7 5 abc']);
    await expect(service.list(ada, '7', 0, 'bm90LWEtY3Vyc29y')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }] });
  });

  it('announces the revoked access tokens; nothing to revoke (or no client id at all) is NOT_FOUND without a notice', async () => {
    const { service, asked, notices } = fixture(READER);
    const ada = { userId: '7', scopes: ['write_user'] };
    expect(await service.revoke(ada, '7', READER.clientId)).toMatchObject({ clientId: READER.clientId, scopes: ['read_stories', 'read_user', 'write_user'] });
    expect(notices).toEqual([['h1', 'h2']]);
    await expect(service.revoke(ada, '7', 'someone-elses-app')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.revoke(ada, '7', 'not a client id')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(asked).toEqual([`revoke 7 ${READER.clientId}`, 'revoke 7 someone-elses-app']);
    expect(notices).toHaveLength(1);
  });
});
