import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createKafka, decodeEnvelope, ensureTopics, eventsMigrations, OutboxRelay } from '@inkwell/events';
import { createGrpcClient, type CallerContext, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';
import type { EventEnvelope } from '@inkwell/proto/events';
import { MessagingService } from '@inkwell/proto/messaging';
import { Topics } from '@inkwell/proto/topics';
import { RelationsService, UsersService } from '@inkwell/proto/users';
import { dropSchemas, ensureDatabase, freePort, KeyRing, stackEnv, startProcess, type RunningProcess } from '@inkwell/testing';
import { NotificationRepository } from '../src/repositories/notification.repository.js';
import { PrivateMessageRepository } from '../src/repositories/private-message.repository.js';
import { UserDirectoryRepository } from '../src/repositories/user-directory.repository.js';
import { UserRelationsRepository } from '../src/repositories/user-relations.repository.js';
import { createMessagingServer } from '../src/server.js';
import { NotificationService } from '../src/services/notification.service.js';
import { PrivateMessageService } from '../src/services/private-message.service.js';

const SCHEMA = 'messaging';

/** The messaging service over gRPC, on its own database, with the real users service beside it. */
export interface MessagingStack {
  client: GrpcClient<typeof MessagingService>;
  /** Pool on the messaging schema (for fixtures such as back-dated messages, and the outbox). */
  pool: pg.Pool;
  /** Creates a user in the users service's table and returns its id. */
  createUser(name: string): Promise<string>;
  /**
   * The events this run wrote to the outbox with `key`, as they reached Kafka through the outbox
   * relay, in topic order; waits for all of them (fails after 20 s). Earlier runs reused the
   * same keys, so events are matched by their ids.
   */
  readEvents(key: string): Promise<EventEnvelope[]>;
  stop(): Promise<void>;
}

/**
 * Starts the real users service as a process (as `npm run dev` does) and the messaging gRPC
 * server in this process on port 0, both on database `database` with their schemas dropped
 * first. Users are created straight in the users table: the users service answers GetUser from
 * it, which is all messaging asks.
 */
export async function startMessagingStack(database: string): Promise<MessagingStack> {
  const logger = createLogger('messaging-test');
  const url = await ensureDatabase(stackEnv().databaseUrl, database);
  await dropSchemas(url, [SCHEMA, 'users']);

  const usersPort = await freePort();
  const usersAddress = `127.0.0.1:${usersPort}`;
  // Test-only keys: the users process trusts them all, messaging calls it with its own.
  const keys = KeyRing.generate();
  const usersClient = createGrpcClient(UsersService, usersAddress, keys.clientOptions('messaging'));
  const relationsClient = createGrpcClient(RelationsService, usersAddress, keys.clientOptions('messaging'));
  let usersProcess: RunningProcess | undefined;
  let server: GrpcServer | undefined;
  let relay: OutboxRelay | undefined;
  const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: 'messaging-test', logger });
  const pool = createPool({ connectionString: url, schema: SCHEMA, settings: { jit: 'off' } });
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  try {
    usersProcess = await startProcess({
      name: 'users',
      entry: 'services/users/src/main.ts',
      env: { ...keys.env('users'), DATABASE_URL: url, KAFKA_BROKERS: stackEnv().kafkaBrokers.join(','), USERS_GRPC_PORT: String(usersPort), SEED_DEMO_DATA: 'false' },
      ready: () => usersClient.checkHealth(),
    });
    await migrate(pool, { schema: SCHEMA, directory: fileURLToPath(new URL('../migrations', import.meta.url)), extra: eventsMigrations, logger });
    await ensureTopics(kafka, [Topics.messagingMessage]);
    relay = new OutboxRelay({ pool, kafka, schema: SCHEMA, logger });
    await relay.start();
    const messages = new PrivateMessageService(new PrivateMessageRepository(pool), new UserDirectoryRepository(usersClient), new UserRelationsRepository(relationsClient));
    const notifications = new NotificationService(new NotificationRepository(pool));
    server = createMessagingServer({ logger, verifier: keys.verifier('messaging'), messages, notifications });
    const port = await server.listen('127.0.0.1:0');
    const client = createGrpcClient(MessagingService, `127.0.0.1:${port}`, keys.clientOptions('gateway'));
    const running = { usersProcess, server, relay };
    return {
      client,
      pool,
      async createUser(name) {
        const { rows } = await admin.query<{ id: string }>(
          "INSERT INTO users.users (name, email, password_hash) VALUES ($1, $1 || '@example.org', 'not-a-hash') RETURNING id",
          [name],
        );
        return String(rows[0]!.id);
      },
      async readEvents(key) {
        const { rows } = await pool.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE key = $1', [key]);
        const wanted = new Set(rows.map((row) => row.event_id));
        const count = wanted.size;
        const found: EventEnvelope[] = [];
        const consumer = kafka.consumer({ groupId: `messaging-test-${randomUUID()}`, maxWaitTimeInMs: 250 });
        await consumer.connect();
        try {
          await consumer.subscribe({ topic: Topics.messagingMessage, fromBeginning: true });
          let arrived: () => void = () => {};
          const enough = new Promise<void>((resolve) => (arrived = resolve));
          await consumer.run({
            eachMessage: async ({ message }) => {
              const envelope = message.key?.toString() === key ? decodeEnvelope(message.value) : undefined;
              if (envelope !== undefined && wanted.has(envelope.eventId) && found.push(envelope) >= count) arrived();
            },
          });
          await Promise.race([enough, new Promise((_, reject) => setTimeout(() => reject(new Error(`${found.length} of ${count} events for ${key}`)), 20_000))]);
          return found;
        } finally {
          await consumer.disconnect();
        }
      },
      async stop() {
        client.close();
        await running.relay.stop();
        await running.server.shutdown(1_000);
        usersClient.close();
        relationsClient.close();
        await running.usersProcess.stop();
        await pool.end();
        await admin.end();
      },
    };
  } catch (error) {
    usersClient.close();
    relationsClient.close();
    await relay?.stop();
    await server?.shutdown(1_000);
    await usersProcess?.stop();
    await pool.end();
    await admin.end();
    throw error;
  }
}

/** The caller context of a signed-in user holding both message scopes. */
export function as(userId: string): { caller: CallerContext } {
  return { caller: { requestId: `test-${userId}`, userId, scopes: ['read_pms', 'write_pms'] } };
}
