import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { callCode } from '@inkwell/testing';
import { FollowDirection, UsersService } from '@inkwell/proto/users';
import { USERS_ISSUERS } from '../src/transport/issuers.policy.js';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

type Method = keyof typeof USERS_ISSUERS;

const GATEWAY_ONLY = (Object.keys(USERS_ISSUERS) as Method[]).filter((method) => USERS_ISSUERS[method].length === 1 && USERS_ISSUERS[method][0] === 'gateway');

describe('who may call the users service (docs/api/foundation.md, "Internal calls")', () => {
  let h: UsersHarness;
  let asMessaging: GrpcClient<typeof UsersService>;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_issuers');
    asMessaging = createGrpcClient(UsersService, h.address, h.keys.clientOptions('messaging'));
  });

  afterAll(async () => {
    asMessaging?.close();
    await h?.close();
  });

  it('keeps credentials, tokens, OAuth apps, sign-in, sign-up and writes to the gateway', () => {
    expect(GATEWAY_ONLY).toEqual(
      expect.arrayContaining(['registerUser', 'authenticate', 'updateUser', 'createClient', 'verifyClientSecret', 'saveAuthorizationCode', 'consumeAuthorizationCode', 'saveTokens', 'getAccessToken', 'revokeUserTokens', 'createPersonalToken', 'listPersonalTokens', 'revokePersonalToken']),
    );
  });

  it.each(GATEWAY_ONLY)('refuses %s from another service with PERMISSION_DENIED, whatever user it claims to act for', async (method) => {
    const call = (asMessaging[method] as (request: object, options: object) => Promise<unknown>)({}, as('1', ['write_user']));

    expect(await callCode(call)).toBe(ErrorCode.PERMISSION_DENIED);
  });

  it('lets another service mint nothing: a personal token for an existing user is refused and none is stored', async () => {
    const name = uniqueName('iss');
    const { rows } = await h.pool.query<{ id: string }>(`INSERT INTO users (name, email, password_hash) VALUES ($1, $2, 'x') RETURNING id`, [name, `${name}@example.org`]);
    const userId = String(rows[0]!.id);

    expect(await callCode(asMessaging.createPersonalToken({ name: 'stolen', scopes: ['write_user'] }, as(userId, ['write_user'])))).toBe(ErrorCode.PERMISSION_DENIED);
    const { personalTokens } = await h.client.listPersonalTokens({}, as(userId, ['write_user']));
    expect(personalTokens).toEqual([]);
  });

  it('answers public reads of another service as the caller it forwards', async () => {
    const name = uniqueName('iss');
    const { rows } = await h.pool.query<{ id: string }>(`INSERT INTO users (name, email, password_hash) VALUES ($1, $2, 'x') RETURNING id`, [name, `${name}@example.org`]);
    const userId = String(rows[0]!.id);

    const { user } = await asMessaging.getUser({ id: userId }, as(undefined));
    expect(user?.name).toBe(name);
    expect(await callCode(asMessaging.batchGetUsers({ ids: [userId] }, as(undefined)))).toBe('OK');
    expect(await callCode(asMessaging.listFollows({ userId, direction: FollowDirection.FOLLOWERS }, as(undefined)))).toBe('OK');
  });
});
