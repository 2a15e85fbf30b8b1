import { describe, expect, it } from 'vitest';
import { CLIENT_LIMITS } from '../domain/oauth.js';
import { memoryUsers } from '../testing/memory.repositories.js';

const app = { name: 'Reader', redirectUris: ['https://reader.example/callback'] };
const invalidClient = { code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_client' }] };

describe('OAuthClientService', () => {
  it('gives a confidential client a secret once that verifies; a wrong secret and a public client fail alike', async () => {
    const { clients, data } = memoryUsers();
    const owner = data.putUser('ada');
    const confidential = await clients.create({ ...app, ownerUserId: owner, confidential: true });
    const open = await clients.create({ ...app, ownerUserId: owner, confidential: false });

    expect(confidential.secret).toMatch(/^iwk_cs_/);
    expect(data.clients.get(confidential.client.id)?.secretHash).not.toContain(confidential.secret);
    expect((await clients.verifySecret(confidential.client.id, confidential.secret!)).id).toBe(confidential.client.id);
    await expect(clients.verifySecret(confidential.client.id, 'iwk_cs_wrong')).rejects.toMatchObject(invalidClient);
    expect(open.secret).toBeUndefined();
    await expect(clients.verifySecret(open.client.id, '')).rejects.toMatchObject(invalidClient);
    expect((await clients.list(owner)).map((client) => client.id)).toEqual([confidential.client.id, open.client.id]);
  });

  it('replaces a secret: the old one stops working at once; a public client has none to rotate', async () => {
    const { clients, data } = memoryUsers();
    const owner = data.putUser('ada');
    const { client, secret } = await clients.create({ ...app, ownerUserId: owner, confidential: true });
    const open = await clients.create({ ...app, ownerUserId: owner, confidential: false });

    const rotated = await clients.rotateSecret(client.id);
    await expect(clients.verifySecret(client.id, secret!)).rejects.toMatchObject(invalidClient);
    expect((await clients.verifySecret(client.id, rotated)).id).toBe(client.id);
    await expect(clients.rotateSecret(open.client.id)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_request' }] });
  });

  it(`caps the apps of one owner at ${CLIENT_LIMITS.maxPerOwner}; deleting one makes room; operator apps are not capped`, async () => {
    const { clients, data } = memoryUsers();
    const owner = data.putUser('ada');
    const created = [];
    for (let n = 0; n < CLIENT_LIMITS.maxPerOwner; n++) created.push(await clients.create({ ...app, ownerUserId: owner, confidential: false }));

    await expect(clients.create({ ...app, ownerUserId: owner, confidential: false })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', details: [{ reason: 'limit_reached' }] });
    await clients.delete(created[0]!.client.id, owner);
    await clients.create({ ...app, ownerUserId: owner, confidential: false });
    for (let n = 0; n <= CLIENT_LIMITS.maxPerOwner; n++) await clients.create({ ...app, confidential: false });
  });

  it('refuses an unknown owner', async () => {
    const { clients } = memoryUsers();
    await expect(clients.create({ ...app, ownerUserId: '999', confidential: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deletes a client only for its owner, taking its active tokens with it and announcing them', async () => {
    const { clients, data, tokens } = memoryUsers();
    const [owner, other] = [data.putUser('ada'), data.putUser('grace')];
    const { client } = await clients.create({ ...app, ownerUserId: owner, confidential: true });
    await tokens.saveTokens({ scopes: [] }, { accessToken: 'app-token', accessExpiresAt: new Date(Date.now() + 60_000), clientId: client.id, scopes: [] });

    await expect(clients.delete(client.id, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await clients.get(client.id)).toMatchObject({ id: client.id });
    await clients.delete(client.id, owner);
    await expect(clients.get(client.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(data.notices).toHaveLength(1);
    expect(data.notices[0]).toHaveLength(1);
    await expect(tokens.getAccessToken('app-token')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_token' }] });
  });

  it('keeps the web origins of a browser app, written as browsers send them, and says which origins any app allows', async () => {
    const { clients, data } = memoryUsers();
    const owner = data.putUser('ada');
    const { client } = await clients.create({ ...app, ownerUserId: owner, confidential: false, allowedOrigins: ['https://reader.example', 'http://127.0.0.1:3000'] });
    expect(client.allowedOrigins).toEqual(['https://reader.example', 'http://127.0.0.1:3000']);
    expect(await clients.isOriginRegistered('https://reader.example')).toBe(true);
    expect(await clients.isOriginRegistered('https://other.example')).toBe(false);
    expect(await clients.isOriginRegistered('null')).toBe(false);

    for (const [origin, problem] of [
      ['https://reader.example/', 'without a path or a trailing slash'],
      ['https://Reader.example', 'without a path'],
      ['https://reader.example:443', 'without a path'],
      ['http://reader.example', 'only for loopback hosts'],
      ['ftp://reader.example', 'uses https'],
      ['reader.example', 'scheme://host'],
    ] as const) {
      await expect(clients.create({ ...app, ownerUserId: owner, confidential: false, allowedOrigins: [origin] }), origin).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: [{ reason: 'validation_failed', pointer: '/data/attributes/allowed_origins/0', detail: expect.stringContaining(problem) }],
      });
    }
    await expect(clients.create({ ...app, ownerUserId: owner, confidential: false, allowedOrigins: ['https://a.example', 'https://a.example'] })).rejects.toMatchObject({
      details: [{ pointer: '/data/attributes/allowed_origins/1', detail: 'This origin is listed twice.' }],
    });
  });

  it('ensures the docs client at every start: public, owned by nobody, its redirect URI under the public base URL', async () => {
    const { clients } = memoryUsers();
    const first = await clients.ensureDocsClient('https://api.inkwell.example/');
    expect(first).toMatchObject({ id: 'inkwell-api-docs', confidential: false, redirectUris: ['https://api.inkwell.example/docs/oauth2-redirect.html'] });
    expect(first.ownerUserId).toBeUndefined();
    const moved = await clients.ensureDocsClient('http://127.0.0.1:9000');
    expect(moved.redirectUris).toEqual(['http://127.0.0.1:9000/docs/oauth2-redirect.html']);
    expect(moved.dateCreated).toEqual(first.dateCreated);
    await expect(clients.ensureDocsClient('http://api.inkwell.example')).rejects.toThrow(/PUBLIC_BASE_URL/);
  });
});
