import { create, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import { createGrpcClient, type AssertionSigner, type CallerContext, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';
import { UsersService } from '@inkwell/proto/users';
import { createRedis, type Redis } from '@inkwell/redis';
import { decodeRevocationNotice, hashToken, REVOCATION_CHANNEL } from '@inkwell/auth-tokens';
import { callAs, closeServiceHarness, dropSchemas, ensureDatabase, eventually, KeyRing, stackEnv } from '@inkwell/testing';
import { USERS_MIGRATIONS, USERS_SCHEMA } from '../src/schema.js';
import { createUsersServer } from '../src/server.js';
import { createUsersServices, type UsersServices } from '../src/services.js';

/** A users service of its own for one test file: fresh schema in its own database, real Redis, gRPC on a free port. */
export interface UsersHarness {
  pool: pg.Pool;
  redis: Redis;
  services: UsersServices;
  client: GrpcClient<typeof UsersService>;
  /** The database URL (for processes such as the CLI). */
  databaseUrl: string;
  /** The gRPC address of the service, `127.0.0.1:<port>`. */
  address: string;
  /** Test-only internal-auth keys: the server trusts all of them; `client` signs as `gateway`. */
  keys: KeyRing;
  /** Signs as the gateway: with `address`, the harness is a UsersTarget of createTestUser. */
  signer: AssertionSigner;
  close(): Promise<void>;
}

/** Starts a users service over database `database` (dropped and migrated from scratch). */
export async function startUsersHarness(database: string): Promise<UsersHarness> {
  const logger = createLogger('users-test');
  const env = stackEnv();
  const databaseUrl = await ensureDatabase(env.databaseUrl, database);
  await dropSchemas(databaseUrl, [USERS_SCHEMA]);
  const pool = createPool({ connectionString: databaseUrl, schema: USERS_SCHEMA });
  await migrate(pool, { schema: USERS_SCHEMA, directory: USERS_MIGRATIONS, extra: eventsMigrations, logger });
  const redis = createRedis(env.redisUrl, {}, logger);
  const services = createUsersServices(pool, redis, logger);
  await services.accounts.prepare();
  const keys = KeyRing.generate();
  const server: GrpcServer = createUsersServer({ logger, services, verifier: keys.verifier('users') });
  const port = await server.listen('127.0.0.1:0');
  const client = createGrpcClient(UsersService, `127.0.0.1:${port}`, { defaultDeadlineMs: 15_000, ...keys.clientOptions('gateway') });
  return {
    pool,
    redis,
    services,
    client,
    databaseUrl,
    address: `127.0.0.1:${port}`,
    keys,
    signer: keys.signer('gateway'),
    close: () => closeServiceHarness({ client, server, redis, pool }),
  };
}

/** Call options for a caller: `{ caller: { requestId, userId?, scopes } }`. */
export function as(userId: string | undefined, scopes: readonly string[] = []): { caller: CallerContext } {
  return callAs({ ...(userId === undefined ? {} : { userId }), scopes });
}

/** A name unique to this run, for users and apps. */
export function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/**
 * A request of `schema` built from `init` that also carries `userId` in field `fieldNumber`, a
 * user id field the request no longer has (`reserved` in users_service.proto): what a gateway
 * built against the old contract would send. The server sees it as an unknown field.
 */
export function withRemovedUserId<D extends DescMessage>(schema: D, init: MessageInitShape<D>, fieldNumber: number, userId: string): MessageShape<D> {
  const message = create(schema, init);
  message.$unknown = [{ no: fieldNumber, wireType: WireType.Varint, data: new BinaryWriter().int64(BigInt(userId)).finish() }];
  return message;
}

/** What a test hears on the revocation channel every gateway listens to. */
export interface RevocationListener {
  /** Resolves once notices naming every one of `tokens` have arrived (gateways drop them within a second). */
  announced(tokens: readonly string[]): Promise<void>;
  close(): void;
}

/** Subscribes to the revocation channel (docs/api/auth.md) as a gateway does. */
export async function listenForRevocations(): Promise<RevocationListener> {
  const subscriber = createRedis(stackEnv().redisUrl);
  const hashes = new Set<string>();
  subscriber.on('message', (_channel: string, message: string) => {
    for (const hash of decodeRevocationNotice(message).tokenHashes) hashes.add(hash);
  });
  await subscriber.subscribe(REVOCATION_CHANNEL);
  return {
    announced: (tokens) => eventually(() => tokens.every((token) => hashes.has(hashToken(token))), { timeoutMs: 1_000, intervalMs: 10, what: 'the revocation notices' }),
    close: () => subscriber.disconnect(),
  };
}
