import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CLIENT } from '@inkwell/auth-tokens';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

describe('web origins of apps and the docs client, over gRPC and in Postgres', () => {
  let h: UsersHarness;
  let userId: string;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_origins');
    const name = uniqueName('origins');
    userId = (await h.client.registerUser({ name, email: `${name}@example.org`, password: 'long enough password' }, as(undefined))).user!.id;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('keeps the allowed origins of an app and says whether any app allows an origin', async () => {
    const origin = `https://${uniqueName('reader')}.example`;
    expect((await h.client.checkWebOrigin({ origin }, as(undefined))).registered).toBe(false);
    const created = await h.client.createClient({ name: 'Browser reader', redirectUris: [`${origin}/cb`], allowedOrigins: [origin, 'http://localhost:5173'], confidential: false }, as(userId));
    expect(created.client?.allowedOrigins).toEqual([origin, 'http://localhost:5173']);
    expect((await h.client.getClient({ clientId: created.client!.id }, as(undefined))).client?.allowedOrigins).toEqual([origin, 'http://localhost:5173']);
    expect((await h.client.checkWebOrigin({ origin }, as(undefined))).registered).toBe(true);
    expect((await h.client.checkWebOrigin({ origin: `${origin}/` }, as(undefined))).registered).toBe(false);

    await expect(h.client.createClient({ name: 'Bad', redirectUris: [`${origin}/cb`], allowedOrigins: ['http://reader.example'], confidential: false }, as(userId))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/allowed_origins/0' }],
    });
    const eleven = Array.from({ length: 11 }, (_, index) => `https://o${index}.example`);
    await expect(h.client.createClient({ name: 'Many', redirectUris: [`${origin}/cb`], allowedOrigins: eleven, confidential: false }, as(userId))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    await h.client.deleteClient({ clientId: created.client!.id }, as(userId));
    expect((await h.client.checkWebOrigin({ origin }, as(undefined))).registered).toBe(false);
  });

  it('ensures the docs client idempotently: created once, corrected in place, never owned, never confidential', async () => {
    const first = await h.services.clients.ensureDocsClient('http://127.0.0.1:8080');
    const again = await Promise.all([h.services.clients.ensureDocsClient('https://api.inkwell.example'), h.services.clients.ensureDocsClient('https://api.inkwell.example')]);
    const found = (await h.client.getClient({ clientId: DOCS_CLIENT.id }, as(undefined))).client!;
    expect(found).toMatchObject({ id: 'inkwell-api-docs', confidential: false, redirectUris: ['https://api.inkwell.example/docs/oauth2-redirect.html'], allowedOrigins: [] });
    expect(found.ownerUserId).toBeUndefined();
    expect(again[0].dateCreated).toEqual(first.dateCreated);
    const { rows } = await h.pool.query<{ count: string }>('SELECT count(*) FROM oauth_clients WHERE id = $1', [DOCS_CLIENT.id]);
    expect(rows[0]?.count).toBe('1');
  });
});
