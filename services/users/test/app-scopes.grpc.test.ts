import { randomBytes } from 'node:crypto';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ErrorCode } from '@inkwell/errors';
import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import { callCode } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

/** GetUserAppScopes: what the webhooks service asks before delivering a private event (docs/api/webhooks.md, "Private events"). */
describe('GetUserAppScopes', () => {
  let h: UsersHarness;
  let asWebhooks: GrpcClient<typeof UsersService>;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_app_scopes');
    asWebhooks = createGrpcClient(UsersService, h.address, h.keys.clientOptions('webhooks'));
  });

  afterAll(async () => {
    asWebhooks?.close();
    await h?.close();
  });

  async function user(): Promise<string> {
    const name = uniqueName('scp');
    const { user: created } = await h.client.registerUser({ name, email: `${name}@example.org`, password: 'a long enough password' }, as(undefined));
    return created!.id;
  }

  async function app(owner: string): Promise<string> {
    const { client } = await h.client.createClient({ name: 'Hook app', redirectUris: ['https://app.example/cb'], confidential: true }, as(owner));
    return client!.id;
  }

  /** The user authorizes the app with `scopes`: a code exchanged for an access token (and a refresh token when asked). */
  async function authorize(userId: string, clientId: string, scopes: string[], withRefresh = false): Promise<{ access: string; refresh: string }> {
    const code = randomBytes(16).toString('hex');
    const { authorizationCode } = await h.client.saveAuthorizationCode({ code, clientId, redirectUri: 'https://app.example/cb', scopes, expiresAt: timestampFromDate(new Date(Date.now() + 60_000)) }, as(userId));
    const access = randomBytes(16).toString('hex');
    const refresh = withRefresh ? randomBytes(16).toString('hex') : '';
    await h.client.saveTokens(
      { accessToken: access, accessExpiresAt: timestampFromDate(new Date(Date.now() + 3_600_000)), refreshToken: refresh, ...(withRefresh ? { refreshExpiresAt: timestampFromDate(new Date(Date.now() + 86_400_000)) } : {}), clientId, scopes, authorizationCodeId: authorizationCode!.id },
      as(userId),
    );
    return { access, refresh };
  }

  it('answers the union of the scopes of a user’s active tokens per app, only to the webhooks service', async () => {
    const owner = await user();
    const reader = await user();
    const [first, second, never] = [await app(owner), await app(owner), await app(owner)];
    await authorize(reader, first, ['read_pms']);
    await authorize(reader, first, ['read_stories']);
    await authorize(reader, second, ['read_bookshelves'], true);

    const { apps } = await asWebhooks.getUserAppScopes({ userId: reader, appIds: [first, second, never] });
    expect(new Map(apps.map((entry) => [entry.appId, entry.scopes]))).toEqual(new Map([[first, ['read_pms', 'read_stories']], [second, ['read_bookshelves']]]));
    expect(await callCode(h.client.getUserAppScopes({ userId: reader, appIds: [first] }, as(reader)))).toBe(ErrorCode.PERMISSION_DENIED);
  });

  it('leaves out an app once its authorization is revoked (the refresh token takes the family with it)', async () => {
    const owner = await user();
    const reader = await user();
    const clientId = await app(owner);
    const { refresh } = await authorize(reader, clientId, ['read_pms'], true);
    expect((await asWebhooks.getUserAppScopes({ userId: reader, appIds: [clientId] })).apps).toHaveLength(1);

    await h.client.revokeToken({ token: refresh, clientId: '' }, as(reader));
    expect((await asWebhooks.getUserAppScopes({ userId: reader, appIds: [clientId] })).apps).toEqual([]);
  });

  it('lets the webhooks service read who owns an app', async () => {
    const owner = await user();
    const clientId = await app(owner);
    const { client } = await asWebhooks.getClient({ clientId });
    expect(client?.ownerUserId).toBe(owner);
  });
});
