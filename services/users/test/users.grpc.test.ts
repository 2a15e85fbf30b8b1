import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { ErrorCode } from '@inkwell/errors';
import { createGrpcClient, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { eventsMigrations } from '@inkwell/events';
import { createPool, migrate } from '@inkwell/pg';
import { UsersService } from '@inkwell/proto/users';
import { dropSchemas, ensureDatabase, stackEnv } from '@inkwell/testing';
import { UserRepository } from '../src/repositories/user.repository.js';
import { createUsersServer } from '../src/server.js';
import { UserService } from '../src/services/user.service.js';

const SCHEMA = 'users';
const logger = createLogger('users-test');

describe('UsersService over gRPC', () => {
  let pool: pg.Pool;
  let server: GrpcServer;
  let client: GrpcClient<typeof UsersService>;
  let users: UserService;

  beforeAll(async () => {
    const url = await ensureDatabase(stackEnv().databaseUrl, 'inkwell_test_users_grpc');
    await dropSchemas(url, [SCHEMA]);
    pool = createPool({ connectionString: url, schema: SCHEMA });
    await migrate(pool, { schema: SCHEMA, directory: fileURLToPath(new URL('../migrations', import.meta.url)), extra: eventsMigrations, logger });
    users = new UserService(new UserRepository(pool));
    server = createUsersServer({ logger, users });
    const port = await server.listen('127.0.0.1:0');
    client = createGrpcClient(UsersService, `127.0.0.1:${port}`);
  });

  afterAll(async () => {
    client?.close();
    await server?.shutdown(1_000);
    await pool?.end();
  });

  it('returns a registered user, with the e-mail only for the user themself holding read_user', async () => {
    const ada = await users.ensureUser({ name: 'ada-grpc', email: 'ada-grpc@example.org', password: 'pw-123456789', bio: 'Hello *there*' });

    const anonymous = await client.getUser({ id: ada.id }, { caller: { requestId: 'r1', scopes: [] } });
    expect(anonymous.user?.name).toBe('ada-grpc');
    expect(anonymous.user?.bioHtml).toBe('<p>Hello <em>there</em></p>');
    expect(anonymous.user?.email).toBeUndefined();

    const self = await client.getUser({ id: ada.id }, { caller: { requestId: 'r2', userId: ada.id, scopes: ['read_user'] } });
    expect(self.user?.email).toBe('ada-grpc@example.org');

    const selfWithoutScope = await client.getUser({ id: ada.id }, { caller: { requestId: 'r3', userId: ada.id, scopes: [] } });
    expect(selfWithoutScope.user?.email).toBeUndefined();
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    await expect(client.getUser({ id: '987654321' }, { caller: { requestId: 'r4', scopes: [] } })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('seeds idempotently: the same name twice is one user', async () => {
    const first = await users.ensureUser({ name: 'twice', email: 'twice@example.org', password: 'pw-123456789' });
    const second = await users.ensureUser({ name: 'TWICE', email: 'other@example.org', password: 'pw-123456789' });
    expect(second.id).toBe(first.id);
  });

  it('writes a UserCreated event to the outbox in the same transaction as the user', async () => {
    const created = await users.ensureUser({ name: 'evented', email: 'evented@example.org', password: 'pw-123456789' });
    const { rows } = await pool.query<{ key: string; topic: string }>("SELECT key, topic FROM outbox WHERE key = $1", [created.id]);
    expect(rows).toEqual([{ key: created.id, topic: 'users.user.v1' }]);
  });
});
